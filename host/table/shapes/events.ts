// Spec 2.5 `events`: an event log read as one row per case, features before the outcome window.
import { ServiceError } from '../../http/problem.ts';
import type { Shape } from '../../schemas/shape.ts';
import { SHAPE_DEFAULTS } from '../../schemas/shape.ts';
import type { Cell } from '../types.ts';
import { cellText, compareCodePoints } from '../typing.ts';
import { countByType, frame, rollupWindow, spanBy, type Frame } from './frame.ts';
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
export function shapeEvents(table: Parameters<typeof readLog>[0], shape: EventsShape, opts: ShapeOptions): ShapedRecord {
  const eventIdx = shape.event_column === undefined ? -1 : shapeColumn(table, shape.event_column, 'shape.event_column');
  const valueNames = shape.value_columns ?? [];
  const values = valueNames.map((name, i) => numericColumn(table, shapeColumn(table, name, `shape.value_columns.${i}`), `shape.value_columns.${i}`));
  const label = shape.label;
  const matches = 'when' in label ? compileWhen(label.when, table, 'shape.label.when') : null;
  const horizon = shape.horizon_days ?? SHAPE_DEFAULTS.horizon_days;
  const lookbacks = shape.lookback_days ?? SHAPE_DEFAULTS.lookback_days;
  const given = parseAsOf(shape.as_of);
  const log = readLog(table, opts.entityColumn, opts.timeColumn, (latest) => given ?? latest);
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

  const f = eventFrame(log, eventIdx, typeOf, values, matches);
  const outcomeName = 'lapsed' in label ? `lapsed_${horizon}d` : `${label.name}_next_${horizon}d`;
  const book = new NameBook([opts.entityColumn, outcomeName]);
  const names: string[] = [];
  for (const L of lookbacks) names.push(book.add(`event_count_${L}d`));
  valueNames.forEach((v) => lookbacks.forEach((L) => names.push(book.add(`${v}_sum_${L}d`), book.add(`${v}_avg_${L}d`))));
  types.forEach((t) => lookbacks.forEach((L) => names.push(book.add(`${slug(t)}_count_${L}d`))));
  names.push(book.add('days_since_last_event'), book.add('days_since_first_event'));

  const read = (at: number) => featuresAt(f, log.cases.length, at, lookbacks, valueNames.length, types.length);
  const train = read(cutoff);
  const outcome = spanBy(f, cutoff, asOf);
  const caseIdx = [...train.history.keys()].sort((a, b) => a - b);
  if (caseIdx.length === 0) {
    throw new ServiceError(
      'shape_empty',
      `No case has an event at or before ${formatTime(cutoff, false)} (as_of minus horizon_days), so nothing can be learned.`,
      { field: 'shape' },
    );
  }
  const ys: Cell[] = caseIdx.map((c) => {
    const o = outcome.get(c);
    if ('lapsed' in label) return o ? 0 : 1;
    return o && o.anyMatch === 1 ? 1 : 0;
  });
  const tableOut = buildTable(
    [opts.entityColumn, ...names, outcomeName],
    [caseIdx.map((c) => log.cases[c].id), ...train.columns.map((col) => caseIdx.map((c) => col[c])), ys],
  );
  const now = read(asOf);
  const allIdx = log.cases.map((_, c) => c);
  const current = buildTable(
    [opts.entityColumn, ...names, outcomeName],
    [allIdx.map((c) => log.cases[c].id), ...now.columns, allIdx.map(() => null)],
  );
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

/** The log as a frame: case c, time t, event type y (-1 when none or not counted), values v{j}, match m. */
function eventFrame(log: Log, eventIdx: number, typeOf: Map<string, number>, values: (number | null)[][], matches: ((r: number) => boolean) | null): Frame {
  const rows: number[] = [];
  const cs: number[] = [];
  log.cases.forEach((c, i) => c.rows.forEach((r) => (rows.push(r), cs.push(i))));
  const cols: Record<string, ArrayLike<unknown>> = {
    c: cs,
    t: rows.map((r) => log.times[r]),
    y: rows.map((r) => (eventIdx < 0 ? -1 : (typeOf.get(cellText(log.table.data[eventIdx][r]) ?? '') ?? -1))),
    m: rows.map((r) => (matches && matches(r) ? 1 : 0)),
  };
  values.forEach((v, j) => (cols[`v${j}`] = rows.map((r) => v[r])));
  return frame(cols);
}

/** Feature columns (indexed by case) read at `at`: only rows with t <= at are looked at. */
function featuresAt(f: Frame, nCases: number, at: number, lookbacks: readonly number[], nValues: number, nTypes: number) {
  const history = spanBy(f, -Infinity, at);
  const windows = lookbacks.map((L) => rollupWindow(f, nValues, at - L * DAY, at));
  const typeCounts = lookbacks.map((L) => countByType(f, at - L * DAY, at));
  const columns: Cell[][] = [];
  const col = (fill: (c: number) => Cell) => columns.push(Array.from({ length: nCases }, (_, c) => (history.has(c) ? fill(c) : null)));
  windows.forEach((w) => col((c) => w.get(c)?.n ?? 0));
  for (let j = 0; j < nValues; j++) {
    windows.forEach((w) => {
      col((c) => w.get(c)?.sum[j] ?? 0);
      col((c) => w.get(c)?.mean[j] ?? null);
    });
  }
  for (let y = 0; y < nTypes; y++) typeCounts.forEach((tc) => col((c) => tc.get(`${c}:${y}`) ?? 0));
  col((c) => (at - (history.get(c) as { last: number }).last) / DAY);
  col((c) => (at - (history.get(c) as { first: number }).first) / DAY);
  return { history, columns };
}
