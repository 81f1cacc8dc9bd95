// The watch page in real Chromium (docs/reference/outcomes.md#watch): a model's watch_url (svc_track_record, svc_drift) shows the
// calibration by chance range and the latest drift that the keyed calls give, reading only this origin's
// /v1/watch/<token>; an altered link says it is not valid, an expired one that it expired; a pending ask's link
// still follows its task to done.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { bigRows } from '../helpers/big-rows.ts';
import { churnAsk, churnRows } from '../helpers/churn.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { ARTIFACTS, launchChromium, type Browser } from './chromium.ts';

const DAY = 86_400_000;
const pct = (x: number | null) => (x === null ? '–' : `${(x * 100).toFixed(1)}%`);

let svc: TestService;
let browser: Browser;
let key: string;
let tracked: any;
let drifted: any;

beforeAll(async () => {
  svc = await startTestService({ pendingWaitMs: 120_000 }, { manualClock: true });
  svc.clock.now = Date.UTC(2026, 5, 1, 12);
  ({ key } = await svc.liveCaller('watch-page', true));
  const ids = Array.from({ length: 60 }, (_, i) => `c${String(i).padStart(5, '0')}`);
  const fit = await svc.post(
    '/v1/ask',
    churnAsk(churnRows({ seed: 7, rows: 1500 }), { outcome_is_desirable: false }, { cases: { ids } }),
    key,
  );
  const baseRef = fit.body.answers.q.model_ref;
  const outcomes = ids.map((id, i) => ({ entity_id: id, outcome: i % 4 === 0, observed_at: '2026-06-02', event_id: `o-${id}` }));
  svc.clock.now += DAY;
  expect((await svc.post('/v1/report-outcomes', { model_ref: baseRef, outcomes }, key)).status).toBe(200);
  const refit = await svc.post(
    '/v1/ask',
    churnAsk(
      churnRows({ seed: 8, rows: 1500, pattern: 'replaced' }),
      { outcome_is_desirable: false, refit_of: baseRef },
      { cases: { ids: ['c00001'] } },
    ),
    key,
  );
  tracked = (await svc.post('/v1/track-record', { model_ref: baseRef }, key)).body;
  drifted = (await svc.post('/v1/drift', { model_ref: refit.body.answers.q.model_ref }, key)).body;
  browser = await launchChromium();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

/** Opens `url` in a fresh page and waits until the page says what it shows; the requests it made and its errors. */
async function open(url: string, shot?: string): Promise<{ page: Page; status: string; requested: string[]; errors: string[] }> {
  const page = await browser.context.newPage();
  const requested: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => requested.push(r.url()));
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForFunction(() => ['model', 'task', 'error'].includes(document.body.dataset.status ?? ''), null, { timeout: 30_000 });
  const status = await page.evaluate(() => document.body.dataset.status!);
  if (shot) await page.screenshot({ path: path.join(ARTIFACTS, shot), fullPage: true });
  return { page, status, requested, errors };
}

describe('a model watch link in Chromium', () => {
  it("shows the track record's calibration, range by range, as svc_track_record gives it", async () => {
    const { page, status, requested, errors } = await open(tracked.watch_url, 'model-watch-track-record.png');
    expect(errors).toEqual([]);
    expect(status).toBe('model');
    expect(await page.textContent('h1')).toBe('Calibration and drift of a model');
    const rows = await page.$$eval('#by-chance tbody tr', (trs) =>
      trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent)),
    );
    expect(rows).toEqual(
      tracked.by_chance.map((r: any) => [
        r.range,
        String(r.calls),
        String(r.happened),
        pct(r.observed_rate),
        r.interval_95 ? `${pct(r.interval_95[0])} – ${pct(r.interval_95[1])}` : '–',
        pct(r.mean_chance),
      ]),
    );
    expect(tracked.overall.calls).toBe(60);
    expect(await page.textContent('#overall')).toContain(
      `${tracked.overall.calls} calls paired with outcomes, ${tracked.overall.happened} happened`,
    );
    // the base model was fitted without refit_of
    expect(await page.textContent('#drift')).toContain('no_check_yet');
    // this origin only, and of the API only this link's JSON
    const api = requested.filter((u) => new URL(u).pathname.startsWith('/v1/'));
    expect(requested.every((u) => u.startsWith(svc.url))).toBe(true);
    expect(api).toEqual([tracked.watch_url.replace('/watch/', '/v1/watch/')]);
    await page.close();
  });

  it("shows the refit's drift as svc_drift gives it", async () => {
    const { page, status } = await open(drifted.watch_url, 'model-watch-drift.png');
    expect(status).toBe('model');
    const pairs = await page.$$eval('#drift dt', (dts) => dts.map((dt) => [dt.textContent, dt.nextElementSibling!.textContent]));
    expect(Object.fromEntries(pairs)).toMatchObject({
      Pattern: drifted.pattern,
      Recommendation: drifted.recommendation,
      'Refit quality': drifted.refit_quality,
      'Model to serve': drifted.keep_model_ref ?? '–',
      Basis: drifted.report.basis,
    });
    await page.close();
  });

  it('an altered link says it is not valid', async () => {
    const { page, status, errors } = await open(tracked.watch_url.replace(/.$/, (c: string) => (c === 'A' ? 'B' : 'A')));
    expect(errors).toEqual([]);
    expect(status).toBe('error');
    expect(await page.textContent('#status')).toMatch(/^This link is not valid: this watch link is not one this service made/);
    expect(await page.isHidden('#model')).toBe(true);
    await page.close();
  });

  it('after 24 hours it says the link expired', async () => {
    const at = svc.clock.now;
    svc.clock.now += DAY;
    try {
      const { page, status } = await open(tracked.watch_url, 'model-watch-expired.png');
      expect(status).toBe('error');
      expect(await page.textContent('#status')).toMatch(/^This link has expired: this watch link expired at /);
      await page.close();
    } finally {
      svc.clock.now = at;
    }
  });
});

describe('a task watch link in Chromium', () => {
  it("still follows a pending ask's stages to done", async () => {
    const quick = await startTestService({ pendingWaitMs: 50 });
    try {
      const r = await quick.post(
        '/v1/ask',
        {
          data: { rows: bigRows() },
          entity_column: 'id',
          subject_kind: 'org',
          questions: { q: { type: 'yesno', outcome_column: 'y' } },
          cases: { ids: ['e1'] },
        },
        await quick.liveKey(),
      );
      expect(r.status).toBe(202);
      const { page, status, errors } = await open(r.body.watch_url);
      expect(status).toBe('task');
      await page.waitForFunction(() => document.getElementById('status')!.textContent!.startsWith('Done'), null, { timeout: 120_000 });
      expect(errors).toEqual([]);
      expect(await page.$$eval('#log li', (lis) => lis.length)).toBeGreaterThan(0);
      await page.close();
    } finally {
      await quick.close();
    }
  });
});
