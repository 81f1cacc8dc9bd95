// The scripted journey over real HTTP (docs/reference/outcomes.md#report, docs/reference/outcomes.md#attest, docs/reference/outcomes.md#evidence; docs/reference/README.md): fit
// churn-like rows, answer 300 cases, report their outcomes (a failing batch writes nothing, repeated
// event_ids are duplicates), act on half through their levers, and recompute the evidence by hand.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prng } from '../../../samples/prng.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { churnAsk, churnRows } from '../../helpers/churn.ts';

let svc: TestService;
let key: string;
let modelRef: string;
let cases: any[];

interface Reported {
  entity_id: string;
  outcome: 0 | 1;
  observed_at: number;
}
interface Acted {
  entity_id: string;
  compliant: boolean;
  acted_at: number;
}
const reported: Reported[] = [];
const acted: Acted[] = [];

const OBSERVED = Date.UTC(2024, 2, 1);
const ACTED = Date.UTC(2024, 1, 1);
const Z = 1.959963984540054;

beforeAll(async () => {
  svc = await startTestService({ pendingWaitMs: 120_000 });
  key = await svc.liveKey('journey', true);
  const rows = churnRows({ seed: 7, rows: 1500 });
  const ids = rows.slice(0, 300).map((r) => r.customer_id);
  const r = await svc.post('/v1/ask', churnAsk(rows, { outcome_is_desirable: false }, { cases: { ids } }), key);
  expect(r.status).toBe(200);
  expect(r.body.answers.q.state).toBe('answered');
  modelRef = r.body.answers.q.model_ref;
  cases = r.body.answers.q.cases;
});
afterAll(() => svc?.close());

/** The outcome items of cases [from, to): spellings vary across every form docs/reference/outcomes.md#report allows. */
function outcomeItems(from: number, to: number) {
  const forms: Array<(y: 0 | 1) => unknown> = [(y) => y === 1, (y) => y, (y) => (y ? 'yes' : 'no'), (y) => (y ? 'TRUE' : 'false')];
  const out = [];
  for (let i = from; i < to; i++) {
    const c = cases[i];
    const y: 0 | 1 = new Prng(1000 + i).chance(c.p) ? 1 : 0;
    out.push({
      entity_id: c.entity_id,
      outcome: forms[i % 4](y),
      observed_at: new Date(OBSERVED + i * 60_000).toISOString(),
      event_id: `out-${c.entity_id}`,
    });
  }
  return out;
}

function remember(items: ReturnType<typeof outcomeItems>) {
  for (const it of items) {
    if (reported.some((r) => r.entity_id === it.entity_id)) continue; // a duplicate event_id changes nothing
    const o = it.outcome;
    const y = o === true || o === 1 || o === 'yes' || o === 'TRUE' ? 1 : 0;
    reported.push({ entity_id: it.entity_id, outcome: y, observed_at: Date.parse(it.observed_at) });
  }
}

/** Evidence recomputed from what this test reported and attested (the rules of host/operations/outcomes/evidence.ts). */
function byHand() {
  const first = new Map<string, number>();
  const attested = new Set<string>();
  for (const a of acted) {
    attested.add(a.entity_id);
    if (a.compliant && (first.get(a.entity_id) ?? Infinity) > a.acted_at) first.set(a.entity_id, a.acted_at);
  }
  let n1 = 0,
    k1 = 0,
    n2 = 0,
    k2 = 0;
  for (const r of reported) {
    if (first.has(r.entity_id)) {
      if (r.observed_at >= first.get(r.entity_id)!) (n1++, (k1 += r.outcome));
    } else if (!attested.has(r.entity_id)) (n2++, (k2 += r.outcome));
  }
  const wilson = (k: number, n: number) => {
    const p = k / n;
    const c = (p + (Z * Z) / (2 * n)) / (1 + (Z * Z) / n);
    const h = (Z / (1 + (Z * Z) / n)) * Math.sqrt((p * (1 - p)) / n + (Z * Z) / (4 * n * n));
    return [c - h, c + h];
  };
  const p1 = k1 / n1,
    p2 = k2 / n2;
  const [l1, u1] = wilson(k1, n1);
  const [l2, u2] = wilson(k2, n2);
  return {
    n1,
    n2,
    k1,
    k2,
    p1,
    p2,
    lo: p1 - p2 - Math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2),
    hi: p1 - p2 + Math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2),
  };
}

function expectEvidenceMatches(body: any) {
  const h = byHand();
  expect(body.progress.n_acted).toBe(h.n1);
  expect(body.progress.n_not_acted).toBe(h.n2);
  expect(body.progress.attestations).toBe(acted.length);
  expect(body.progress.entities_with_outcome).toBe(reported.length);
  if (h.n1 < 30 || h.n2 < 30) return expect(body.live).toBeNull();
  expect(body.live.n_acted).toBe(h.n1);
  expect(body.live.n_not_acted).toBe(h.n2);
  expect(body.live.rate_acted).toBeCloseTo(h.p1, 6);
  expect(body.live.rate_not_acted).toBeCloseTo(h.p2, 6);
  expect(body.live.diff).toBeCloseTo(h.p1 - h.p2, 6);
  expect(body.live.ci_low).toBeCloseTo(h.lo, 6);
  expect(body.live.ci_high).toBeCloseTo(h.hi, 6);
  expect(body.live.small_n).toBe(h.n1 < 100 || h.n2 < 100);
}

/** A post-action value that follows the lever, or (comply false) one that stays where the case is. */
function postValue(c: any, lever: any, comply: boolean): unknown {
  if (!comply) return c.reasons.find((r: any) => r.feature_label === lever.feature_label).value;
  if (lever.direction === 'to_one_of') return lever.to_one_of[0];
  // a cut belongs to the bin above it (the engine bins v into the bin whose lower cut is <= v)
  return lever.direction === 'increase' ? lever.target.at_least : lever.target.under - 1e-6;
}

describe('the journey: ask, report outcomes, act through levers, read the evidence', () => {
  it('answers 300 cases, and cases with a reason pushing churn up carry signed levers', () => {
    expect(cases).toHaveLength(300);
    const levers = cases.flatMap((c) => c.levers);
    expect(levers.length).toBeGreaterThan(150);
    for (const c of cases) {
      for (const l of c.levers) {
        const reason = c.reasons.find((r: any) => r.feature_label === l.feature_label);
        expect(reason.likelihood_direction).toBe('higher'); // churn is to be avoided: only reasons raising it
        expect(['increase', 'decrease', 'to_one_of']).toContain(l.direction);
        expect(l.lever_token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
        // tenure grows with the calendar by itself: its levers say so, and no other column's do
        if (l.feature_label === 'tenure_months') expect(l.lever_advisory).toBe('time_like');
        else expect(l).not.toHaveProperty('lever_advisory');
      }
    }
    expect(levers.some((l: any) => l.feature_label === 'tenure_months')).toBe(true);
  });

  it('reads no evidence before any outcome', async () => {
    const r = await svc.post('/v1/evidence', { model_ref: modelRef }, key);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      model_ref: modelRef,
      live: null,
      progress: { attestations: 0, n_acted: 0, n_not_acted: 0, entities_with_outcome: 0 },
    });
    expect(r.body.note).toMatch(/not causal/);
  });

  it('refuses a whole batch with one bad row and writes nothing', async () => {
    const items = outcomeItems(0, 300);
    items[7] = { ...items[7], outcome: 'maybe' };
    const r = await svc.post('/v1/report-outcomes', { model_ref: modelRef, outcomes: items }, key);
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('invalid_outcomes');
    expect(r.body.errors).toEqual([{ index: 7, field: 'outcomes.7.outcome', detail: expect.stringMatching(/maybe/) }]);
    const e = await svc.post('/v1/evidence', { model_ref: modelRef }, key);
    expect(e.body.progress.entities_with_outcome).toBe(0);
  });

  it('writes the outcomes of 300 cases; repeated event_ids count as duplicates', async () => {
    const first = outcomeItems(0, 200);
    const r1 = await svc.post('/v1/report-outcomes', { model_ref: modelRef, outcomes: first }, key);
    expect(r1.status).toBe(200);
    expect(r1.body).toEqual({ written: 200, duplicates: 0 });
    remember(first);
    const second = outcomeItems(150, 300);
    const r2 = await svc.post('/v1/report-outcomes', { model_ref: modelRef, outcomes: second }, key);
    expect(r2.body).toEqual({ written: 100, duplicates: 50 });
    remember(second);
    const again = await svc.post('/v1/report-outcomes', { model_ref: modelRef, outcomes: outcomeItems(0, 300) }, key);
    expect(again.body).toEqual({ written: 0, duplicates: 300 });
    expect(reported).toHaveLength(300);
  });

  it('reads progress without live numbers while nobody has acted', async () => {
    const r = await svc.post('/v1/evidence', { model_ref: modelRef }, key);
    expectEvidenceMatches(r.body);
    expect(r.body.live).toBeNull();
    expect(r.body.progress.n_not_acted).toBe(300);
  });

  it('attests actions on half of the cases through their levers; the model judges compliance', async () => {
    const withLevers = cases.filter((c) => c.levers.length > 0).slice(0, 150);
    expect(withLevers).toHaveLength(150);
    let i = 0;
    for (const c of withLevers) {
      const lever = c.levers[0];
      const comply = i % 10 !== 9; // every tenth action leaves the value where it was
      const body = {
        model_ref: modelRef,
        entity_id: c.entity_id,
        lever_token: lever.lever_token,
        post_value: postValue(c, lever, comply),
        acted_at: new Date(ACTED + i * 60_000).toISOString(),
        event_id: `act-${c.entity_id}`,
      };
      const r = await svc.post('/v1/attest', body, key);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        compliant: comply,
        evaluated_feature: lever.feature_label,
        evaluated_direction: lever.direction,
        event_id: body.event_id,
        written: true,
      });
      acted.push({ entity_id: c.entity_id, compliant: r.body.compliant, acted_at: Date.parse(body.acted_at) });
      i++;
      if (i === 40) {
        // part way: the acted group is past 30, so live numbers appear, flagged small
        const e = await svc.post('/v1/evidence', { model_ref: modelRef }, key);
        expectEvidenceMatches(e.body);
        expect(e.body.live).not.toBeNull();
        expect(e.body.live.small_n).toBe(true);
      }
    }
  });

  it('answers a repeated attest event_id with the first record and writes nothing', async () => {
    const c = cases.find((x) => x.entity_id === acted[0].entity_id);
    const body = {
      model_ref: modelRef,
      entity_id: c.entity_id,
      lever_token: c.levers[0].lever_token,
      post_value: postValue(c, c.levers[0], false),
      acted_at: '2024-02-02',
      event_id: `act-${c.entity_id}`,
    };
    const r = await svc.post('/v1/attest', body, key);
    expect(r.body).toMatchObject({ compliant: true, written: false, event_id: body.event_id });
  });

  it('reads evidence whose every number matches a recomputation from the reported data', async () => {
    const r = await svc.post('/v1/evidence', { model_ref: modelRef }, key);
    expect(r.status).toBe(200);
    expectEvidenceMatches(r.body);
    const h = byHand();
    expect(h.n1).toBe(135);
    expect(h.n2).toBe(150);
    expect(r.body.live.small_n).toBe(false);
  });

  it('refuses a forged lever token and a token used for another case', async () => {
    const c = cases.find((x) => x.levers.length > 0);
    const token: string = c.levers[0].lever_token;
    const forged = token.slice(0, -2) + (token.endsWith('A') ? 'BB' : 'AA');
    const base = { model_ref: modelRef, entity_id: c.entity_id, post_value: 1, acted_at: '2024-02-01' };
    const bad = await svc.post('/v1/attest', { ...base, lever_token: forged }, key);
    expect(bad.status).toBe(422);
    expect(bad.body.field).toBe('lever_token');
    const other = await svc.post('/v1/attest', { ...base, entity_id: 'someone-else', lever_token: token }, key);
    expect(other.status).toBe(422);
    expect(other.body.field).toBe('lever_token');
  });
});
