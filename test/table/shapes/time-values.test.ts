// Which time values each shape reads (host/table/shapes/read.ts TimeUse): ISO 8601 for events and signals, periods may be plain numbers for series, panel, traces.
import { describe, expect, it } from 'vitest';
import type { Cell } from '../../../host/table/types.ts';
import { col, day, errorOf, q, shapeOf, table } from './helpers.ts';

const basic = (iso: string) => iso.replace(/-/g, ''); // 2024-03-15 -> 20240315
const EVENTS_SHAPE = { kind: 'events', event_column: 'ev', value_columns: ['amount'], label: { lapsed: true }, lookback_days: [7, 30] };
const SIGNALS_SHAPE = {
  kind: 'signals',
  signal_columns: ['s'],
  event_column: 'kind',
  windows: [1, 3, 7],
  snapshot_every: '1d',
  horizon: 1,
};
const opts = { entityColumn: 'id', timeColumn: 'at' };

/** An event log over 4 months, its times spelled by `spell`. */
function events(spell: (d: number) => Cell) {
  const rows: Record<string, Cell>[] = [];
  for (let c = 0; c < 6; c++)
    for (let k = 0; k < 8; k++)
      rows.push({ id: `c${c}`, at: spell(c * 3 + k * 14), ev: k % 3 ? 'visit' : 'buy', amount: k % 3 ? null : k });
  return table(rows);
}

function signals(spell: (d: number) => Cell) {
  const rows: Record<string, Cell>[] = [];
  for (let i = 0; i < 12; i++) rows.push({ id: 'm', at: spell(i), s: i, kind: null });
  rows.push({ id: 'm', at: spell(8), s: null, kind: 'fault' });
  return table(rows);
}

describe('events and signals read ISO 8601 times only', () => {
  it('read ISO 8601 basic dates (text or number) and basic date-times like the extended form', () => {
    for (const [make, shape] of [
      [events, EVENTS_SHAPE],
      [signals, SIGNALS_SHAPE],
    ] as const) {
      const reference = shapeOf(make(day), shape, opts);
      expect(
        shapeOf(
          make((d) => basic(day(d))),
          shape,
          opts,
        ),
      ).toEqual(reference);
      expect(
        shapeOf(
          make((d) => Number(basic(day(d)))),
          shape,
          opts,
        ),
      ).toEqual(reference);
      expect(
        shapeOf(
          make((d) => `${basic(day(d))}T000000Z`),
          shape,
          opts,
        ),
      ).toEqual(reference);
    }
  });

  it('take as_of in the basic form too, and refuse a bare year', () => {
    const t = events(day);
    expect(shapeOf(t, { ...EVENTS_SHAPE, as_of: '20240401' }, opts)).toEqual(shapeOf(t, { ...EVENTS_SHAPE, as_of: '2024-04-01' }, opts));
    const e = errorOf(() => shapeOf(t, { ...EVENTS_SHAPE, as_of: '2024' }, opts));
    expect([e.code, e.field]).toEqual(['shape_invalid', 'shape.as_of']);
  });

  it.each([
    ['years', (d: number) => 2024 + (d % 2)],
    ['epoch milliseconds', (d: number) => Date.UTC(2024, 0, 1) + d * 86_400_000],
    ['day numbers as text', (d: number) => String(d + 1)],
  ])('refuse plain numbers (%s), naming time_column, the value and what is accepted', (_, spell) => {
    for (const [make, shape] of [
      [events, EVENTS_SHAPE],
      [signals, SIGNALS_SHAPE],
    ] as const) {
      const t = make(spell);
      const e = errorOf(() => shapeOf(t, shape, opts));
      expect([e.code, e.field]).toEqual(['shape_invalid', 'time_column']);
      const smallest = col(t, 'at').map(String).sort()[0];
      expect(e.message).toContain(`plain numbers (the smallest: "${smallest}")`);
      expect(e.message).toContain('ISO 8601');
      expect(e.message).toContain('20240315');
    }
  });

  it('refuse plain numbers in an interval start column, naming it', () => {
    const t = table([
      ...Array.from({ length: 6 }, (_, i) => ({ id: 'm', at: day(i), s: i, kind: null, from: null })),
      { id: 'm', at: day(3), s: null, kind: 'fault', from: 3 },
    ]);
    const e = errorOf(() => shapeOf(t, { ...SIGNALS_SHAPE, event_start_column: 'from' }, opts));
    expect([e.code, e.field]).toEqual(['shape_invalid', 'shape.event_start_column']);
  });
});

describe('series, panel and traces may order periods by plain numbers', () => {
  const periods = (spell: (i: number) => Cell) =>
    table(Array.from({ length: 16 }, (_, i) => ({ id: i < 8 ? 'a' : 'b', at: spell(i % 8), v: (i * 7) % 5, y: i % 3 === 0 ? 1 : 0 })));
  const series = { kind: 'series', value_columns: ['v'], windows: [3, 6] };

  it('series: reads periods 1..8 in numeric order and writes them back as numbers', () => {
    const rec = shapeOf(
      periods((i) => String(10 - i)),
      series,
      opts,
    ); // periods 10 down to 3, as text
    // The widest window (6) is first full at the 6th period in numeric order: 8 (as text, "10" < "8").
    expect(col(rec.table, 'at').slice(0, 3)).toEqual([8, 9, 10]);
    expect(rec.asOf).toBe('10');
    const asDates = shapeOf(
      periods((i) => day(-7 * i)),
      series,
      opts,
    );
    expect(col(rec.table, 'v_mean_3p')).toEqual(col(asDates.table, 'v_mean_3p'));
  });

  it('series: writes basic-form dates back as ISO 8601, not as numbers', () => {
    const rec = shapeOf(
      periods((i) => Number(basic(day(7 * i)))),
      series,
      opts,
    );
    expect(col(rec.table, 'at')[0]).toBe(`${day(35)}T00:00:00.000Z`);
    expect(
      shapeOf(
        periods((i) => day(7 * i)),
        series,
        opts,
      ),
    ).toEqual(rec);
  });

  it('panel and traces: take plain-number periods', () => {
    const panel = shapeOf(
      periods((i) => i),
      { kind: 'panel', label: { window_of: 'y' } },
      opts,
    );
    expect(panel.counts.cases).toBe(2);
    const runs = table([1, 2, 3].map((i) => ({ id: `r${i}`, at: i, tool: 'x', failed: i % 2 })));
    expect(
      col(shapeOf(runs, { kind: 'traces', tool_column: 'tool' }, { ...opts, question: q('failed') }).table, 'tool_prior_runs'),
    ).toEqual([0, 1, 2]);
  });

  it('refuse a column that mixes ISO 8601 times and plain numbers, quoting one of each', () => {
    const mixed = periods((i) => (i === 3 ? 4 : day(7 * i)));
    for (const shape of [series, { kind: 'panel', label: { window_of: 'y' } }]) {
      const e = errorOf(() => shapeOf(mixed, shape, opts));
      expect([e.code, e.field]).toEqual(['shape_invalid', 'time_column']);
      expect(e.message).toContain('"4"');
      expect(e.message).toContain(`"${day(0)}"`);
    }
  });
});
