// Spec 2.5 `events`: an event log read as one row per case, features before the outcome window.
import { ServiceError } from '../../http/problem.ts';
import type { Shape } from '../../schemas/shape.ts';
import { SHAPE_DEFAULTS } from '../../schemas/shape.ts';
import type { Cell, RawTable } from '../types.ts';
import { cellText, compareCodePoints } from '../typing.ts';
import { rollupColumns, type Agg } from './frame.ts';
import { NameBook, slug } from './names.ts';
import { DAY, buildTable, formatTime, numericColumn, parseAsOf, readLog, shapeColumn, type Log } from './read.ts';
import type { ShapeOptions, ShapedRecord } from './types.ts';
import { compileWhen } from './when.ts';

export type EventsShape = Extract<Shape, { kind: 'events' }>;

/** At most this many event types get their own count columns: the most frequent, ties by code point. */
export const MAX_EVENT_TYPES = 20;

/**
 * Reads the log as of `as_of` (default: its latest time; later rows are ignored). The outcome
 * window is (as_of - horizon_days, as_of]; every feature is read at the cutoff as_of - horizon_days
 * from rows at or before it, so nothing in the outcome window reaches a feature. A case is an entity
 * with at least one event at or before the cutoff (an entity first seen inside the outcome window
 * has no history to learn from, and letting it in would tell the model its future). Outcome:
 * `lapsed_{H}d` is 1 when the case has no event in the outcome window; `{name}_next_{H}d` is 1 when
 * any event in the window matches `when`.
 */
export function shapeEvents(table: RawTable, shape: EventsShape, opts: ShapeOptions): ShapedRecord {
  const eventIdx = shape.event_column === undefined ? -1 : shapeColumn(table, shape.event_column, 'shape.event_column');
  const valueNames = shape.value_columns ?? [];
  const values = valueNames.map((name, i) => numericColumn(table, shapeColumn(table, name, `shape.value_columns.${i}`), `shape.value_columns.${i}`));
  const label = shape.label;
  const matches = 'when' in label ? compileWhen(label.when, table, 'shape.label.when') : null;
  const horizon = shape.horizon_days ?? SHAPE_DEFAULTS.horizon_days;
  const lookbacks = shape.lookback_days ?? SHAPE_DEFAULTS.lookback_days;
  let given: number | null = null;
  const log = readLog(table, opts.entityColumn, opts.timeColumn, (latest, numericTimes) => (given = parseAsOf(shape.as_of, numericTimes)) ?? latest);
  const asOf = given ?? log.latest;
  const cutoff = asOf - horizon * DAY;

  // Event types seen before the cutoff, most frequent first (types first seen later add no column).
  const typeOf = new Map<string, number>();
  const types: string[] = [];
  if (eventIdx >= 0) {
    const freq = new Map<string, number>();
    for (const c of log.cases) for (const r of c.rows) {
      const t = cellText(table.data[eventIdx][r]);
      if (t !== null && log.times[r] <= cutoff) freq.set(t, (freq.get(t) ?? 0) + 1);
    }
    const ranked = [...freq].sort((a, b) => b[1] - a[1] || compareCodePoints(a[0], b[0])).slice(0, MAX_EVENT_TYPES);
    ranked.map(([t]) => t).sort(compareCodePoints).forEach((t, i) => (typeOf.set(t, i), types.push(t)));
  }

  const outcomeName = 'lapsed' in label ? `lapsed_${horizon}d` : `${label.name}_next_${horizon}d`;
  const book = new NameBook([opts.entityColumn, outcomeName]);
  const names: string[] = [];
  for (const L of lookbacks) names.push(book.add(`event_count_${L}d`));
  valueNames.forEach((v) => lookbacks.forEach((L) => names.push(book.add(`${v}_sum_${L}d`), book.add(`${v}_avg_${L}d`))));
  types.forEach((t) => lookbacks.forEach((L) => names.push(book.add(`${slug(t)}_count_${L}d`))));
  names.push(book.add('days_since_last_event'), book.add('days_since_first_event'));

  const reader = new EventReader(log, eventIdx, typeOf, values, matches);
  const train = reader.read(cutoff, lookbacks, types.length);
  const now = reader.read(asOf, lookbacks, types.length);
  const outcome = reader.window(cutoff, asOf);
  reader.run();
  const caseIdx = log.cases.map((_, c) => c).filter((c) => train.has(c));
  if (caseIdx.length === 0) {
    throw new ServiceError(
      'shape_empty',
      `No case has an event at or before ${formatTime(cutoff, false)} (as_of minus horizon_days), so nothing can be learned.`,
      { field: 'shape' },
    );
  }
  const ys: Cell[] = caseIdx.map((c) => {
    const o = outcome.get(c);
    if ('lapsed' in label) return o.events > 0 ? 0 : 1;
    return o.matches > 0 ? 1 : 0;
  });
  const header = [opts.entityColumn, ...names, outcomeName];
  const rowsOf = (idx: number[], feats: FeatureRead, y: Cell[]) => {
    const rows = idx.map((c) => feats.row(c));
    return buildTable(header, [idx.map((c) => log.cases[c].id), ...names.map((_, j) => rows.map((row) => row[j])), y]);
  };
  const tableOut = rowsOf(caseIdx, train, ys);
  const allIdx = log.cases.map((_, c) => c);
  const current = rowsOf(allIdx, now, allIdx.map(() => null));
  const positives = ys.filter((y) => y === 1).length;
  return {
    table: tableOut,
    outcomeColumn: outcomeName,
    entityColumn: opts.entityColumn,
    asOf: String(formatTime(asOf, log.numericTimes)),
    counts: {
      ...log.counts,
      entities: log.cases.length,
      no_history: log.cases.length - caseIdx.length,
      cases: caseIdx.length,
      rows: caseIdx.length,
      labeled: caseIdx.length,
      positives,
    },
    features: names,
    kept: [],
    current,
  };
}

interface FeatureRead {
  has(c: number): boolean;
  row(c: number): Cell[];
}

/**
 * Collects the windows every read needs as masked columns (null outside the window) and computes
 * them all in one arquero rollup per case (`run`); the reads answer after that.
 */
class EventReader {
  private readonly columns: Float64Array[] = [];
  private readonly aggs: [Agg, number][] = [];
  private readonly rows: number[] = [];
  private readonly group: number[] = [];
  private readonly types: number[];
  private result = new Map<number, (number | null)[]>();

  constructor(
    private readonly log: Log,
    eventIdx: number,
    typeOf: Map<string, number>,
    private readonly values: (number | null)[][],
    private readonly matches: ((r: number) => boolean) | null,
  ) {
    log.cases.forEach((c, i) => c.rows.forEach((r) => (this.rows.push(r), this.group.push(i))));
    this.types = this.rows.map((r) => (eventIdx < 0 ? -1 : (typeOf.get(cellText(log.table.data[eventIdx][r]) ?? '') ?? -1)));
  }

  /** Adds a column of f(row, time, type) and an aggregate of it; returns the aggregate's slot. */
  private add(agg: Agg, f: (r: number, t: number, type: number) => number | null): number {
    // NaN for blank: arquero skips it like null, and a Float64Array spares the garbage collector.
    const col = new Float64Array(this.rows.length);
    this.rows.forEach((r, i) => (col[i] = f(r, this.log.times[r], this.types[i]) ?? NaN));
    this.columns.push(col);
    this.aggs.push([agg, this.columns.length - 1]);
    return this.aggs.length - 1;
  }

  /** Spec 2.5 events features read at `at` (rows with t <= at only), in SHAPE_FEATURES order. */
  read(at: number, lookbacks: readonly number[], nTypes: number): FeatureRead {
    const inside = (L: number) => (t: number) => t > at - L * DAY && t <= at;
    const counts = lookbacks.map((L) => this.add('valid', (_, t) => (inside(L)(t) ? 1 : null)));
    const sums = this.values.map((v) =>
      lookbacks.map((L) => [this.add('sum', (r, t) => (inside(L)(t) ? v[r] : null)), this.add('valid', (r, t) => (inside(L)(t) ? v[r] : null))]),
    );
    const typed = Array.from({ length: nTypes }, (_, y) => lookbacks.map((L) => this.add('valid', (_, t, type) => (inside(L)(t) && type === y ? 1 : null))));
    const first = this.add('min', (_, t) => (t <= at ? t : null));
    const last = this.add('max', (_, t) => (t <= at ? t : null));
    return {
      has: (c) => this.result.get(c)?.[last] != null,
      row: (c) => {
        const x = this.result.get(c) as (number | null)[];
        const out: Cell[] = counts.map((k) => x[k] ?? 0);
        for (const perL of sums) for (const [s, n] of perL) out.push((x[n] ?? 0) > 0 ? x[s] : 0, (x[n] ?? 0) > 0 ? (x[s] as number) / (x[n] as number) : null);
        for (const perL of typed) for (const k of perL) out.push(x[k] ?? 0);
        out.push((at - (x[last] as number)) / DAY, (at - (x[first] as number)) / DAY);
        return out;
      },
    };
  }

  /** Events and `when` matches per case in (from, to]. */
  window(from: number, to: number): { get(c: number): { events: number; matches: number } } {
    const inside = (t: number) => t > from && t <= to;
    const events = this.add('valid', (_, t) => (inside(t) ? 1 : null));
    const matched = this.add('valid', (r, t) => (inside(t) && this.matches !== null && this.matches(r) ? 1 : null));
    return { get: (c) => ({ events: this.result.get(c)?.[events] ?? 0, matches: this.result.get(c)?.[matched] ?? 0 }) };
  }

  run(): void {
    this.result = rollupColumns(this.group, this.columns, this.aggs);
  }
}
