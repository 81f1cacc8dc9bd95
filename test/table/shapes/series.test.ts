// docs/reference/ask.md#shapes series: trailing-window statistics known at each period, recomputed by hand.
import { describe, expect, it } from 'vitest';
import { col, day, q, rowOf, shapeOf, table } from './helpers.ts';

const week = (i: number) => day(7 * i);
const SALES = [1, 2, 4, 8, null, 32, 64];
const OUT = [0, 1, 0, 1, 0, 1, 1];
const ROWS = [
  ...SALES.map((s, i) => ({ store: 'x', wk: week(i), sales: s, region: 'north', out: OUT[i] })),
  ...[5, 5, 5, 5, 5].map((s, i) => ({ store: 'y', wk: week(i), sales: s, region: 'south', out: 0 })),
];
const SHAPE = { kind: 'series', value_columns: ['sales'], windows: [3, 6] } as const;
const OPTS = { entityColumn: 'store', timeColumn: 'wk' };

describe('series features (docs/reference/ask.md#shapes)', () => {
  const rec = shapeOf(table(ROWS), SHAPE, OPTS);

  it('keeps the entity, the time, every other column (the outcome too), then the window features', () => {
    expect(rec.table.columns).toEqual([
      'store',
      'wk',
      'region',
      'out',
      'sales_last',
      'sales_mean_3p',
      'sales_min_3p',
      'sales_max_3p',
      'sales_change_3p',
      'sales_mean_6p',
      'sales_min_6p',
      'sales_max_6p',
      'sales_change_6p',
    ]);
    expect(rec.kept).toEqual(['region', 'out']);
    expect(rec.timeColumn).toBe('wk');
    expect(rec.outcomeColumn).toBe('out'); // the only yes/no column kept
  });

  it('reads periods t-w+1..t for the row at t, skipping blanks', () => {
    expect(rowOf(rec, 'x', '2024-02-05T00:00:00.000Z')).toEqual({
      store: 'x',
      wk: '2024-02-05T00:00:00.000Z',
      region: 'north',
      out: 1,
      sales_last: 32,
      sales_mean_3p: 20,
      sales_min_3p: 8,
      sales_max_3p: 32,
      sales_change_3p: 24,
      sales_mean_6p: 9.4,
      sales_min_6p: 1,
      sales_max_6p: 32,
      sales_change_6p: 31,
    });
    expect(rowOf(rec, 'x', '2024-02-12T00:00:00.000Z')).toMatchObject({
      out: 1,
      sales_last: 64,
      sales_mean_3p: 48,
      sales_min_3p: 32,
      sales_max_3p: 64,
      sales_change_3p: null,
      sales_mean_6p: 22,
      sales_min_6p: 2,
      sales_max_6p: 64,
      sales_change_6p: 62,
    });
  });

  it('drops rows before the first full widest window and cases that never reach one', () => {
    expect(col(rec.table, 'store')).toEqual(['x', 'x']);
    expect(rec.counts).toMatchObject({ input_rows: 12, short_history: 10, cases: 1, rows: 2, labeled: 2, positives: 2 });
  });

  it('counts periods as rows: a gap in the calendar is not filled', () => {
    const gappy = ROWS.filter((r) => r.store === 'x').map((r, i) => ({ ...r, wk: `2024-${String(1 + i).padStart(2, '0')}-01` }));
    const r = shapeOf(table(gappy), SHAPE, OPTS);
    expect(col(r.table, 'sales_mean_6p')).toEqual([9.4, 22]);
  });

  it('keeps one row of a repeated period, the same whichever comes first in the file', () => {
    const dup = [...ROWS, { store: 'x', wk: week(5), sales: 30, region: 'north', out: 1 }];
    const a = shapeOf(table(dup), SHAPE, OPTS);
    const b = shapeOf(table([dup[dup.length - 1], ...dup.slice(0, -1)]), SHAPE, OPTS);
    expect(a.table).toEqual(b.table);
    expect(a.counts.duplicate_periods).toBe(1);
    expect(col(a.table, 'sales_last')[0]).toBe(32); // "32" sorts after "30" as row text
  });

  it('names the outcome the question gives, and counts its labels with positive_values', () => {
    const r = shapeOf(table(ROWS), SHAPE, { ...OPTS, question: q('region', ['north']) });
    expect(r.outcomeColumn).toBe('region');
    expect(r.counts).toMatchObject({ labeled: 2, positives: 2 });
  });
});
