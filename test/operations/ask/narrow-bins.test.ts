// No reason and no lever from a bin too narrow to act on (docs/decisions/0074-effect-spans.md), over real HTTP:
// a record whose churn jumps for monthly_spend 591 to 598 only (0.7% of a 0-1,000 column) fits a spike of a
// few bins there, and without the rule its cases came back with "monthly_spend 592.85 to 595.77 · strong"
// and a lever into the next bin. Reasons of wider effects name the span the effect holds over.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prng } from '../../../samples/prng.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';

let svc: TestService;
let key: string;
let answer: any;

const rng = new Prng(7);
// 2,600 rows, a single split of 8 bags. At 3,000 the record is cross-fitted with one bag a fold
// (docs/decisions/0099-narrow-records-cross-fitted.md): the served model averages 4 bags, its monthly_spend term
// then also moved over narrow spans outside the spike, and some other cases got the note as well.
const rows = Array.from({ length: 2600 }, (_, i) => {
  const monthly_spend = Math.round(rng.float() * 100000) / 100;
  const tickets = rng.int(0, 8);
  const spike = monthly_spend >= 591 && monthly_spend < 598;
  const z = -2 + 0.5 * (tickets - 4) + (spike ? 4 : 0);
  return { id: `c${i}`, monthly_spend, tickets, churned: rng.chance(1 / (1 + Math.exp(-z))) ? 'yes' : 'no' };
});
const inSpike = rows.filter((r) => r.monthly_spend >= 591 && r.monthly_spend < 598).map((r) => r.id);
const others = rows.filter((r) => r.monthly_spend < 500 || r.monthly_spend > 700).map((r) => r.id);
// tickets 4 sits at the column's average effect, spend 100 to 500 near none: the cases likeliest to have no reason
const plain = rows.filter((r) => r.tickets === 4 && r.monthly_spend > 100 && r.monthly_spend < 500).map((r) => r.id);

beforeAll(async () => {
  svc = await startTestService();
  key = await svc.liveKey();
});
afterAll(() => svc?.close());

interface Reason {
  feature_label: string;
  value: number;
  range: { text: string; lower?: number | null; upper?: number | null; min?: number; max?: number };
}

describe('reasons and levers from narrow bins', () => {
  it('a spike 7 wide in a column 1,000 wide gives no reason or lever; wider effects name their span', async () => {
    expect(inSpike.length).toBeGreaterThan(10);
    const ids = [...inSpike, ...others.slice(0, 40), ...plain.slice(0, 20)];
    const r = await svc.post(
      '/v1/ask',
      {
        data: { rows },
        entity_column: 'id',
        subject_kind: 'org',
        cases: { ids },
        questions: { q: { type: 'yesno', outcome_column: 'churned', positive_values: ['yes'], outcome_is_desirable: false } },
      },
      key,
    );
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
    const a = r.body.answers.q;
    expect(a.state).toBe('answered');
    const cases = a.cases as Array<{ entity_id: string; reasons: Reason[]; levers?: Array<{ feature_label: string; target?: unknown }> }>;
    const spikeSet = new Set(inSpike);
    for (const c of cases) {
      const spend = c.reasons.filter((x) => x.feature_label === 'monthly_spend');
      if (spikeSet.has(c.entity_id)) {
        expect(spend, `${c.entity_id}: ${JSON.stringify(spend)}`).toEqual([]);
        expect((c.levers ?? []).filter((l) => l.feature_label === 'monthly_spend')).toEqual([]);
      }
      for (const x of spend) {
        // every spend reason names a span at least 5% of the 5th-95th percentile spread (about 900)
        const lo = x.range.lower ?? x.range.min!;
        const hi = x.range.upper ?? x.range.max!;
        expect(hi - lo, x.range.text).toBeGreaterThanOrEqual(45);
        expect(x.value).toBeGreaterThanOrEqual(x.range.min!);
        expect(x.value).toBeLessThanOrEqual(x.range.max!);
      }
    }
    // the tickets column is read in whole values: its reasons name the run of values that push alike
    const texts = new Set(cases.flatMap((c) => c.reasons.map((x) => x.range.text)));
    expect(
      [...texts].some((t) => /^tickets \d to \d$/.test(t)),
      [...texts].join('; '),
    ).toBe(true);
    // and the Verdict signs the reasons as given
    const signed = a.verdicts[0].verdict.cases as Array<{ entity_id: string; reasons: unknown[] }>;
    for (const c of cases) expect(signed.find((s) => s.entity_id === c.entity_id)!.reasons).toEqual(c.reasons);
    answer = a;
  });

  it('a case with fewer reasons says why in reasons_note: none moved the odds, or one was too narrow', () => {
    const cases = answer.cases as Array<{ entity_id: string; p: number; reasons: Reason[]; reasons_note?: string }>;
    const spikeSet = new Set(inSpike);
    const quiet = cases.filter((c) => c.reasons.length === 0);
    expect(quiet.length, 'cases near the base rate among those asked').toBeGreaterThan(0);
    for (const c of quiet) {
      expect(c.reasons_note, c.entity_id).toMatch(/^No column moved this case's odds by a quarter or more against the average case/);
      expect(c.reasons_note).toMatch(/base rate \(\d+%\)/);
    }
    for (const c of cases.filter((x) => spikeSet.has(x.entity_id))) {
      expect(c.reasons_note, c.entity_id).toMatch(/monthly_spend moves this chance only over a span of values too narrow to act on/);
    }
    for (const c of cases.filter((x) => x.reasons.length > 0 && !spikeSet.has(x.entity_id))) expect(c.reasons_note).toBeUndefined();
    // the note is words for the reader, not part of what the Verdict signs
    for (const v of answer.verdicts[0].verdict.cases) expect(v).not.toHaveProperty('reasons_note');
  });
});
