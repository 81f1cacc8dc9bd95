// docs/reference/ask.md#shapes `events`: an event log read as one row per case, features before the outcome window.
import { ServiceError } from '../../errors.ts';
import type { Shape } from '../../schemas/shape.ts';
import { SHAPE_DEFAULTS } from '../../schemas/shape.ts';
import type { Cell, RawTable } from '../types.ts';
import { cellText, compareCodePoints } from '../typing.ts';
import { NameBook, slug } from './names.ts';
import { DAY, buildTable, formatTime, numericColumn, parseAsOf, readLog, shapeColumn, type Log } from './read.ts';
import type { ShapeOptions, ShapedRecord } from './types.ts';
import { compileWhen, type RowTest } from './when.ts';

export type EventsShape = Extract<Shape, { kind: 'events' }>;

/** At most this many event types get their own count columns: the most frequent, ties by code point. */
export const MAX_EVENT_TYPES = 20;

/**
 * Reads the log as of `as_of` (default: its latest time; later rows are ignored). The outcome
 * window is (as_of - horizon_days, as_of]. The rows the model learns from are read at the cutoff
 * as_of - horizon_days, from rows at or before it, so nothing in the outcome window reaches their
 * features; the rows it scores (`current`) are the same features read at as_of itself. A case is an
 * entity with at least one event at or before the cutoff (an entity first seen inside the outcome
 * window has no history to learn from, and letting it in would tell the model its future). Outcome:
 * `lapsed_{H}d` is 1 when the case has no event in the outcome window; `{name}_next_{H}d` is 1 when
 * any event in the window matches `when`.
 */
export function shapeEvents(table: RawTable, shape: EventsShape, opts: ShapeOptions): ShapedRecord {
  const eventIdx = shape.event_column === undefined ? -1 : shapeColumn(table, shape.event_column, 'shape.event_column');
  const valueNames = shape.value_columns ?? [];
  const values = valueNames.map((name, i) =>
    numericColumn(table, shapeColumn(table, name, `shape.value_columns.${i}`), `shape.value_columns.${i}`),
  );
  const label = shape.label;
  const matches = 'when' in label ? compileWhen(label.when, table, 'shape.label.when') : null;
  const horizon = shape.horizon_days ?? SHAPE_DEFAULTS.horizon_days;
  const lookbacks = shape.lookback_days ?? SHAPE_DEFAULTS.lookback_days;
  let given: number | null = null;
  const log = readLog(table, opts.entityColumn, opts.timeColumn, 'instant', (latest) => (given = parseAsOf(shape.as_of)) ?? latest);
  const asOf = given ?? log.latest;
  const cutoff = asOf - horizon * DAY;

  const types = eventIdx < 0 ? { names: [], ofRow: new Int32Array(0) } : eventTypes(log, eventIdx, cutoff);
  const outcomeName = 'lapsed' in label ? `lapsed_${horizon}d` : `${label.name}_next_${horizon}d`;
  const book = new NameBook([opts.entityColumn, outcomeName]);
  const names: string[] = [];
  for (const L of lookbacks) names.push(book.add(`event_count_${L}d`));
  valueNames.forEach((v) => lookbacks.forEach((L) => names.push(book.add(`${v}_sum_${L}d`), book.add(`${v}_avg_${L}d`))));
  types.names.forEach((t) => lookbacks.forEach((L) => names.push(book.add(`${slug(t)}_count_${L}d`))));
  names.push(book.add('days_since_last_event'), book.add('days_since_first_event'));

  const counter = new EventCounter(log, lookbacks, values, types.names.length, types.ofRow);
  const allIdx = log.cases.map((_, c) => c);
  const train = counter.read(cutoff, allIdx);
  const caseIdx = allIdx.filter((c) => train.has[c]);
  if (caseIdx.length === 0) {
    throw new ServiceError(
      'shape_empty',
      `No case has an event at or before ${formatTime(cutoff, false)} (as_of minus horizon_days), so nothing can be learned.`,
      { field: 'shape' },
    );
  }
  const outcome = counter.window(cutoff, asOf, matches);
  const ys: Cell[] = caseIdx.map((c) => ('lapsed' in label ? (outcome.events[c] > 0 ? 0 : 1) : outcome.matches[c] > 0 ? 1 : 0));
  const header = [opts.entityColumn, ...names, outcomeName];
  const tableOut = buildTable(header, [caseIdx.map((c) => log.cases[c].id), ...train.columns.map((col) => caseIdx.map((c) => col[c])), ys]);
  const current = buildTable(header, [allIdx.map((c) => log.cases[c].id), ...counter.read(asOf, allIdx).columns, allIdx.map(() => null)]);
  const positives = ys.filter((y) => y === 1).length;
  return {
    table: tableOut,
    outcomeColumn: outcomeName,
    entityColumn: opts.entityColumn,
    asOf: String(formatTime(asOf, false)),
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

/**
 * The event types that get count columns: among rows at or before the cutoff, the MAX_EVENT_TYPES
 * most frequent texts (ties by code point), listed in code point order; `ofRow` gives each input
 * row's type index (-1 for a blank or another type).
 */
export function eventTypes(log: Log, eventIdx: number, cutoff: number): { names: string[]; ofRow: Int32Array } {
  const cells = log.table.data[eventIdx];
  const code = new Int32Array(log.table.rowCount).fill(-1);
  const codeOf = new Map<string, number>();
  const texts: string[] = [];
  const freq: number[] = [];
  for (const c of log.cases) {
    for (const r of c.rows) {
      const t = cellText(cells[r]);
      if (t === null) continue;
      let k = codeOf.get(t);
      if (k === undefined) (codeOf.set(t, (k = texts.length)), texts.push(t), freq.push(0));
      code[r] = k;
      if (log.times[r] <= cutoff) freq[k]++;
    }
  }
  const ranked = texts.map((_, k) => k).filter((k) => freq[k] > 0);
  ranked.sort((a, b) => freq[b] - freq[a] || compareCodePoints(texts[a], texts[b]));
  const kept = ranked.slice(0, MAX_EVENT_TYPES).sort((a, b) => compareCodePoints(texts[a], texts[b]));
  const typeOfCode = new Int32Array(texts.length).fill(-1);
  kept.forEach((k, i) => (typeOfCode[k] = i));
  for (let r = 0; r < code.length; r++) if (code[r] >= 0) code[r] = typeOfCode[code[r]];
  return { names: kept.map((k) => texts[k]), ofRow: code };
}

/**
 * Counts and sums over each case's rows in plain loops (one pass per read). The readable
 * definition, which this must match bit for bit, is in test/table/shapes/events-reference.test.ts: per
 * window (at - L days, at], the rows' count, the sum and count of each value column's non-blank
 * values (summed in the case's row order), each type's count; and the first and last time <= at.
 */
export class EventCounter {
  private readonly values: Float64Array[];

  constructor(
    private readonly log: Log,
    private readonly lookbacks: readonly number[],
    values: (number | null)[][],
    private readonly nTypes: number,
    private readonly typeOfRow: Int32Array,
  ) {
    // NaN for blank, so the inner loop tests one typed array.
    this.values = values.map((v) => {
      const out = new Float64Array(v.length);
      for (let r = 0; r < v.length; r++) out[r] = v[r] ?? NaN;
      return out;
    });
  }

  /** docs/reference/ask.md#shapes events features read at `at` (rows with t <= at only), in SHAPE_FEATURES order, for `cases`. */
  read(at: number, cases: readonly number[]): { has: boolean[]; columns: Cell[][] } {
    const { log, lookbacks, values, nTypes, typeOfRow } = this;
    const times = log.times;
    const nL = lookbacks.length;
    const nV = values.length;
    const from = lookbacks.map((L) => at - L * DAY);
    const count = new Float64Array(nL);
    const sum = new Float64Array(nV * nL);
    const valid = new Float64Array(nV * nL);
    const typed = new Float64Array(nTypes * nL);
    const nCols = nL + 2 * nV * nL + nTypes * nL + 2;
    const columns: Cell[][] = Array.from({ length: nCols }, () => new Array<Cell>(cases.length));
    const has: boolean[] = new Array(log.cases.length).fill(false);
    cases.forEach((c, i) => {
      count.fill(0);
      sum.fill(0);
      valid.fill(0);
      typed.fill(0);
      let first = NaN;
      let last = NaN;
      for (const r of log.cases[c].rows) {
        const t = times[r];
        if (!(t <= at)) continue;
        if (!(t >= first)) first = t;
        if (!(t <= last)) last = t;
        const type = nTypes > 0 ? typeOfRow[r] : -1;
        for (let l = 0; l < nL; l++) {
          if (!(t > from[l])) continue;
          count[l]++;
          for (let v = 0; v < nV; v++) {
            const x = values[v][r];
            if (x === x) ((sum[v * nL + l] += x), valid[v * nL + l]++);
          }
          if (type >= 0) typed[type * nL + l]++;
        }
      }
      has[c] = !Number.isNaN(last);
      let k = 0;
      for (let l = 0; l < nL; l++) columns[k++][i] = count[l];
      for (let v = 0; v < nV; v++) {
        for (let l = 0; l < nL; l++) {
          const n = valid[v * nL + l];
          columns[k++][i] = n > 0 ? sum[v * nL + l] : 0;
          columns[k++][i] = n > 0 ? sum[v * nL + l] / n : null;
        }
      }
      for (let y = 0; y < nTypes; y++) for (let l = 0; l < nL; l++) columns[k++][i] = typed[y * nL + l];
      columns[k++][i] = (at - last) / DAY;
      columns[k++][i] = (at - first) / DAY;
    });
    return { has, columns };
  }

  /** Events and `when` matches per case (by case index) in (from, to]. */
  window(from: number, to: number, matches: RowTest | null): { events: Float64Array; matches: Float64Array } {
    const events = new Float64Array(this.log.cases.length);
    const matched = new Float64Array(this.log.cases.length);
    this.log.cases.forEach((c, i) => {
      for (const r of c.rows) {
        const t = this.log.times[r];
        if (!(t > from && t <= to)) continue;
        events[i]++;
        if (matches !== null && matches(r)) matched[i]++;
      }
    });
    return { events, matches: matched };
  }
}
