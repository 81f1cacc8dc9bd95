// The preview page in real Chromium against a real service: the page's fit and answers equal the
// service's bit for bit, the exported model scores alike in the page, and it works offline after load.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestService, type TestService } from '../helpers/service.ts';
import { SAMPLES } from '../../samples/catalog.ts';
import { ARTIFACTS, launchChromium, type Browser } from './chromium.ts';

let svc: TestService;
let browser: Browser;
let page: Page;
let testKey: string;
const requested: string[] = [];
const pageErrors: string[] = [];

type Obj = Record<string, any>;

/** Clicks `selector` and waits until the page has finished what the click started. */
async function clickAndWait(selector: string): Promise<string> {
  await page.evaluate(() => (document.body.dataset.status = 'test-clicked'));
  await page.click(selector);
  await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.status ?? ''), null, { timeout: 90_000 });
  return page.evaluate(() => document.body.dataset.status!);
}

async function runSample(name: string, cases: 'all' | 'ids', type?: string): Promise<{ body: Obj; ask: Obj }> {
  await page.selectOption('#sample', name); // fills the form with the sample's own question
  await page.selectOption('#cases-mode', cases);
  if (type) await page.selectOption('#type', type);
  expect(await clickAndWait('#run'), await page.textContent('#run-line') ?? '').toBe('done');
  return page.evaluate(() => ({ body: window.oqPreview.app!.lastPreview!.body, ask: window.oqPreview.app!.lastAsk! }));
}

beforeAll(async () => {
  browser = await launchChromium();
  svc = await startTestService({ pendingWaitMs: 120_000 });
  testKey = await svc.testKey();
  page = await browser.context.newPage();
  page.on('request', (r) => requested.push(r.url()));
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(svc.url + '/');
  await page.waitForFunction(() => document.body.dataset.status !== 'loading', null, { timeout: 60_000 });
  expect(await page.evaluate(() => document.body.dataset.status), await page.textContent('#engine-line') ?? '').toBe('ready');
});

afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

describe('the preview page', () => {
  it('is served from this origin with a same-origin CSP, and serves the bundle, the engine and the samples', async () => {
    const res = await fetch(svc.url + '/');
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self' 'wasm-unsafe-eval'");
    expect(csp).toContain("connect-src 'self'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const types = { '/preview.js': 'text/javascript; charset=utf-8', '/preview.css': 'text/css; charset=utf-8', '/engine.wasm': 'application/wasm', '/samples/saas_churn.csv': 'text/csv; charset=utf-8' };
    for (const [p, type] of Object.entries(types)) {
      const r = await fetch(svc.url + p);
      expect(r.status, p).toBe(200);
      expect(r.headers.get('content-type'), p).toBe(type);
    }
    expect((await fetch(svc.url + '/samples/secrets.csv')).status).toBe(404);
    expect(await page.textContent('#core-hash')).toBe(svc.services.engine.coreHash);
  });

  it("previews saas_churn's own question on all 800 cases, and every p equals the service's bit for bit", async () => {
    await page.selectOption('#sample', 'saas_churn');
    expect(await page.inputValue('#entity')).toBe('customer_id');
    expect(await page.inputValue('#outcome')).toBe('churned');
    expect(await page.inputValue('#type')).toBe('yesno');
    const { body, ask } = await runSample('saas_churn', 'all');
    expect(ask.data).toEqual({ dataset_id: 'sample:saas_churn' });
    expect(ask.cases.ids).toHaveLength(800);
    const mine = body.answers.q;
    expect(mine.state).toBe('answered');
    expect(mine.cases).toHaveLength(800);

    const served = await svc.post('/v1/ask', ask, testKey);
    expect(served.status).toBe(200);
    const theirs = served.body.answers.q;
    expect(mine.model_ref).toBe(theirs.model_ref);
    expect(body.record.content_hash).toBe(served.body.record.content_hash);
    expect(mine.quality).toEqual(theirs.quality);
    const differing = mine.cases.filter((c: Obj, i: number) => c.entity_id !== theirs.cases[i].entity_id || !Object.is(c.p, theirs.cases[i].p));
    expect(differing).toEqual([]);
    expect(mine.cases.map((c: Obj) => c.reasons)).toEqual(theirs.cases.map((c: Obj) => c.reasons));

    // The page's own comparison, through its form, says the same.
    await page.fill('#api-key', testKey);
    expect(await clickAndWait('#ask-service')).toBe('done');
    expect(await page.getAttribute('#agreement-result', 'data-agree')).toBe('true');
    expect(await page.textContent('#agreement-result')).toContain('800 of 800 cases with p equal bit for bit');
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'preview-saas_churn.png'), fullPage: true });
    expect(await page.locator('#terms-chart svg.panel').count()).toBeGreaterThan(0);
  });

  it("loads the service's exported model and scores the same 800 cases in the page bit for bit", async () => {
    expect(await clickAndWait('#export-model')).toBe('done');
    expect(await page.textContent('#export-result')).toContain("800 of 800 cases have the service's p bit for bit");
  });

  for (const sample of SAMPLES.filter((s) => s.shape === 'table')) {
    const type = (sample.try.questions.q as Obj).type;
    it(`answers ${sample.name}'s own ${type} question on its try cases as the service does (${sample.expected_state})`, async () => {
      const { body, ask } = await runSample(sample.name, 'ids');
      expect(ask.questions).toEqual(sample.try.questions);
      expect(ask.cases).toEqual(sample.try.cases);
      expect(body.answers.q.state).toBe(sample.expected_state);
      expect(await clickAndWait('#ask-service')).toBe('done');
      expect(await page.getAttribute('#agreement-result', 'data-agree')).toBe('true');
    });
  }

  it('keeps working with the network cut off after load: previews another sample offline', async () => {
    await page.context().setOffline(true);
    try {
      expect(await page.evaluate(() => fetch('/healthz').then(() => 'online', () => 'offline'))).toBe('offline');
      const { body } = await runSample('b2b_leads', 'all', 'rank');
      expect(body.answers.q.state).toBe('answered');
      expect(body.answers.q.ranked).toHaveLength(20);
      expect(body.answers.q.ranked_total).toBe(800);
      expect(await page.locator('#cases-table tbody tr').count()).toBe(20);
    } finally {
      await page.context().setOffline(false);
    }
  });

  it('previews a picked CSV file; sent as data.csv with a live key, the service agrees', async () => {
    const csv = fs.readFileSync(path.resolve(import.meta.dirname, '../../samples/saas_churn.csv'));
    await page.setInputFiles('#file', { name: 'my-customers.csv', mimeType: 'text/csv', buffer: csv });
    await page.waitForFunction(() => document.querySelector('#record-line')!.textContent!.startsWith('my-customers.csv'));
    await page.selectOption('#outcome', 'churned');
    await page.selectOption('#type', 'score');
    await page.selectOption('#cases-mode', 'all');
    expect(await clickAndWait('#run')).toBe('done');
    const ask = await page.evaluate(() => window.oqPreview.app!.lastAsk!);
    expect(ask.data).toEqual({ csv: csv.toString('utf8') });
    await page.fill('#api-key', await svc.liveKey());
    expect(await clickAndWait('#ask-service')).toBe('done');
    expect(await page.getAttribute('#agreement-result', 'data-agree')).toBe('true');
  });

  it('shows a CSV problem in a picked file instead of fitting', async () => {
    await page.setInputFiles('#file', { name: 'broken.csv', mimeType: 'text/csv', buffer: Buffer.from('a,b\n1,2\n3\n') });
    await page.waitForFunction(() => document.querySelector('#record-line .error') !== null);
    expect(await page.textContent('#record-line')).toContain('Line 3 has 1 field; the header has 2.');
  });

  it('loaded nothing from another origin and raised no page errors', () => {
    expect(requested.filter((u) => !u.startsWith(svc.url + '/') && !u.startsWith('data:'))).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
