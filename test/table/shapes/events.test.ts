// docs/reference/ask.md#shapes events: feature values and labels on a tiny log, recomputed by hand.
import { describe, expect, it } from 'vitest';
import { SHAPE_FEATURES } from '../../../host/table/shapes/index.ts';
import { col, day, rowOf, shapeOf, table } from './helpers.ts';

// as_of 2024-04-30 (day 120), horizon 30: cutoff day 90; lookbacks [7, 30]: windows (83, 90] and (60, 90].
const LOG = table([
  { cust: 'a', at: day(60), event: 'visit', amount: null },
  { cust: 'a', at: day(85), event: 'purchase', amount: 20 },
  { cust: 'a', at: day(88), event: 'purchase', amount: '40' },
  { cust: 'a', at: day(89), event: 'ticket', amount: '' },
  { cust: 'a', at: day(100), event: 'visit', amount: null },
  { cust: 'b', at: day(10), event: 'visit', amount: null },
  { cust: 'b', at: day(90), event: 'visit', amount: null },
  { cust: 'c', at: day(95), event: 'visit', amount: null },
  { cust: 'd', at: day(50), event: 'refund', amount: 15 },
  { cust: 'd', at: day(125), event: 'visit', amount: null },
]);
const SHAPE = {
  kind: 'events',
  event_column: 'event',
  value_columns: ['amount'],
  label: { lapsed: true },
  horizon_days: 30,
  lookback_days: [7, 30],
  as_of: '2024-04-30',
} as const;
const OPTS = { entityColumn: 'cust', timeColumn: 'at' };

describe('events features (docs/reference/ask.md#shapes)', () => {
  const rec = shapeOf(LOG, SHAPE, OPTS);

  it('names its columns stably: counts, value sums and averages, per-type counts, recency', () => {
    expect(rec.table.columns).toEqual([
      'cust',
      'event_count_7d',
      'event_count_30d',
      'amount_sum_7d',
      'amount_avg_7d',
      'amount_sum_30d',
      'amount_avg_30d',
      'purchase_count_7d',
      'purchase_count_30d',
      'refund_count_7d',
      'refund_count_30d',
      'ticket_count_7d',
      'ticket_count_30d',
      'visit_count_7d',
      'visit_count_30d',
      'days_since_last_event',
      'days_since_first_event',
      'lapsed_30d',
    ]);
    expect(rec.features).toEqual(rec.table.columns.slice(1, -1));
    expect(rec.outcomeColumn).toBe('lapsed_30d');
    expect(rec.timeColumn).toBeUndefined();
    expect(rec.asOf).toBe('2024-04-30T00:00:00.000Z');
  });

  it('reads a case from the windows before the cutoff (a day-60 event is outside the 30-day window ending day 90)', () => {
    expect(rowOf(rec, 'a')).toEqual({
      cust: 'a',
      event_count_7d: 3,
      event_count_30d: 3,
      amount_sum_7d: 60,
      amount_avg_7d: 30,
      amount_sum_30d: 60,
      amount_avg_30d: 30,
      purchase_count_7d: 2,
      purchase_count_30d: 2,
      refund_count_7d: 0,
      refund_count_30d: 0,
      ticket_count_7d: 1,
      ticket_count_30d: 1,
      visit_count_7d: 0,
      visit_count_30d: 0,
      days_since_last_event: 1,
      days_since_first_event: 30,
      lapsed_30d: 0,
    });
  });

  it('counts an event exactly at the cutoff as history, and gives blank averages when a window has no amounts', () => {
    expect(rowOf(rec, 'b')).toMatchObject({
      event_count_7d: 1,
      event_count_30d: 1,
      amount_sum_7d: 0,
      amount_avg_7d: null,
      visit_count_7d: 1,
      days_since_last_event: 0,
      days_since_first_event: 80,
      lapsed_30d: 1,
    });
  });

  it('ignores events after as_of, and leaves out entities first seen in the outcome window', () => {
    expect(rowOf(rec, 'd')).toMatchObject({ event_count_30d: 0, refund_count_30d: 0, days_since_last_event: 40, lapsed_30d: 1 });
    expect(col(rec.table, 'cust')).toEqual(['a', 'b', 'd']);
    expect(rec.counts).toMatchObject({
      input_rows: 10,
      after_as_of: 1,
      entities: 4,
      no_history: 1,
      cases: 3,
      rows: 3,
      labeled: 3,
      positives: 2,
    });
  });

  it('defaults as_of to the latest time and the windows to horizon 30, lookback [30, 90]', () => {
    const r = shapeOf(LOG, { kind: 'events', label: { lapsed: true } }, OPTS);
    expect(r.asOf).toBe(`${day(125)}T00:00:00.000Z`);
    expect(r.table.columns).toEqual([
      'cust',
      'event_count_30d',
      'event_count_90d',
      'days_since_last_event',
      'days_since_first_event',
      'lapsed_30d',
    ]);
    // cutoff day 95, windows (65, 95] and (5, 95]: c (day 95) is now a case; a's day-100 event is in the outcome window.
    expect(rowOf(r, 'a')).toEqual({
      cust: 'a',
      event_count_30d: 3,
      event_count_90d: 4,
      days_since_last_event: 6,
      days_since_first_event: 35,
      lapsed_30d: 0,
    });
    expect(rowOf(r, 'c')).toMatchObject({ event_count_30d: 1, days_since_last_event: 0, lapsed_30d: 1 });
    expect(rowOf(r, 'd')).toMatchObject({ lapsed_30d: 0 });
  });

  it('gives the same features read at as_of itself in `current`, with a blank outcome', () => {
    const cur = rec.current!;
    expect(cur.columns).toEqual(rec.table.columns);
    const ids = col(cur, 'cust');
    expect(ids).toEqual(['a', 'b', 'c', 'd']);
    const a = ids.indexOf('a');
    expect(col(cur, 'event_count_30d')[a]).toBe(1); // (90, 120]: day 100
    expect(col(cur, 'event_count_7d')[a]).toBe(0);
    expect(col(cur, 'days_since_last_event')[a]).toBe(20);
    expect(col(cur, 'lapsed_30d').every((y) => y === null)).toBe(true);
  });
});

describe('events labels (docs/reference/ask.md#shapes)', () => {
  const log = table([
    { cust: 'a', at: day(50), event: 'purchase', amount: 20, channel: 'web' },
    { cust: 'a', at: day(110), event: 'purchase', amount: 150, channel: 'store' },
    { cust: 'b', at: day(50), event: 'visit', amount: null, channel: 'web' },
    { cust: 'b', at: day(100), event: 'purchase', amount: 99.5, channel: 'web' },
    { cust: 'c', at: day(50), event: 'visit', amount: null, channel: 'app' },
    { cust: 'c', at: day(105), event: 'Purchase', amount: 300, channel: 'app' },
    { cust: 'e', at: day(50), event: 'visit', amount: null, channel: 'web' },
    { cust: 'e', at: day(120), event: 'refund', amount: 10, channel: 'phone' },
  ]);
  const named = (when: unknown, horizon = 30) =>
    shapeOf(
      log,
      { kind: 'events', label: { name: 'big_buy', when }, horizon_days: horizon, as_of: day(120) },
      { entityColumn: 'cust', timeColumn: 'at' },
    );
  const ys = (rec: ReturnType<typeof named>) =>
    Object.fromEntries(col(rec.table, 'cust').map((id, i) => [id, col(rec.table, rec.outcomeColumn)[i]]));

  it('names the outcome {name}_next_{H}d and marks a case when any event in the window matches', () => {
    const rec = named({
      all: [
        { column: 'event', op: '==', value: 'purchase' },
        { column: 'amount', op: '>=', value: 100 },
      ],
    });
    expect(rec.outcomeColumn).toBe('big_buy_next_30d');
    expect(ys(rec)).toEqual({ a: 1, b: 0, c: 0, e: 0 }); // c's "Purchase" is another spelling
  });

  it('reads the window only: a matching event before the cutoff does not count', () => {
    const rec = named({ column: 'amount', op: '<', value: 25 });
    expect(ys(rec)).toEqual({ a: 0, b: 0, c: 0, e: 1 });
  });

  it('supports any/all nesting, in, != and numbers compared as numbers', () => {
    expect(
      ys(
        named({
          any: [
            { column: 'channel', op: 'in', value: ['store', 'phone'] },
            {
              all: [
                { column: 'amount', op: '>', value: 99 },
                { column: 'channel', op: '!=', value: 'store' },
              ],
            },
          ],
        }),
      ),
    ).toEqual({
      a: 1,
      b: 1,
      c: 1,
      e: 1,
    });
    expect(ys(named({ column: 'amount', op: '==', value: '300.0' }))).toEqual({ a: 0, b: 0, c: 1, e: 0 });
    expect(ys(named({ column: 'channel', op: 'in', value: ['app'] }))).toEqual({ a: 0, b: 0, c: 1, e: 0 });
  });

  it('lets a horizon of 60 days move the cutoff back', () => {
    const rec = named({ column: 'event', op: '==', value: 'purchase' }, 60);
    expect(rec.outcomeColumn).toBe('big_buy_next_60d');
    expect(ys(rec)).toEqual({ a: 1, b: 1, c: 0, e: 0 });
  });

  it('lapsed is 1 only when the window holds no event at all', () => {
    const rec = shapeOf(log, { kind: 'events', label: { lapsed: true }, as_of: day(119) }, { entityColumn: 'cust', timeColumn: 'at' });
    expect(ys(rec)).toEqual({ a: 0, b: 0, c: 0, e: 1 }); // e's day-120 refund is after as_of
  });
});

describe('event types as columns', () => {
  it('slugs type names, resolves clashes with _2, and keeps the 20 most frequent types', () => {
    const rows = [];
    for (let t = 0; t < 22; t++)
      for (let k = 0; k <= t; k++) rows.push({ cust: 'a', at: day(k), event: `Type ${String(t).padStart(2, '0')}` });
    for (let k = 0; k < 30; k++) rows.push({ cust: 'a', at: day(k), event: k % 2 ? 'Event' : 'event' });
    rows.push({ cust: 'a', at: day(200), event: 'late' });
    const rec = shapeOf(
      table(rows),
      { kind: 'events', event_column: 'event', label: { lapsed: true }, lookback_days: [90, 365] },
      { entityColumn: 'cust', timeColumn: 'at' },
    );
    const typed = rec.features.filter((f) => /_count_90d(_\d+)?$/.test(f) && f !== 'event_count_90d');
    expect(typed).toHaveLength(20);
    expect(typed).not.toContain('type_00_count_90d'); // the four rarest types drop out
    expect(typed).not.toContain('type_03_count_90d');
    expect(typed).toContain('type_04_count_90d');
    expect(typed).toContain('type_21_count_90d');
    expect(typed).not.toContain('late_count_90d'); // first seen after the cutoff
    // "Event" and "event" both slug to event: the first clashes with the total count, the second with that.
    expect(typed).toEqual(expect.arrayContaining(['event_count_90d_2', 'event_count_90d_3']));
  });

  it('documents every events column pattern in SHAPE_FEATURES', () => {
    const names = SHAPE_FEATURES.events.map((f) => f.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'event_count_{L}d',
        '{v}_sum_{L}d',
        '{v}_avg_{L}d',
        '{type}_count_{L}d',
        'days_since_last_event',
        'lapsed_{H}d',
        '{name}_next_{H}d',
      ]),
    );
  });
});
