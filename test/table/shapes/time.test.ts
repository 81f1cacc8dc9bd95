// Determinism (docs/design/architecture.md#determinism): zoned, unzoned, date-only and ISO 8601 basic times, and any row order, read the same.
import { describe, expect, it } from 'vitest';
import { Prng } from '../../../samples/prng.ts';
import { DAY, mapColumn, q, shapeOf, shuffled, table } from './helpers.ts';
import type { ShapeOptions } from '../../../host/table/shapes/index.ts';
import type { Cell, RawTable } from '../../../host/table/types.ts';

const BASE = Date.UTC(2024, 0, 1);
/** Spellings of the same UTC midnight. */
const SPELL: Record<string, (ms: number) => string> = {
  date: (ms) => new Date(ms).toISOString().slice(0, 10),
  zulu: (ms) => new Date(ms).toISOString().slice(0, 19) + 'Z',
  unzoned: (ms) => new Date(ms).toISOString().slice(0, 19).replace('T', ' '),
  plus: (ms) => new Date(ms + 2 * 3_600_000).toISOString().slice(0, 19) + '+02:00',
  minus: (ms) => new Date(ms - 5 * 3_600_000).toISOString().slice(0, 23) + '-0500',
  basicDate: (ms) => new Date(ms).toISOString().slice(0, 10).replace(/-/g, ''),
  basicZulu: (ms) => new Date(ms).toISOString().slice(0, 19).replace(/[-:]/g, '') + 'Z',
};

function build(): Record<string, { t: RawTable; shape: Record<string, unknown>; opts: ShapeOptions; times: string[] }> {
  const rng = new Prng(42);
  const d = (n: number) => BASE + n * DAY;
  const events: Record<string, Cell>[] = [];
  const series: Record<string, Cell>[] = [];
  const panel: Record<string, Cell>[] = [];
  const signals: Record<string, Cell>[] = [];
  const traces: Record<string, Cell>[] = [];
  for (let c = 0; c < 12; c++) {
    const id = `c${c}`;
    for (let k = 0; k < 6; k++) events.push({ id, at: d(rng.int(0, 120)), event: rng.choice(['visit', 'buy']), amount: rng.int(1, 9) });
    for (let w = 0; w < 8; w++) series.push({ id, at: d(7 * w), v: rng.int(0, 20), y: rng.int(0, 1) });
    for (let m = 0; m < 5; m++)
      panel.push({ id, at: d(30 * m), u: rng.int(0, 50) - 5 * m * (c % 2), t: rng.int(0, 3), churned: rng.chance(0.3) ? 'yes' : 'no' });
    for (let k = 0; k < 12; k++) signals.push({ id, at: d(k), s: rng.int(0, 9), kind: null, from: null, to: null });
    const f = rng.int(4, 11);
    signals.push({ id, at: d(f), s: null, kind: 'fault', from: d(f), to: d(f + 1) });
    traces.push({ id: `r${c}`, at: d(rng.int(0, 5)), agent: rng.choice(['A', 'B']), tool: rng.choice(['x', 'y']), failed: rng.int(0, 1) });
  }
  const o = { entityColumn: 'id', timeColumn: 'at' };
  return {
    events: {
      t: table(events),
      shape: { kind: 'events', event_column: 'event', value_columns: ['amount'], label: { lapsed: true }, as_of: 'AS_OF' },
      opts: o,
      times: ['at'],
    },
    series: { t: table(series), shape: { kind: 'series', value_columns: ['v'], windows: [3, 6] }, opts: o, times: ['at'] },
    panel: { t: table(panel), shape: { kind: 'panel', label: { window_of: 'churned', periods: 2 } }, opts: o, times: ['at'] },
    signals: {
      t: table(signals),
      shape: {
        kind: 'signals',
        signal_columns: ['s'],
        event_column: 'kind',
        event_start_column: 'from',
        event_end_column: 'to',
        windows: [1, 3, 7],
        snapshot_every: '1d',
        horizon: 1,
        as_of: 'AS_OF',
      },
      opts: o,
      times: ['at', 'from', 'to'],
    },
    traces: {
      t: table(traces),
      shape: { kind: 'traces', agent_column: 'agent', tool_column: 'tool' },
      opts: { ...o, question: q('failed') },
      times: ['at'],
    },
  };
}

/** The same record with every time (and as_of) spelled one way. */
function spelled(t: RawTable, shape: Record<string, unknown>, times: string[], how: (ms: number) => string) {
  let out = t;
  for (const name of times) out = mapColumn(out, name, (c) => (typeof c === 'number' ? how(c) : c));
  const s = { ...shape };
  if (s.as_of === 'AS_OF') s.as_of = how(BASE + 100 * DAY);
  return { t: out, shape: s };
}

const everything = (rec: ReturnType<typeof shapeOf>) => ({ ...rec, table: rec.table });

describe.each(Object.entries(build()))('%s reads the same', (_, { t, shape, opts, times }) => {
  const reference = (() => {
    const { t: tt, shape: s } = spelled(t, shape, times, SPELL.zulu);
    return everything(shapeOf(tt, s, opts as any));
  })();

  it('with dates alone, with Z, without a zone, with offsets either side, and in the basic form', () => {
    expect(reference.table.rowCount).toBeGreaterThan(0);
    for (const how of Object.values(SPELL)) {
      const { t: tt, shape: s } = spelled(t, shape, times, how);
      expect(everything(shapeOf(tt, s, opts as any))).toEqual(reference);
    }
  });

  it('with its rows in any order', () => {
    for (const seed of [1, 2, 3]) {
      const { t: tt, shape: s } = spelled(shuffled(t, seed), shape, times, seed === 2 ? SPELL.plus : SPELL.date);
      expect(everything(shapeOf(tt, s, opts as any))).toEqual(reference);
    }
  });

  it('writes every output time as ISO 8601 in UTC', () => {
    if (!reference.timeColumn) return;
    const c = reference.table.columns.indexOf(reference.timeColumn);
    for (const v of reference.table.data[c]) expect(v).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});
