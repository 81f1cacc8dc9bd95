// docs/reference/ask.md#shapes signals: snapshots, windows over readings, event intervals and the horizon outcome, by hand.
import { describe, expect, it } from 'vitest';
import { col, rowOf, shapeOf, table } from './helpers.ts';

const H = 3_600_000;
const T0 = Date.UTC(2024, 2, 1);
const iso = (ms: number) => new Date(ms).toISOString();
const VIB = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, null, 12, 13];
const reading = (asset: string, i: number, vib: number | null) => ({
  asset,
  ts: iso(T0 + 6 * i * H),
  vib,
  temp: 50,
  kind: null,
  start: null,
  end: null,
});
const ROWS = [
  ...VIB.map((v, i) => reading('m1', i, v)),
  { asset: 'm1', ts: iso(T0 + 51 * H), vib: null, temp: null, kind: 'fault', start: iso(T0 + 51 * H), end: iso(T0 + 57 * H) },
];
const SHAPE = {
  kind: 'signals',
  signal_columns: ['vib'],
  event_column: 'kind',
  event_start_column: 'start',
  event_end_column: 'end',
  windows: [1, 3, 7],
  snapshot_every: '1d',
  horizon: 1,
} as const;
const OPTS = { entityColumn: 'asset', timeColumn: 'ts' };

describe('signals snapshots (docs/reference/ask.md#shapes)', () => {
  const rec = shapeOf(table(ROWS), SHAPE, OPTS);

  it('names windows by their span and the outcome by the horizon', () => {
    expect(rec.table.columns).toEqual([
      'asset',
      'ts',
      'vib_last',
      'vib_mean_1d',
      'vib_min_1d',
      'vib_max_1d',
      'vib_mean_3d',
      'vib_min_3d',
      'vib_max_3d',
      'vib_mean_7d',
      'vib_min_7d',
      'vib_max_7d',
      'vib_mean_1d_minus_7d',
      'reading_count_7d',
      'event_count_prior',
      'days_since_last_event',
      'in_event',
      'event_next_1d',
    ]);
    expect(rec.timeColumn).toBe('ts');
    expect(rec.asOf).toBe(iso(T0 + 72 * H));
  });

  it('takes a snapshot each day once min_history (3) readings exist, up to as_of', () => {
    expect(col(rec.table, 'ts')).toEqual([iso(T0 + 24 * H), iso(T0 + 48 * H), iso(T0 + 72 * H)]);
    expect(rec.counts).toMatchObject({ readings: 13, intervals: 1, short_history: 1, rows: 3, cases: 1, labeled: 2, positives: 1 });
  });

  it('reads windows that end at the snapshot, including it', () => {
    expect(rowOf(rec, 'm1', iso(T0 + 24 * H))).toEqual({
      asset: 'm1',
      ts: iso(T0 + 24 * H),
      vib_last: 5,
      vib_mean_1d: 3.5,
      vib_min_1d: 2,
      vib_max_1d: 5,
      vib_mean_3d: 3,
      vib_min_3d: 1,
      vib_max_3d: 5,
      vib_mean_7d: 3,
      vib_min_7d: 1,
      vib_max_7d: 5,
      vib_mean_1d_minus_7d: 0.5,
      reading_count_7d: 5,
      event_count_prior: 0,
      days_since_last_event: null,
      in_event: 0,
      event_next_1d: 0, // the fault starts at 03:00 on day 2, after the 24-hour horizon of day 1
    });
  });

  it('marks a snapshot whose horizon holds the start of an interval', () => {
    expect(rowOf(rec, 'm1', iso(T0 + 48 * H))).toMatchObject({ vib_last: 9, vib_mean_1d: 7.5, vib_mean_7d: 5, event_next_1d: 1 });
  });

  it('leaves the outcome blank when the horizon passes as_of, and counts past intervals', () => {
    const last = rowOf(rec, 'm1', iso(T0 + 72 * H));
    expect(last).toMatchObject({
      vib_last: 13,
      vib_min_1d: 10,
      vib_max_1d: 13,
      event_count_prior: 1,
      days_since_last_event: 21 / 24,
      in_event: 0,
      event_next_1d: null,
    });
    expect(last.vib_mean_1d).toBeCloseTo(35 / 3, 12);
    expect(last.vib_mean_7d).toBeCloseTo(80 / 12, 12);
  });

  it('is in an event while an interval has started and not yet ended', () => {
    const rows = [
      ...[1, 2, 3, 4, 5].map((v, i) => reading('m2', i, v)),
      { asset: 'm2', ts: iso(T0 + 20 * H), vib: null, temp: null, kind: 'fault', start: iso(T0 + 20 * H), end: iso(T0 + 28 * H) },
    ];
    const r = shapeOf(table(rows), SHAPE, OPTS);
    expect(rowOf(r, 'm2', iso(T0 + 24 * H))).toMatchObject({ in_event: 1, event_count_prior: 1, days_since_last_event: 4 / 24 });
  });

  it('ignores readings and intervals after an explicit as_of', () => {
    const r = shapeOf(table(ROWS), { ...SHAPE, as_of: iso(T0 + 50 * H) }, OPTS);
    expect(col(r.table, 'ts')).toEqual([iso(T0 + 24 * H), iso(T0 + 48 * H)]);
    expect(col(r.table, 'event_next_1d')).toEqual([0, null]);
    expect(r.counts).toMatchObject({ after_as_of: 5, intervals: 0 });
  });

  it('aligns 6-hour snapshots to the UTC day and names their spans in hours', () => {
    const r = shapeOf(table(ROWS), { ...SHAPE, snapshot_every: '6h', windows: [1, 3, 7], horizon: 3 }, OPTS);
    expect(r.outcomeColumn).toBe('event_next_18h');
    expect(r.features).toContain('vib_mean_42h');
    expect(col(r.table, 'ts')[0]).toBe(iso(T0 + 12 * H));
  });

  it('reads an interval from event_start_column alone when there is no event_column', () => {
    const { event_column: _, ...noColumn } = SHAPE;
    const r = shapeOf(table(ROWS), noColumn, OPTS);
    expect(col(r.table, 'event_next_1d')).toEqual([0, 1, null]);
  });
});
