// The events read (host/table/shapes/events.ts counts in plain loops) against its readable definition, case by case, on seeded logs.
import { describe, expect, it } from 'vitest';
import type { Cell } from '../../../host/table/types.ts';
import { Prng } from '../../../samples/prng.ts';
import { DAY, shapeOf, table } from './helpers.ts';

interface Event {
  id: string;
  at: string;
  ev: string | null;
  amount: number | null;
  channel: string;
}

const TYPES: Record<string, string> = { visit: 'visit', buy: 'buy', ticket: 'ticket', refund: 'refund', 'Page View': 'page_view' };

/** A seeded log: ties in time, blank types and amounts, amounts in halves (so sums are exact in any order). */
function makeLog(seed: number, dateOnly: boolean): Event[] {
  const rng = new Prng(seed);
  return Array.from({ length: 300 + rng.int(0, 600) }, () => {
    const ms = Date.UTC(2024, 0, 1) + rng.int(0, 300) * DAY + (dateOnly ? 0 : rng.int(0, 23) * 3_600_000);
    return {
      id: `c${rng.int(0, 40)}`,
      at: dateOnly ? new Date(ms).toISOString().slice(0, 10) : new Date(ms).toISOString(),
      ev: rng.chance(0.05) ? null : rng.choice(Object.keys(TYPES)),
      amount: rng.chance(0.4) ? null : rng.int(0, 400) / 2,
      channel: rng.choice(['web', 'app', 'store']),
    };
  });
}

/**
 * docs/reference/ask.md#shapes events, written to be read rather than to be fast: per case, the rows in each window
 * filtered afresh. Features at `at` over (at - L days, at]; types: the 20 most frequent at or before
 * the cutoff (ties by code point), in code point order; outcome over (cutoff, as_of].
 */
function reference(log: Event[], horizon: number, lookbacks: number[], asOfText: string | undefined, when: ((e: Event) => boolean) | null) {
  const time = (e: Event) => Date.parse(e.at);
  const asOf = asOfText === undefined ? Math.max(...log.map(time)) : Date.parse(asOfText);
  const kept = log.filter((e) => time(e) <= asOf);
  const cutoff = asOf - horizon * DAY;
  const freq = new Map<string, number>();
  for (const e of kept) if (e.ev !== null && time(e) <= cutoff) freq.set(e.ev, (freq.get(e.ev) ?? 0) + 1);
  const cp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0); // these names are ASCII
  const types = [...freq]
    .sort((a, b) => b[1] - a[1] || cp(a[0], b[0]))
    .slice(0, 20)
    .map(([t]) => t)
    .sort(cp);
  const ids = [...new Set(kept.map((e) => e.id))].sort(cp);
  const featuresAt = (rows: Event[], at: number): Record<string, Cell> => {
    const upTo = rows.filter((e) => time(e) <= at);
    const inWindow = (L: number) => upTo.filter((e) => time(e) > at - L * DAY);
    const out: Record<string, Cell> = {};
    for (const L of lookbacks) out[`event_count_${L}d`] = inWindow(L).length;
    for (const L of lookbacks) {
      const amounts = inWindow(L)
        .map((e) => e.amount)
        .filter((x): x is number => x !== null);
      const sum = amounts.reduce((a, b) => a + b, 0);
      out[`amount_sum_${L}d`] = sum;
      out[`amount_avg_${L}d`] = amounts.length ? sum / amounts.length : null;
    }
    for (const t of types) for (const L of lookbacks) out[`${TYPES[t]}_count_${L}d`] = inWindow(L).filter((e) => e.ev === t).length;
    out.days_since_last_event = (at - Math.max(...upTo.map(time))) / DAY;
    out.days_since_first_event = (at - Math.min(...upTo.map(time))) / DAY;
    return out;
  };
  const train = new Map<string, Record<string, Cell>>();
  const current = new Map<string, Record<string, Cell>>();
  for (const id of ids) {
    const rows = kept.filter((e) => e.id === id);
    current.set(id, featuresAt(rows, asOf));
    if (!rows.some((e) => time(e) <= cutoff)) continue;
    const future = rows.filter((e) => time(e) > cutoff);
    const y = when === null ? (future.length === 0 ? 1 : 0) : future.some(when) ? 1 : 0;
    train.set(id, { ...featuresAt(rows, cutoff), y });
  }
  return { train, current };
}

/** The shaped table's rows by entity id, features under the reference's names (outcome as y). */
function byId(t: { columns: string[]; data: Cell[][]; rowCount: number }, outcome: string): Map<string, Record<string, Cell>> {
  const out = new Map<string, Record<string, Cell>>();
  for (let r = 0; r < t.rowCount; r++) {
    const row: Record<string, Cell> = {};
    t.columns.forEach((c, j) => c !== 'id' && (row[c === outcome ? 'y' : c] = t.data[j][r]));
    out.set(t.data[0][r] as string, row);
  }
  return out;
}

describe('events read matches its readable definition', () => {
  const settings = [
    { horizon: 30, lookbacks: [30, 90], asOf: undefined },
    { horizon: 60, lookbacks: [7, 30], asOf: '2024-09-15' },
    { horizon: 90, lookbacks: [90, 365], asOf: '2024-08-01T12:00:00Z' },
  ];
  it.each([1, 2, 3, 4, 5, 6])('on seeded log %i, for lapsed and named labels, as learned and as scored', (seed) => {
    const log = makeLog(seed, seed % 2 === 0);
    const s = settings[seed % 3];
    const base = {
      kind: 'events',
      event_column: 'ev',
      value_columns: ['amount'],
      horizon_days: s.horizon,
      lookback_days: s.lookbacks,
      ...(s.asOf ? { as_of: s.asOf } : {}),
    };
    const opts = { entityColumn: 'id', timeColumn: 'at' };
    const t = table(log as unknown as Record<string, Cell>[]);

    const lapsed = shapeOf(t, { ...base, label: { lapsed: true } }, opts);
    const want = reference(log, s.horizon, s.lookbacks, s.asOf, null);
    expect(byId(lapsed.table, lapsed.outcomeColumn)).toEqual(want.train);
    expect(byId(lapsed.current!, lapsed.outcomeColumn)).toEqual(new Map([...want.current].map(([id, f]) => [id, { ...f, y: null }])));

    const when = {
      any: [
        { column: 'amount', op: '>=', value: 150 },
        { column: 'channel', op: '==', value: 'store' },
      ],
    };
    const named = shapeOf(t, { ...base, label: { name: 'big', when } }, opts);
    const wantNamed = reference(
      log,
      s.horizon,
      s.lookbacks,
      s.asOf,
      (e) => (e.amount !== null && e.amount >= 150) || e.channel === 'store',
    );
    expect(byId(named.table, named.outcomeColumn)).toEqual(wantNamed.train);
  });
});
