// svc_backtest (docs/reference/map.md#backtest) end to end over real HTTP with the real wasm: svc_map builds a record of each
// sample log and the backtest says supported on the planted pattern (customer_events) and not_supported on the
// coin-flip log; the same call twice gives the same id and numbers (the second from cached fits); more cutoffs
// fit only the new ones; the Verdict verifies and never expires; concise withholds it; a cold backtest goes
// pending with backtest stages and progress; every bad input is a problem naming its field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSampleCsv } from '../../../samples/catalog.ts';
import { verifyVerdict } from '../../../host/signing/index.ts';
import { connectMcp } from '../../mcp/helpers.ts';
import { readSse } from '../../helpers/sse.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';

let svc: TestService;
let key: string;
beforeAll(async () => {
  svc = await startTestService();
  key = await svc.testKey();
});
afterAll(() => svc?.close());

const EVENTS = { dataset_id: 'sample:customer_events' };
const COINS = { dataset_id: 'sample:coin_flip_events' };
const backtest = (body: Record<string, unknown>, k = key) => svc.post('/v1/backtest', { subject_kind: 'org', ...body }, k);
/** The parts of a reply that are the same for the same call (the Verdict's id and time differ). */
const numbers = (b: any) => ({
  backtest_id: b.backtest_id,
  record: b.record,
  cutoffs: b.cutoffs,
  summary: b.summary,
  decision: b.decision,
});

describe('Ask your data and prove it: svc_map builds the record, svc_backtest grades its past', () => {
  let mapped: any;
  let supported: any;
  let coin: any;
  beforeAll(async () => {
    const m = await svc.post(
      '/v1/map',
      { sources: [EVENTS], horizon: { value: 60, unit: 'days' }, answers: { outcome: { offer_id: 'lapsed:customer_events' } } },
      key,
    );
    expect(m.status, JSON.stringify(m.body)).toBe(200);
    mapped = m.body;
    const r = await backtest({ data: EVENTS });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    supported = r.body;
    const cm = await svc.post('/v1/map', { sources: [COINS], answers: { outcome: { offer_id: 'event:coin_flip_events:won' } } }, key);
    expect(cm.status, JSON.stringify(cm.body)).toBe(200);
    const c = await backtest({ data: COINS });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    coin = c.body;
  }, 120_000);

  it('reads the record svc_map built (its mapping, outcome, horizon, reading and as_of)', () => {
    expect(mapped.status).toBe('confirmed');
    expect(supported.status).toBe('done');
    expect(supported.dataset_id).toBe('sample:customer_events');
    expect(supported.record).toMatchObject({
      mapping_id: mapped.mapping_id,
      outcome_column: 'lapsed_60d',
      horizon: { value: 60, unit: 'days' },
      snapshot_every: '1w',
      as_of: mapped.record.reading.as_of,
    });
    expect(supported.backtest_id).toMatch(/^bt_[0-9a-f]{32}$/);
  });

  it('takes the six newest weekly cutoffs whose horizon closed by as_of, oldest first', () => {
    const asOf = Date.parse(supported.record.as_of);
    const at = supported.cutoffs.map((c: any) => Date.parse(c.at));
    expect(at).toHaveLength(6);
    for (let i = 1; i < at.length; i++) expect(at[i] - at[i - 1]).toBe(7 * 86_400_000);
    expect(at[5] + 60 * 86_400_000).toBeLessThanOrEqual(asOf);
    expect(at[5] + 67 * 86_400_000).toBeGreaterThan(asOf);
  });

  it('says supported on the planted pattern: lift at the top 10% above 1.5 and above the lone-column baseline', () => {
    expect(supported.decision).toBe('supported');
    expect(supported.summary.cutoffs).toEqual({ graded: 6, not_yet: 0, refused: 0 });
    expect(supported.summary.lift.top10).toBeGreaterThanOrEqual(1.5);
    expect(supported.summary.lift.top10).toBeGreaterThan(supported.summary.baseline.lift.top10);
  });

  it('grades each cutoff: training window, scored readings, capture, lift, ten calibration bins and the baseline', () => {
    for (const c of supported.cutoffs) {
      expect(c.state).toBe('graded');
      expect(c.train.rows).toBeGreaterThan(0);
      expect(c.train.positives_entities).toBeGreaterThan(0);
      expect(c.train.entities).toBeGreaterThanOrEqual(c.train.positives_entities);
      expect(c.scored.entities).toBeGreaterThan(0);
      expect(c.graded.capture.map((x: any) => x.top)).toEqual([10, 20]);
      expect(c.graded.capture[0].k).toBe(Math.ceil(c.scored.entities / 10));
      expect(c.graded.calibration).toHaveLength(10);
      expect(c.graded.calibration.reduce((a: number, b: any) => a + b.count, 0)).toBe(c.scored.entities);
      expect(c.model_ref).toMatch(/^mr1_[0-9a-f]{32}$/);
      expect(typeof c.baseline.column).toBe('string');
      expect(['higher', 'lower']).toContain(c.baseline.direction);
      if (c.scored.positives > 0) {
        // lift is capture over the share of cases read
        const cap = c.graded.capture[0];
        expect(c.graded.lift.top10).toBeCloseTo(cap.value / (cap.k / c.scored.entities), 4);
      }
    }
    // the summary is the positives-weighted mean over graded cutoffs (no pooling)
    const g = supported.cutoffs.filter((c: any) => c.graded.lift.top10 !== null);
    const w = g.reduce((a: number, c: any) => a + c.scored.positives, 0);
    const mean = g.reduce((a: number, c: any) => a + c.scored.positives * c.graded.lift.top10, 0) / w;
    expect(supported.summary.lift.top10).toBeCloseTo(mean, 5);
  });

  it('says not_supported on the coin-flip log: every cutoff refused, nothing cleared', () => {
    expect(coin.decision).toBe('not_supported');
    expect(coin.record.outcome_column).toBe('won_next_30d');
    expect(coin.cutoffs).toHaveLength(6);
    for (const c of coin.cutoffs) {
      expect(c.state).toBe('refused');
      expect(c.reasons).toContain('no_finding_cleared');
      expect(c.scored.positives).toBeGreaterThan(0);
    }
    expect(coin.summary.cutoffs).toEqual({ graded: 0, not_yet: 0, refused: 6 });
  });

  it('is deterministic: the same record, cutoffs and baseline give the same id and numbers, from cached fits', async () => {
    const again = await backtest({ data: EVENTS });
    expect(again.status).toBe(200);
    expect(numbers(again.body)).toEqual(numbers(supported));
    expect(again.body.fits_run).toBe(0);
    const other = await backtest({ data: EVENTS, baseline: 'none' });
    expect(other.body.backtest_id).not.toBe(supported.backtest_id);
    expect(other.body.cutoffs.map((c: any) => c.graded.lift)).toEqual(supported.cutoffs.map((c: any) => c.graded.lift));
    expect(other.body.summary.baseline).toBeNull();
    expect(other.body.cutoffs.every((c: any) => c.baseline === null)).toBe(true);
  });

  it('fits only the cutoffs not fitted before (earlier ones reused); samples are free', async () => {
    expect(supported.fits_run).toBe(6);
    expect(supported.free).toBe(true);
    const more = await backtest({ data: EVENTS, cutoffs: { last: 8 } });
    expect(more.status).toBe(200);
    expect(more.body.cutoffs).toHaveLength(8);
    expect(more.body.fits_run).toBe(2);
    expect(more.body.cutoffs.slice(2)).toEqual(supported.cutoffs);
    const monthly = await backtest({ data: EVENTS, cutoffs: { every: '4w', last: 3 } });
    expect(monthly.status).toBe(200);
    const at = monthly.body.cutoffs.map((c: any) => Date.parse(c.at));
    expect(at[1] - at[0]).toBe(28 * 86_400_000);
  });

  it('signs one Verdict of kind backtest that never expires, and svc_verify says valid', async () => {
    const v = supported.verdict;
    expect(v).toMatchObject({ kind: 'backtest', expires_at: null, backtest_id: supported.backtest_id, decision: 'supported' });
    expect(v.summary).toEqual(supported.summary);
    const ok = await svc.post('/v1/verify', { verdict: v, signature: supported.signature });
    expect(ok.body.status).toBe('valid');
    const forged = await svc.post('/v1/verify', { verdict: { ...v, decision: 'not_supported' }, signature: supported.signature });
    expect(forged.body.status).toBe('invalid_signature');
    const backdated = await svc.post('/v1/verify', {
      verdict: { ...v, expires_at: '2000-01-01T00:00:00Z' },
      signature: supported.signature,
    });
    expect(backdated.body.status).toBe('invalid_signature');
    // a century on, still valid (an answer's Verdict would be expired)
    const later = Date.now() + 100 * 365 * 86_400_000;
    expect(await verifyVerdict(svc.services.keyRing, v, supported.signature, later)).toBe('valid');
  });

  it('idempotency_key replays the first reply (the same Verdict), as on ask', async () => {
    const first = await backtest({ data: COINS, idempotency_key: 'bt-coins-1' });
    const again = await backtest({ data: COINS, idempotency_key: 'bt-coins-1' });
    expect(first.status).toBe(200);
    expect(again.body.verdict.verdict_id).toBe(first.body.verdict.verdict_id);
    expect(numbers(again.body)).toEqual(numbers(coin));
  });

  it('is an MCP tool giving the same reply as REST, whose Verdict verifies', async () => {
    const client = await connectMcp(svc.url, { key });
    try {
      const r: any = await client.callTool({ name: 'svc_backtest', arguments: { data: EVENTS, subject_kind: 'org' } });
      expect(r.isError).toBeFalsy();
      expect(numbers(r.structuredContent)).toEqual(numbers(supported));
      const { verdict, signature } = r.structuredContent;
      const ok: any = await client.callTool({ name: 'svc_verify', arguments: { verdict, signature } });
      expect(ok.structuredContent).toEqual({ status: 'valid' });
    } finally {
      await client.close();
    }
  });

  it('response_format concise withholds the Verdict and keeps the whole reply at page.answer_url', async () => {
    const r = await backtest({ data: EVENTS, response_format: 'concise' });
    expect(r.status).toBe(200);
    expect(r.body.verdict).toBeUndefined();
    expect(r.body.signature).toBeUndefined();
    expect(r.body.verdicts_withheld).toEqual({ count: 1, reason: 'response_format_concise' });
    expect(numbers(r.body)).toEqual(numbers(supported));
    const full = await fetch(r.body.page.answer_url);
    expect(full.status).toBe(200);
    const whole = JSON.parse(await full.text());
    expect(whole.verdict.kind).toBe('backtest');
    expect((await svc.post('/v1/verify', { verdict: whole.verdict, signature: whole.signature })).body.status).toBe('valid');
  });

  it('a sample log never mapped is read by its default mapping', async () => {
    // A workspace of its own, where nothing was mapped (a mapping is its workspace's). Its cutoffs are the
    // mapped ones, model_ref included: the default mapping builds the very record the map built, whose
    // fits the other workspace already ran (a model_ref is the same bytes and question, any workspace).
    const r = await backtest({ data: EVENTS }, await svc.testKey());
    expect(r.status).toBe(200);
    expect(r.body.record.mapping_id).toBeUndefined();
    expect(r.body.decision).toBe('supported');
    expect(numbers(r.body).cutoffs).toEqual(supported.cutoffs);
  });
});

describe('own data: a pending backtest with stages, progress and events, billed per fit', () => {
  let live: TestService;
  let liveKey: string;
  let datasetId: string;
  beforeAll(async () => {
    live = await startTestService({ pendingWaitMs: 50 });
    liveKey = await live.liveKey('backtest-own');
    const added = await live.post('/v1/add-dataset', { csv: loadSampleCsv('customer_events'), filename: 'events.csv' }, liveKey);
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    datasetId = added.body.dataset_id;
  }, 60_000);
  afterAll(() => live?.close());

  it('an unmapped dataset of your own is dataset_not_built', async () => {
    const r = await live.post('/v1/backtest', { data: { dataset_id: datasetId }, subject_kind: 'org' }, liveKey);
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'dataset_not_built', field: 'data.dataset_id' });
  });

  it('goes pending (202) with stage reading_data, then backtesting with progress cutoff/grading; events and poll give the reply', async () => {
    const m = await live.post(
      '/v1/map',
      {
        sources: [{ dataset_id: datasetId, label: 'events' }],
        horizon: { value: 60, unit: 'days' },
        answers: { outcome: { offer_id: 'lapsed:events' } },
      },
      liveKey,
    );
    expect(m.status, JSON.stringify(m.body)).toBe(200);
    const r = await live.post('/v1/backtest', { data: { dataset_id: datasetId }, subject_kind: 'org', cutoffs: { last: 3 } }, liveKey);
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.body).toMatchObject({ status: 'pending', task_id: expect.stringMatching(/^tk_/), retry_after_ms: expect.any(Number) });
    // docs/reference/tasks.md#watch: a pending backtest carries a watch_url like a pending ask
    expect(r.body.watch_url).toMatch(/\/watch\/.+/);
    expect(r.body.progress.stage).toMatch(/^(loading|cutoff|grading)$/);
    expect(['reading_data', 'backtesting']).toContain(r.body.stage);
    const read = await readSse(`${live.url}/v1/tasks/${r.body.task_id}/events`, { headers: { authorization: `Bearer ${liveKey}` } });
    expect(read.events.at(-1)!.event).toBe('done');
    const stages = read.events.filter((e) => e.event === 'stage').map((e) => e.data);
    expect(stages.every((d) => ['reading_data', 'backtesting'].includes(d.stage as string))).toBe(true);
    const steps = new Set(stages.map((d) => d.step));
    expect(steps.has('cutoff')).toBe(true);
    expect(steps.has('grading')).toBe(true);
    expect([...steps].every((s) => ['loading', 'cutoff', 'grading'].includes(s as string))).toBe(true);
    const fitting = stages.filter((d) => d.step === 'cutoff' && d.of !== undefined);
    expect(fitting.length).toBeGreaterThan(0);
    expect(fitting.every((d) => d.of === 3)).toBe(true);
    // once a cutoff's fit reports, `fit` names which (1-based) and frac moves from 0 to 1
    const numbered = fitting.filter((d) => d.fit !== undefined);
    expect(numbered.length).toBeGreaterThan(0);
    expect(numbered.every((d) => (d.fit as number) >= 1 && (d.fit as number) <= 3)).toBe(true);
    expect(stages.at(-1)!.frac).toBe(1);
    let p = await live.post('/v1/poll', { task_id: r.body.task_id }, liveKey);
    while (p.status === 202) p = await live.post('/v1/poll', { task_id: r.body.task_id }, liveKey);
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({ status: 'done', dataset_id: datasetId, fits_run: 3 });
    expect(p.body.free).toBeUndefined();
    expect(p.body.record.mapping_id).toBe(m.body.mapping_id);
    expect((await live.post('/v1/verify', { verdict: p.body.verdict, signature: p.body.signature })).body.status).toBe('valid');
    // polled compact (docs/reference/ask.md#response-format: as concise): the Verdict withheld there too, the numbers the same
    const c = await live.post('/v1/poll', { task_id: r.body.task_id, response_format: 'compact' }, liveKey);
    expect(c.status).toBe(200);
    expect(c.body.verdict).toBeUndefined();
    expect(c.body.verdicts_withheld).toEqual({ count: 1, reason: 'response_format_compact' });
    expect(numbers(c.body)).toEqual(numbers(p.body));
    // the same call again: every fit is this workspace's, answered at once, nothing fitted
    const again = await live.post('/v1/backtest', { data: { dataset_id: datasetId }, subject_kind: 'org', cutoffs: { last: 3 } }, liveKey);
    expect(again.status).toBe(200);
    expect(again.body.fits_run).toBe(0);
    expect(numbers(again.body)).toEqual(numbers(p.body));
  }, 120_000);
});

describe('a merged record: two logs svc_map stored as one dataset', () => {
  let own: TestService;
  afterAll(() => own?.close());

  it('is backtested by the dataset_id svc_map gave it, through the mapping that built it', async () => {
    own = await startTestService();
    const k = await own.liveKey('backtest-merged');
    const [head, ...lines] = loadSampleCsv('customer_events').trimEnd().split('\n');
    const part = (keep: (l: string) => boolean) => [head, ...lines.filter(keep)].join('\n') + '\n';
    const web = (await own.post('/v1/add-dataset', { csv: part((l) => l.includes(',visit,')) }, k)).body.dataset_id;
    const shop = (await own.post('/v1/add-dataset', { csv: part((l) => !l.includes(',visit,')) }, k)).body.dataset_id;
    const sources = [
      { dataset_id: web, label: 'web' },
      { dataset_id: shop, label: 'shop' },
    ];
    const m = await own.post(
      '/v1/map',
      { sources, horizon: { value: 60, unit: 'days' }, answers: { outcome: { offer_id: 'lapsed:web' } } },
      k,
    );
    expect(m.status, JSON.stringify(m.body)).toBe(200);
    expect(m.body.dataset_id).toMatch(/^ds_/);
    const r = await own.post('/v1/backtest', { data: { dataset_id: m.body.dataset_id }, subject_kind: 'org' }, k);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.dataset_id).toBe(m.body.dataset_id);
    expect(r.body.record).toMatchObject({ mapping_id: m.body.mapping_id, outcome_column: 'lapsed_60d' });
    expect(r.body.summary.cutoffs.graded).toBe(6);
    expect(r.body.fits_run).toBe(6);
    // a log it was merged from is not the record (the mapping reads both): each alone was never mapped
    const alone = await own.post('/v1/backtest', { data: { dataset_id: shop }, subject_kind: 'org' }, k);
    expect(alone.status).toBe(422);
    expect(alone.body).toMatchObject({ code: 'dataset_not_built', field: 'data.dataset_id' });
  }, 120_000);
});

describe('bad inputs are problems naming their field', () => {
  const cases: Array<[string, Record<string, unknown>, number, string, string]> = [
    ['no subject_kind', { data: EVENTS, subject_kind: undefined }, 422, 'invalid_request', 'subject_kind'],
    ['no data', { data: undefined }, 422, 'invalid_request', 'data'],
    ['a malformed dataset_id', { data: { dataset_id: 'events' } }, 422, 'invalid_request', 'data.dataset_id'],
    ['data as rows', { data: { rows: [{ a: 1 }] } }, 422, 'invalid_request', 'data.rows'],
    ['a table sample', { data: { dataset_id: 'sample:saas_churn' } }, 422, 'dataset_not_built', 'data.dataset_id'],
    [
      'a log sample without a default mapping',
      { data: { dataset_id: 'sample:agent_traces' } },
      422,
      'dataset_not_built',
      'data.dataset_id',
    ],
    ['cutoffs.every finer than the record', { data: EVENTS, cutoffs: { every: '1d' } }, 422, 'backtest_cutoffs_invalid', 'cutoffs.every'],
    ['cutoffs.every unknown', { data: EVENTS, cutoffs: { every: '2w' } }, 422, 'invalid_request', 'cutoffs.every'],
    ['cutoffs.last under 3', { data: EVENTS, cutoffs: { last: 2 } }, 422, 'backtest_cutoffs_invalid', 'cutoffs.last'],
    ['cutoffs.last over 12', { data: EVENTS, cutoffs: { last: 13 } }, 422, 'backtest_cutoffs_invalid', 'cutoffs.last'],
    ['cutoffs.last not an integer', { data: EVENTS, cutoffs: { last: 4.5 } }, 422, 'invalid_request', 'cutoffs.last'],
    ['an unknown cutoffs field', { data: EVENTS, cutoffs: { first: 3 } }, 422, 'invalid_request', 'cutoffs.first'],
    ['an unknown baseline', { data: EVENTS, baseline: 'best' }, 422, 'invalid_request', 'baseline'],
    ['response_format compact', { data: EVENTS, response_format: 'compact' }, 422, 'invalid_request', 'response_format'],
    ['person without acknowledgement', { data: EVENTS, subject_kind: 'person' }, 422, 'invalid_request', 'acknowledge_decision_support'],
    ['an unknown field', { data: EVENTS, horizon: 30 }, 422, 'invalid_request', 'horizon'],
    ['a bad namespace', { data: EVENTS, namespace: 'Acme Inc' }, 422, 'invalid_request', 'namespace'],
    ['an empty idempotency_key', { data: EVENTS, idempotency_key: '' }, 422, 'invalid_request', 'idempotency_key'],
  ];
  it.each(cases)('%s', async (_name, body, status, code, field) => {
    const r = await backtest(body);
    expect(r.status, JSON.stringify(r.body)).toBe(status);
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(r.body).toMatchObject({ code, field });
    expect(r.body.detail).toContain(field);
  });

  it('a test key on a dataset of your own is test_key_samples_only', async () => {
    const r = await backtest({ data: { dataset_id: `ds_${'a'.repeat(26)}` } });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('test_key_samples_only');
  });
});
