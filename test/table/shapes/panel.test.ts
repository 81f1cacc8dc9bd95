// docs/reference/ask.md#shapes panel: per-case collapse of periods, trend and window labels, recomputed by hand.
import { describe, expect, it } from 'vitest';
import { mannKendallZ, slope } from '../../../host/table/shapes/stats.ts';
import { col, rowOf, shapeOf, table } from './helpers.ts';

const month = (m: number) => `2024-${String(m + 1).padStart(2, '0')}-01`;
const rows = (id: string, usage: (number | null)[], extra: (m: number) => Record<string, string | number | null>) =>
  usage.map((u, m) => ({ acct: id, period: month(m), usage: u, ...extra(m) }));
const OPTS = { entityColumn: 'acct', timeColumn: 'period' };

describe('Mann-Kendall (docs/reference/ask.md#shapes trend_of)', () => {
  it('gives S and the tie-corrected variance worked by hand', () => {
    // [5, 4, 4, 2]: S = -5; variance (4*3*13 - 2*1*9)/18 = 138/18; Z = (S + 1)/sd.
    expect(mannKendallZ([5, 4, 4, 2])).toBeCloseTo(-4 / Math.sqrt(138 / 18), 12);
    expect(mannKendallZ([1, 2, 3, 4, 5])).toBeCloseTo(9 / Math.sqrt((5 * 4 * 15) / 18), 12); // S = 10
    expect(mannKendallZ([3, 3, 3])).toBe(0);
  });

  it('fits a least-squares slope over the period index, skipping blanks', () => {
    expect(slope([1, 3, null, 5])).toBeCloseTo(9 / 7, 12);
    expect(slope([null, 2])).toBeNull();
  });
});

describe('panel trend_of', () => {
  const T = table([
    ...rows('a', [5, 4, 4, 2], (m) => ({
      tickets: [1, 3, null, 5][m],
      plan: ['pro', 'pro', null, 'basic'][m],
      churned: ['no', 'no', 'yes', 'no'][m],
    })),
    ...rows('b', [1, 2, 3, 4, 5], () => ({ tickets: 0, plan: 'pro', churned: 'no' })),
    ...rows('c', [9, 1], () => ({ tickets: 2, plan: 'basic', churned: 'no' })),
  ]);

  it('marks a significant fall at alpha 0.1 (Z = -1.44) but not at 0.05, and gives the traced column no feature', () => {
    const r10 = shapeOf(T, { kind: 'panel', label: { trend_of: 'usage' } }, OPTS);
    expect(r10.outcomeColumn).toBe('usage_trend_down');
    expect(r10.features.some((f) => f.startsWith('usage'))).toBe(false);
    expect(rowOf(r10, 'a').usage_trend_down).toBe(1);
    expect(rowOf(r10, 'b').usage_trend_down).toBe(0);
    const r05 = shapeOf(T, { kind: 'panel', label: { trend_of: 'usage', alpha: 0.05 } }, OPTS);
    expect(rowOf(r05, 'a').usage_trend_down).toBe(0);
    const up = shapeOf(T, { kind: 'panel', label: { trend_of: 'usage', direction: 'up' } }, OPTS);
    expect(col(up.table, 'usage_trend_up')).toEqual([0, 1]);
  });

  it('summarises the other columns over all periods: numbers, yes/no shares, last categories', () => {
    const r = shapeOf(T, { kind: 'panel', label: { trend_of: 'usage' } }, OPTS);
    expect(r.table.columns).toEqual([
      'acct',
      'period_count',
      'tickets_mean',
      'tickets_min',
      'tickets_max',
      'tickets_last',
      'tickets_change',
      'tickets_slope',
      'plan_last',
      'churned_share',
      'churned_last',
      'usage_trend_down',
    ]);
    const a = rowOf(r, 'a');
    expect(a).toMatchObject({
      period_count: 4,
      tickets_mean: 3,
      tickets_min: 1,
      tickets_max: 5,
      tickets_last: 5,
      tickets_change: 4,
      plan_last: 'basic',
      churned_share: 0.25,
      churned_last: 0,
    });
    expect(a.tickets_slope).toBeCloseTo(9 / 7, 12);
  });

  it('drops cases with fewer than min_history values of the traced column (default 3)', () => {
    const r = shapeOf(T, { kind: 'panel', label: { trend_of: 'usage' } }, OPTS);
    expect(col(r.table, 'acct')).toEqual(['a', 'b']);
    expect(r.counts).toMatchObject({ short_history: 1, cases: 2, rows: 2, labeled: 2, positives: 1 });
    const r5 = shapeOf(T, { kind: 'panel', label: { trend_of: 'usage' }, min_history: 5 }, OPTS);
    expect(col(r5.table, 'acct')).toEqual(['b']);
  });
});

describe('panel window_of', () => {
  const T = table([
    ...rows('a', [10, 20, 30, 40], (m) => ({ churned: ['no', 'no', 'yes', 'no'][m] })),
    ...rows('b', [10, 10, 10, 10], (m) => ({ churned: ['yes', 'no', 'yes', 'yes'][m] })),
    ...rows('c', [1, 2], () => ({ churned: 'no' })),
  ]);
  const shape = (agg?: string) => ({ kind: 'panel', label: { window_of: 'churned', periods: 2, ...(agg ? { agg } : {}) } });

  it('reads agg over the last k periods: max/any (a yes), min (all yes), last', () => {
    const ys = (agg?: string) => col(shapeOf(T, shape(agg), OPTS).table, agg ? `churned_${agg}_next_2p` : 'churned_max_next_2p');
    expect(ys()).toEqual([1, 1]);
    expect(ys('any')).toEqual([1, 1]);
    expect(ys('min')).toEqual([0, 1]);
    expect(ys('last')).toEqual([0, 1]);
  });

  it('reads the features from the periods before the window only', () => {
    const r = shapeOf(T, shape(), OPTS);
    expect(rowOf(r, 'a')).toMatchObject({
      period_count: 2,
      usage_mean: 15,
      usage_last: 20,
      usage_change: 10,
      usage_slope: 10,
      churned_share: 0,
      churned_last: 0,
    });
    expect(rowOf(r, 'b')).toMatchObject({ churned_share: 0.5, churned_last: 0 });
    expect(r.counts).toMatchObject({ short_history: 1, cases: 2 });
  });

  it('gives the features over every period in `current`, outcome blank', () => {
    const cur = shapeOf(T, shape(), OPTS).current!;
    const a = col(cur, 'acct').indexOf('a');
    expect(col(cur, 'usage_mean')[a]).toBe(25);
    expect(col(cur, 'churned_last')[a]).toBe(0);
    expect(col(cur, 'churned_max_next_2p').every((y) => y === null)).toBe(true);
  });
});
