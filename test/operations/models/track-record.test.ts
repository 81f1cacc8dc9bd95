// svc_track_record (docs/reference/outcomes.md#track-record) over real HTTP on a real service with the real wasm and a manual clock:
// a small case computed by hand (which answer each outcome pairs with, the counts, the 95% Wilson
// intervals written out below), the pairing rules (the latest answer issued no later than the observation
// day, a case reported twice counting once, choice never kept, a rank's top_k only), namespaces and the
// problems of every bad input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { churnAsk, churnRows } from '../../helpers/churn.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { connectMcp } from '../../mcp/helpers.ts';

const DAY = 86_400_000;
/** 2026-03-01, noon UTC: answers are issued at noon of days 1, 2 and 4. */
const D1 = Date.UTC(2026, 2, 1);
const NOON = 12 * 3_600_000;
const iso = (t: number) => new Date(t).toISOString();

/** 95% Wilson intervals worked out beside this test (z = 1.959963984540054), rounded to 6 decimals. */
const WILSON: Record<string, [number, number]> = {
  '0/1': [0, 0.793451],
  '1/1': [0.206549, 1],
  '0/2': [0, 0.65762],
  '1/2': [0.094531, 0.905469],
  '2/2': [0.34238, 1],
  '0/3': [0, 0.561497],
  '1/3': [0.061492, 0.79234],
  '2/3': [0.20766, 0.938508],
  '3/3': [0.438503, 1],
  '0/4': [0, 0.489891],
  '1/4': [0.045587, 0.699358],
  '2/4': [0.150039, 0.849961],
  '3/4': [0.300642, 0.954413],
  '4/4': [0.510109, 1],
};

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** The statistics of a group, by hand: counts, rate, the interval from the table above, mean chance. */
function byHand(calls: Array<{ p: number; y: 0 | 1 }>) {
  const n = calls.length;
  const k = calls.reduce((s, c) => s + c.y, 0);
  if (n === 0) return { calls: 0, happened: 0, observed_rate: null, interval_95: null, mean_chance: null, small_n: true };
  return {
    calls: n,
    happened: k,
    observed_rate: round6(k / n),
    interval_95: WILSON[`${k}/${n}`],
    mean_chance: round6(calls.reduce((s, c) => s + c.p, 0) / n),
    small_n: true,
  };
}

let svc: TestService;
let key: string;
let modelRef: string;

/** Five new cases (ids k00000..k00004) with the features of `seed`: the same ids, other chances each time. */
const newCases = (seed: number) =>
  churnRows({ seed, rows: 5, idPrefix: 'k' }).map((r) => {
    const { churned: _unknown, ...row } = r;
    return row;
  });

async function scoreAt(at: number, seed: number) {
  svc.clock.now = at;
  const r = await svc.post(
    '/v1/ask',
    {
      entity_column: 'customer_id',
      subject_kind: 'org',
      band: true,
      questions: { y: { type: 'yesno', model_ref: modelRef }, s: { type: 'score', model_ref: modelRef } },
      cases: { rows: newCases(seed) },
    },
    key,
  );
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const told = new Map<string, { p: number; band: string; level: string }>();
  for (const c of r.body.answers.y.cases) told.set(c.entity_id, { p: c.p, band: c.band, level: '' });
  for (const c of r.body.answers.s.cases) told.get(c.entity_id)!.level = c.level;
  return told;
}

async function trackRecord(body: Record<string, unknown>, k = key) {
  return svc.post('/v1/track-record', body, k);
}

beforeAll(async () => {
  svc = await startTestService({}, { manualClock: true });
  svc.clock.now = D1 + NOON - 60_000;
  ({ key } = await svc.liveCaller('proof', true));
  const fit = await svc.post('/v1/ask', churnAsk(churnRows({ seed: 7, rows: 1500 }), {}, { cases: { ids: ['c00001'] } }), key);
  expect(fit.body.answers.q.state).toBe('answered');
  modelRef = fit.body.answers.q.model_ref;
});
afterAll(() => svc?.close());

describe('a small track record, by hand', () => {
  it('pairs each case with the latest answer issued by its observation day, counts a case reported twice once, and gives the statistics of each group', async () => {
    const first = await scoreAt(D1 + NOON, 41);
    const second = await scoreAt(D1 + DAY + NOON, 42);
    const fourth = await scoreAt(D1 + 3 * DAY + NOON, 43);
    // the same case told other chances by other answers, so the pairing below is visible in the numbers
    expect(second.get('k00000')!.p).not.toBe(first.get('k00000')!.p);

    const report = await svc.post(
      '/v1/report-outcomes',
      {
        model_ref: modelRef,
        outcomes: [
          // observed at the very start of day 2: the answer issued at noon that day still counts (same day)
          { entity_id: 'k00000', outcome: 1, observed_at: iso(D1 + DAY), event_id: 'o0' },
          // day 3: the latest answer by then is day 2's
          { entity_id: 'k00001', outcome: 'no', observed_at: '2026-03-03', event_id: 'o1' },
          // day 1 before noon: day 1's answer
          { entity_id: 'k00002', outcome: true, observed_at: '2026-03-01T05:00:00Z', event_id: 'o2' },
          // reported twice: the latest outcome (day 5, yes) counts, paired with day 4's answer
          { entity_id: 'k00003', outcome: 0, observed_at: '2026-03-01', event_id: 'o3-first' },
          { entity_id: 'k00003', outcome: 1, observed_at: '2026-03-05', event_id: 'o3-later' },
          // before any answer about it, and a case never answered: no earlier answer
          { entity_id: 'k00004', outcome: 1, observed_at: '2026-02-28', event_id: 'o4' },
          { entity_id: 'never-told', outcome: 1, observed_at: '2026-03-05', event_id: 'o5' },
        ],
      },
      key,
    );
    expect(report.body).toEqual({ written: 7, duplicates: 0 });

    const calls = [
      { ...second.get('k00000')!, y: 1 as const },
      { ...second.get('k00001')!, y: 0 as const },
      { ...first.get('k00002')!, y: 1 as const },
      { ...fourth.get('k00003')!, y: 1 as const },
    ];
    const r = await trackRecord({ model_ref: modelRef });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const groups = <K extends 'band' | 'level'>(key: K) => [...new Set(calls.map((c) => c[key]))];
    const decile = (p: number) => Math.min(9, Math.floor(p * 10));
    expect(r.body.overall).toEqual({
      calls: 4,
      happened: 3,
      observed_rate: 0.75,
      interval_95: [0.300642, 0.954413],
      mean_chance: round6((calls[0].p + calls[1].p + calls[2].p + calls[3].p) / 4),
      small_n: true,
    });
    expect(r.body).toMatchObject({
      model_ref: modelRef,
      // one case of the fitting ask, then five cases told by each of three asks (yesno and score share a case)
      answers_kept: 16,
      records_since: iso(D1 + NOON - 60_000),
      outcomes_without_an_earlier_answer: 2,
    });
    // k00004 was answered only after its outcome, never-told never: counted apart and said in words
    expect(r.body.outcomes_answered_later).toBe(1);
    expect(r.body.unpaired_note).toMatch(
      /^1 reported case was answered under this model_ref only after the day its outcome was observed: .*; 1 reported case was never answered under this model_ref/,
    );
    const bands = ['act', 'escalate', 'refuse'].filter((b) => groups('band').includes(b));
    expect(r.body.by_band).toEqual(bands.map((band) => ({ band, ...byHand(calls.filter((c) => c.band === band)) })));
    expect(new Set(r.body.by_level.map((g: any) => g.level))).toEqual(new Set(groups('level')));
    for (const g of r.body.by_level) expect(g).toEqual({ level: g.level, ...byHand(calls.filter((c) => c.level === g.level)) });
    const ranges = ['0.0-0.1', '0.1-0.2', '0.2-0.3', '0.3-0.4', '0.4-0.5', '0.5-0.6', '0.6-0.7', '0.7-0.8', '0.8-0.9', '0.9-1.0'];
    expect(r.body.by_chance).toEqual(ranges.map((range, i) => ({ range, ...byHand(calls.filter((c) => decile(c.p) === i)) })));
  });

  it('the same over MCP', async () => {
    const rest = await trackRecord({ model_ref: modelRef });
    const mcp = await connectMcp(svc.url, { key });
    try {
      const reply: any = await mcp.callTool({ name: 'svc_track_record', arguments: { model_ref: modelRef } });
      expect(reply.isError).toBeFalsy();
      expect(reply.structuredContent).toEqual(rest.body);
    } finally {
      await mcp.close();
    }
  });

  it('a later report of a case replaces its outcome; the same event sent again changes nothing', async () => {
    const before = (await trackRecord({ model_ref: modelRef })).body;
    const again = await svc.post(
      '/v1/report-outcomes',
      { model_ref: modelRef, outcomes: [{ entity_id: 'k00000', outcome: 1, observed_at: iso(D1 + DAY), event_id: 'o0' }] },
      key,
    );
    expect(again.body).toEqual({ written: 0, duplicates: 1 });
    expect((await trackRecord({ model_ref: modelRef })).body).toEqual(before);
    // k00002 turns out not to have happened after all (day 6): now paired with day 4's answer, outcome no
    await svc.post(
      '/v1/report-outcomes',
      { model_ref: modelRef, outcomes: [{ entity_id: 'k00002', outcome: 0, observed_at: '2026-03-06' }] },
      key,
    );
    const after = (await trackRecord({ model_ref: modelRef })).body;
    expect(after.overall).toMatchObject({ calls: 4, happened: 2, observed_rate: 0.5, interval_95: [0.150039, 0.849961] });
  });
});

describe('what is kept', () => {
  it('a rank keeps only its top_k cases: the others were told nothing', async () => {
    const { key: k } = await svc.liveCaller('proof-rank', true);
    const fit = await svc.post('/v1/ask', churnAsk(churnRows({ seed: 7, rows: 1500 }), {}, { cases: { ids: ['c00001'] } }), k);
    const ref = fit.body.answers.q.model_ref;
    const rows = newCases(44);
    const ranked = await svc.post(
      '/v1/ask',
      { entity_column: 'customer_id', subject_kind: 'org', questions: { r: { type: 'rank', model_ref: ref, top_k: 2 } }, cases: { rows } },
      k,
    );
    expect(ranked.body.answers.r.ranked).toHaveLength(2);
    const top = ranked.body.answers.r.ranked.map((c: any) => c.entity_id);
    await svc.post(
      '/v1/report-outcomes',
      { model_ref: ref, outcomes: rows.map((row) => ({ entity_id: row.customer_id, outcome: 1, observed_at: iso(svc.clock.now) })) },
      k,
    );
    const r = (await trackRecord({ model_ref: ref }, k)).body;
    expect(r.answers_kept).toBe(1 + 2);
    expect(r.overall.calls).toBe(2);
    expect(r.outcomes_without_an_earlier_answer).toBe(3);
    const p = ranked.body.answers.r.ranked.map((c: any) => c.p);
    expect(r.overall.mean_chance).toBe(round6((p[0] + p[1]) / 2));
    expect(top).not.toContain('c00001');
  });

  it('a choice is never kept: its model has no answers to pair', async () => {
    const { key: k } = await svc.liveCaller('proof-choice', true);
    const ask = churnAsk(
      churnRows({ seed: 7, rows: 1500 }),
      { type: 'choice', outcome_is_desirable: false, option_column: 'plan', options: ['basic', 'pro'] },
      { cases: { ids: ['c00001', 'c00002'] } },
    );
    const r = await svc.post('/v1/ask', ask, k);
    expect(r.body.answers.q.state, JSON.stringify(r.body.answers.q)).toBe('answered');
    const ref = r.body.answers.q.model_ref;
    await svc.post(
      '/v1/report-outcomes',
      { model_ref: ref, outcomes: [{ entity_id: 'c00001', outcome: 1, observed_at: iso(svc.clock.now) }] },
      k,
    );
    const t = (await trackRecord({ model_ref: ref }, k)).body;
    expect(t).toMatchObject({ answers_kept: 0, records_since: null, outcomes_without_an_earlier_answer: 1, outcomes_answered_later: 0 });
    expect(t.unpaired_note).toMatch(/^1 reported case was never answered under this model_ref, so there is no call to compare\./);
    expect(t.overall).toEqual({ calls: 0, happened: 0, observed_rate: null, interval_95: null, mean_chance: null, small_n: true });
    expect(t.by_band).toEqual([]);
    expect(t.by_level).toEqual([]);
    expect(t.by_chance).toHaveLength(10);
  });
});

describe('namespaces and model life', () => {
  it('a model of a namespace is read with that namespace; without it, or from another workspace, it is 404 model_ref_missing', async () => {
    const { key: k } = await svc.liveCaller('proof-ns', true);
    const fit = await svc.post(
      '/v1/ask',
      { ...churnAsk(churnRows({ seed: 7, rows: 1500 }), {}, { cases: { ids: ['c00001'] } }), namespace: 'acme' },
      k,
    );
    const ref = fit.body.answers.q.model_ref;
    const ok = await trackRecord({ model_ref: ref, namespace: 'acme' }, k);
    expect(ok.status).toBe(200);
    expect(ok.body.answers_kept).toBe(1);
    for (const [body, who] of [
      [{ model_ref: ref }, k],
      [{ model_ref: ref, namespace: 'globex' }, k],
      [{ model_ref: ref, namespace: 'acme' }, key],
      [{ model_ref: 'mr1_' + '0'.repeat(32) }, k],
    ] as const) {
      const r = await trackRecord(body, who);
      expect(r.status, JSON.stringify(body)).toBe(404);
      expect(r.body).toMatchObject({ code: 'model_ref_missing', field: 'model_ref' });
    }
  });

  it('an expired model keeps its record; a deleted one is 410 model_deleted', async () => {
    const { key: k } = await svc.liveCaller('proof-life', true);
    const fit = await svc.post(
      '/v1/ask',
      { ...churnAsk(churnRows({ seed: 7, rows: 1500 }), {}, { cases: { ids: ['c00001'] } }), model_ttl_days: 1 },
      k,
    );
    const ref = fit.body.answers.q.model_ref;
    const at = svc.clock.now;
    svc.clock.now = at + 2 * DAY;
    try {
      expect((await trackRecord({ model_ref: ref }, k)).body.answers_kept).toBe(1);
      expect((await svc.post('/v1/delete-model', { model_ref: ref }, k)).status).toBe(200);
      const r = await trackRecord({ model_ref: ref }, k);
      expect(r.status).toBe(410);
      expect(r.body).toMatchObject({ code: 'model_deleted', field: 'model_ref' });
    } finally {
      svc.clock.now = at;
    }
  });
});

describe('bad input names its field', () => {
  it.each([
    [{}, 'model_ref'],
    [{ model_ref: 'mr1_nope' }, 'model_ref'],
    [{ model_ref: 42 }, 'model_ref'],
    [{ model_ref: 'mr1_' + '0'.repeat(32), namespace: 'Not OK' }, 'namespace'],
    [{ model_ref: 'mr1_' + '0'.repeat(32), since: '2026-01-01' }, 'since'],
  ])('%j is 422 invalid_request at %s', async (body, field) => {
    const r = await trackRecord(body as Record<string, unknown>);
    expect(r.status).toBe(422);
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(r.body).toMatchObject({ code: 'invalid_request', field });
  });

  it('without a key it is 401', async () => {
    const r = await svc.post('/v1/track-record', { model_ref: modelRef });
    expect(r.status).toBe(401);
  });
});
