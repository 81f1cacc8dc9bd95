// The watch_url of svc_track_record and svc_drift (docs/reference/outcomes.md#watch) over real HTTP with the real wasm and a manual
// clock: GET /v1/watch/<token> with no key shows exactly what those calls answer (calibration and latest drift),
// an altered link is 404 unknown_link, 24 hours later 410 watch_link_expired, and its reads never take from the
// workspace's per-minute budget.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { churnAsk, churnRows } from '../../helpers/churn.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';

const DAY = 86_400_000;
/** Small, so a read counted against the workspace would show as a 429 among the keyed calls after it. */
const PER_MINUTE = 12;

let svc: TestService;
let key: string;
let baseRef: string;
let refitRef: string;
let tracked: { status: number; body: any };
let drifted: { status: number; body: any };

const apiOf = (watchUrl: string) => watchUrl.replace('/watch/', '/v1/watch/');
const withoutWatch = ({ watch_url: _w, ...rest }: Record<string, unknown>) => rest;
async function read(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  return { status: res.status, type: res.headers.get('content-type'), body: await res.json() };
}
/** One character of the token changed (the last one, within the signature). */
const altered = (url: string) => url.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));

beforeAll(async () => {
  svc = await startTestService({ rateLimitPerMinute: PER_MINUTE, pendingWaitMs: 120_000 }, { manualClock: true });
  svc.clock.now = Date.UTC(2026, 5, 1, 12);
  ({ key } = await svc.liveCaller('watch-model', true));
  const ids = Array.from({ length: 40 }, (_, i) => `c${String(i).padStart(5, '0')}`);
  const fit = await svc.post(
    '/v1/ask',
    churnAsk(churnRows({ seed: 7, rows: 1500 }), { outcome_is_desirable: false }, { cases: { ids } }),
    key,
  );
  expect(fit.body.answers.q.state).toBe('answered');
  baseRef = fit.body.answers.q.model_ref;
  const outcomes = ids.map((id, i) => ({ entity_id: id, outcome: i % 3 === 0, observed_at: '2026-06-02', event_id: `o-${id}` }));
  svc.clock.now += DAY;
  expect((await svc.post('/v1/report-outcomes', { model_ref: baseRef, outcomes }, key)).status).toBe(200);
  const refit = await svc.post(
    '/v1/ask',
    churnAsk(churnRows({ seed: 8, rows: 1500 }), { outcome_is_desirable: false, refit_of: baseRef }, { cases: { ids: ['c00001'] } }),
    key,
  );
  expect(refit.status).toBe(200);
  refitRef = refit.body.answers.q.model_ref;
  tracked = await svc.post('/v1/track-record', { model_ref: baseRef }, key);
  drifted = await svc.post('/v1/drift', { model_ref: refitRef }, key);
});
afterAll(() => svc?.close());

describe('the watch_url of svc_track_record and svc_drift', () => {
  it('is {site_url}/watch/<token> on both, and a different link per model', () => {
    expect(tracked.status).toBe(200);
    expect(drifted.status).toBe(200);
    for (const r of [tracked, drifted])
      expect(r.body.watch_url).toMatch(new RegExp(`^${svc.url}/watch/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{43}$`));
    expect(tracked.body.track_record).toBeUndefined();
    expect(tracked.body.overall.calls).toBe(40);
  });

  it("a track record's link shows, with no key, exactly what svc_track_record and svc_drift say of its model", async () => {
    const r = await read(apiOf(tracked.body.watch_url));
    expect(r.status).toBe(200);
    expect(r.type).toMatch(/^application\/json/);
    expect(r.body).toMatchObject({ kind: 'model', shows: 'track_record', model_ref: baseRef, namespace: null });
    expect(r.body.expires_at).toBe(new Date(svc.clock.now + DAY).toISOString());
    expect(r.body.track_record).toEqual(withoutWatch(tracked.body));
    const drift = await svc.post('/v1/drift', { model_ref: baseRef }, key);
    expect(r.body.drift).toEqual(withoutWatch(drift.body));
    expect(r.body.drift.recommendation).toBe('no_check_yet'); // the base model was fitted without refit_of
    // calibration only: statistics, no case ids, no rows
    expect(JSON.stringify(r.body)).not.toMatch(/c000\d\d/);
  });

  it("a drift's link shows the refit's drift report and track record, as the keyed calls give them", async () => {
    const r = await read(apiOf(drifted.body.watch_url));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ kind: 'model', shows: 'drift', model_ref: refitRef });
    expect(r.body.drift).toEqual(withoutWatch(drifted.body));
    expect(r.body.drift.report.refit_of).toBe(baseRef);
    const record = await svc.post('/v1/track-record', { model_ref: refitRef }, key);
    expect(r.body.track_record).toEqual(withoutWatch(record.body));
  });

  it('after new outcomes the same link shows the new calibration (it reads, it does not copy)', async () => {
    const more = [{ entity_id: 'c00001', outcome: true, observed_at: '2026-06-03', event_id: 'later-c00001' }];
    expect((await svc.post('/v1/report-outcomes', { model_ref: baseRef, outcomes: more }, key)).status).toBe(200);
    const now = await svc.post('/v1/track-record', { model_ref: baseRef }, key);
    const r = await read(apiOf(tracked.body.watch_url));
    expect(r.body.track_record).toEqual(withoutWatch(now.body));
  });

  it('needs no key, and a key sent along changes nothing', async () => {
    const bare = await read(apiOf(tracked.body.watch_url));
    const keyed = await read(apiOf(tracked.body.watch_url), { authorization: `Bearer ${key}` });
    expect(keyed.status).toBe(200);
    expect({ ...keyed.body, read_at: '' }).toEqual({ ...bare.body, read_at: '' });
  });

  it('an altered or made-up link is 404 unknown_link; a model link has no event stream', async () => {
    for (const url of [altered(apiOf(tracked.body.watch_url)), altered(apiOf(drifted.body.watch_url)), `${svc.url}/v1/watch/nope`]) {
      const r = await read(url);
      expect(r.status, url).toBe(404);
      expect(r.type).toMatch(/problem\+json/);
      expect(r.body.code).toBe('unknown_link');
    }
    const events = await read(`${apiOf(tracked.body.watch_url)}/events`);
    expect(events.status).toBe(404);
    expect(events.body.code).toBe('unknown_link');
    expect(events.body.detail).toMatch(/GET \/v1\/watch\/<token>/);
  });

  it("never counts against the workspace's per-minute budget", async () => {
    svc.clock.now += 61_000; // a fresh window
    for (let i = 0; i < 3 * PER_MINUTE; i++) expect((await read(apiOf(tracked.body.watch_url))).status).toBe(200);
    // the workspace still has its whole minute: PER_MINUTE keyed calls pass, the next is limited
    for (let i = 0; i < PER_MINUTE; i++)
      expect((await svc.post('/v1/track-record', { model_ref: baseRef }, key)).status, `call ${i}`).toBe(200);
    expect((await svc.post('/v1/track-record', { model_ref: baseRef }, key)).status).toBe(429);
  });

  it('limits reads of one model through its links to 60 a minute (429 watch_streams_limited)', async () => {
    svc.clock.now += 61_000;
    let limited: Awaited<ReturnType<typeof read>> | null = null;
    for (let i = 0; i < 70 && !limited; i++) {
      const r = await read(apiOf(drifted.body.watch_url));
      if (r.status === 429) limited = r;
    }
    expect(limited?.body).toMatchObject({ code: 'watch_streams_limited', status: 429 });
    expect(limited!.body.retry_after_ms).toBeGreaterThan(0);
    // another model's links are counted apart
    expect((await read(apiOf(tracked.body.watch_url))).status).toBe(200);
  });

  it('stops after 24 hours: 410 watch_link_expired; a new call gives a new link', async () => {
    svc.clock.now = Date.parse((await read(apiOf(tracked.body.watch_url))).body.expires_at);
    for (const url of [apiOf(tracked.body.watch_url), apiOf(drifted.body.watch_url)]) {
      const r = await read(url);
      expect(r.status).toBe(410);
      expect(r.body.code).toBe('watch_link_expired');
    }
    const again = await svc.post('/v1/track-record', { model_ref: baseRef }, key);
    expect((await read(apiOf(again.body.watch_url))).status).toBe(200);
  });
});
