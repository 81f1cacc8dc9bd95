// docs/reference/map.md#snapshots `snapshots` (grid form): an event log read as a row per case per `snapshot_every`, the
// outcome an event within `horizon` after each reading (blank until that window has closed by as_of).
import { ServiceError } from '../../errors.ts';
import type { Shape } from '../../schemas/shape.ts';
import type { Cell, RawTable } from '../types.ts';
import { entityKey } from '../select.ts';
import { compareCodePoints } from '../typing.ts';
import { EventCounter, eventTypes } from './events.ts';
import { NameBook, slug } from './names.ts';
import { emptyShape } from './outcome.ts';
import { DAY, buildTable, formatTime, numericColumn, parseAsOf, readLog, readTimes, shapeColumn, type Log } from './read.ts';
import type { ShapeOptions, ShapedRecord } from './types.ts';
import { compileWhen, type RowTest } from './when.ts';

export type SnapshotsShape = Extract<Shape, { kind: 'snapshots' }>;
export type GridEvery = NonNullable<SnapshotsShape['snapshot_every']>;

export const GRID_EVERY_DAYS: Record<GridEvery, number> = { '1d': 1, '1w': 7, '4w': 28 };
/** docs/reference/ask.md#request default lookbacks of a grid. */
export const GRID_LOOKBACKS_DEFAULT = [30, 90] as const;

/** What makes a reading's outcome a yes (docs/reference/ask.md#request `label` or `outcome_time_column`). */
export type GridOutcome =
  | { kind: 'lapsed' }
  | { kind: 'when'; name: string; test: RowTest }
  /** One outcome time per case (its earliest); readings at or after it are dropped (the case has ended). */
  | { kind: 'time'; column: string; times: ReadonlyMap<string, number> };

export interface GridParams {
  every: GridEvery;
  horizonDays: number;
  lookbacks: readonly number[];
  terminal: boolean;
  valueColumns: readonly string[];
  valueField: (i: number) => string;
  eventColumn?: { name: string; field: string };
}

/** The label column of a grid: `lapsed_{h}d`, `{name}_next_{h}d`, `{column}_next_{h}d` (docs/reference/ask.md#request). */
export function gridLabelName(outcome: GridOutcome, horizonDays: number): string {
  if (outcome.kind === 'lapsed') return `lapsed_${horizonDays}d`;
  if (outcome.kind === 'when') return `${outcome.name}_next_${horizonDays}d`;
  return `${slug(outcome.column)}_next_${horizonDays}d`;
}

/** Fields only one form takes (docs/reference/ask.md#request): named when sent with the other form. */
const GRID_ONLY = ['snapshot_every', 'horizon', 'label', 'lookbacks_days', 'terminal', 'as_of'] as const;
const TABLE_ONLY = ['snapshot_id_column', 'snapshot_time_column', 'lookback_days'] as const;

function formError(field: string, detail: string): ServiceError {
  return new ServiceError('shape_invalid', detail, {
    field: `shape.${field}`,
    remedy:
      'A snapshots grid takes snapshot_every, horizon and one of label / outcome_time_column; the table form takes snapshots, ' +
      'snapshot_id_column, snapshot_time_column and optionally outcome_time_column and lookback_days.',
  });
}

/** Reads `shape` over the log `table` (grid form, or table form with opts.snapshots): the entry of applyShape. */
export function shapeSnapshots(table: RawTable, shape: SnapshotsShape, opts: ShapeOptions): ShapedRecord {
  if (shape.snapshots !== undefined) {
    const stray = GRID_ONLY.find((k) => shape[k] !== undefined);
    if (stray) throw formError(stray, `shape.${stray} belongs to the grid form; with shape.snapshots the snapshot table sets the moments.`);
    for (const k of ['snapshot_id_column', 'snapshot_time_column'] as const) {
      if (shape[k] === undefined) throw formError(k, `shape.${k} is required with shape.snapshots (the table form).`);
    }
    return readSnapshotTable(table, opts.snapshots!, shape, opts);
  }
  const stray = TABLE_ONLY.find((k) => shape[k] !== undefined);
  if (stray) throw formError(stray, `shape.${stray} belongs to the table form, which needs shape.snapshots.`);
  for (const k of ['snapshot_every', 'horizon'] as const) {
    if (shape[k] === undefined)
      throw formError(k, `shape.${k} is required by a snapshots grid (or send shape.snapshots for the table form).`);
  }
  const hasLabel = shape.label !== undefined;
  const hasTime = shape.outcome_time_column !== undefined;
  if (hasLabel === hasTime) {
    throw new ServiceError(
      'shape_invalid',
      hasLabel
        ? 'A snapshots grid takes exactly one of label and outcome_time_column; both were given.'
        : 'A snapshots grid needs exactly one of label ({lapsed: true} or {name, when}) and outcome_time_column.',
      {
        field: 'shape.label',
        remedy:
          'Send shape.label ({lapsed: true} or {name, when}) or shape.outcome_time_column (the column holding when the outcome happened), not both.',
      },
    );
  }
  let given: number | null = null;
  const log = readLog(table, opts.entityColumn, opts.timeColumn, 'instant', (latest) => (given = parseAsOf(shape.as_of)) ?? latest);
  const asOf = given ?? log.latest;
  let outcome: GridOutcome;
  if (shape.label !== undefined) {
    const label = shape.label;
    outcome =
      'lapsed' in label ? { kind: 'lapsed' } : { kind: 'when', name: label.name, test: compileWhen(label.when, table, 'shape.label.when') };
  } else {
    const column = shape.outcome_time_column!;
    outcome = { kind: 'time', column, times: outcomeTimesOf(log, column, 'shape.outcome_time_column') };
  }
  const terminal = shape.terminal ?? outcome.kind !== 'when';
  return readGrid(log, asOf, outcome, {
    every: shape.snapshot_every!,
    horizonDays: shape.horizon!.value,
    lookbacks: shape.lookbacks_days ?? GRID_LOOKBACKS_DEFAULT,
    terminal,
    valueColumns: shape.value_columns ?? [],
    valueField: (i) => `shape.value_columns.${i}`,
    ...(shape.event_column !== undefined ? { eventColumn: { name: shape.event_column, field: 'shape.event_column' } } : {}),
  });
}

/** Each case's earliest time in `column` of the log (blank cells skipped); a non-time is `shape_invalid` at `field`. */
export function outcomeTimesOf(log: Log, column: string, field: string): Map<string, number> {
  const times = readTimes(log.table, shapeColumn(log.table, column, field), field, 'instant').times;
  const out = new Map<string, number>();
  for (const c of log.cases) {
    let first = NaN;
    for (const r of c.rows) if (!Number.isNaN(times[r]) && !(times[r] >= first)) first = times[r];
    if (!Number.isNaN(first)) out.set(c.id, first);
  }
  return out;
}

/**
 * The grid: readings at as_of - k * snapshot_every (k = 0, 1, ...), so the last reading of every case
 * still running is at as_of itself (today's open cases). A case has a reading at s once it has an
 * event at or before s; the features are the events shape's, read at s from rows at or before s. The
 * label of the reading at s looks at (s, s + horizon]: blank when that reaches past as_of. With
 * `terminal`, a case ends at its first yes (later readings are dropped); with an outcome time, readings
 * at or after it are dropped whatever `terminal` says (the outcome has happened).
 */
export function readGrid(log: Log, asOf: number, outcome: GridOutcome, p: GridParams): ShapedRecord {
  const table = log.table;
  const eventIdx = p.eventColumn ? shapeColumn(table, p.eventColumn.name, p.eventColumn.field) : -1;
  const values = p.valueColumns.map((name, i) => numericColumn(table, shapeColumn(table, name, p.valueField(i)), p.valueField(i)));
  const types = eventIdx < 0 ? { names: [], ofRow: new Int32Array(0) } : eventTypes(log, eventIdx, asOf);
  const entityName = table.columns[log.entityIdx];
  const timeName = table.columns[log.timeIdx];
  const labelName = gridLabelName(outcome, p.horizonDays);
  const book = new NameBook([entityName, timeName, labelName]);
  const names: string[] = [];
  for (const L of p.lookbacks) names.push(book.add(`event_count_${L}d`));
  p.valueColumns.forEach((v) => p.lookbacks.forEach((L) => names.push(book.add(`${v}_sum_${L}d`), book.add(`${v}_avg_${L}d`))));
  types.names.forEach((t) => p.lookbacks.forEach((L) => names.push(book.add(`${slug(t)}_count_${L}d`))));
  names.push(book.add('days_since_last_event'), book.add('days_since_first_event'));

  const counter = new EventCounter(log, p.lookbacks, values, types.names.length, types.ofRow);
  const step = GRID_EVERY_DAYS[p.every] * DAY;
  const horizon = p.horizonDays * DAY;
  let earliest = Infinity;
  for (const c of log.cases) if (c.rows.length > 0) earliest = Math.min(earliest, log.times[c.rows[0]]);
  // grid times, oldest first
  const grid: number[] = [];
  for (let s = asOf; s >= earliest; s -= step) grid.push(s);
  grid.reverse();
  const allIdx = log.cases.map((_, c) => c);
  // per case: its readings (grid index, feature cells, label), oldest first
  const perCase: { k: number; cells: Cell[]; y: Cell }[][] = log.cases.map(() => []);
  const ended = new Uint8Array(log.cases.length);
  let afterOutcome = 0;
  grid.forEach((s, k) => {
    const read = counter.read(s, allIdx);
    const closed = s + horizon <= asOf;
    const win = closed ? counter.window(s, s + horizon, outcome.kind === 'when' ? outcome.test : null) : null;
    allIdx.forEach((c) => {
      if (!read.has[c] || ended[c]) return;
      const id = log.cases[c].id;
      let y: Cell = null;
      if (outcome.kind === 'time') {
        const t = outcome.times.get(id);
        if (t !== undefined && s >= t) {
          ended[c] = 1;
          afterOutcome++;
          return;
        }
        if (closed) y = t !== undefined && t > s && t <= s + horizon ? 1 : 0;
      } else if (win) {
        y = outcome.kind === 'lapsed' ? (win.events[c] > 0 ? 0 : 1) : win.matches[c] > 0 ? 1 : 0;
      }
      perCase[c].push({ k, cells: read.columns.map((col) => col[c]), y });
      if (p.terminal && y === 1) ended[c] = 1;
    });
  });
  const ids: string[] = [];
  const times: Cell[] = [];
  const cols: Cell[][] = names.map(() => []);
  const ys: Cell[] = [];
  perCase.forEach((readings, c) => {
    for (const r of readings) {
      ids.push(log.cases[c].id);
      times.push(formatTime(grid[r.k], false));
      r.cells.forEach((x, j) => cols[j].push(x));
      ys.push(r.y);
    }
  });
  if (ids.length === 0) emptyShape('snapshots', `no case has an event at or before as_of (${log.cases.length} cases in the log).`);
  const labeled = ys.filter((y) => y !== null).length;
  const openCases = perCase.filter((rs) => rs.length > 0 && rs[rs.length - 1].k === grid.length - 1).length;
  const header = [entityName, timeName, ...names, labelName];
  // Each case's latest reading, the rows its cases are scored from (at as_of while it runs).
  const last: number[] = [];
  for (let i = 0; i < ids.length; i++) if (i + 1 === ids.length || ids[i + 1] !== ids[i]) last.push(i);
  const pick = (col: Cell[]) => last.map((i) => col[i]);
  return {
    table: buildTable(header, [ids, times, ...cols, ys]),
    outcomeColumn: labelName,
    entityColumn: entityName,
    readingTimeColumn: timeName,
    // No timeColumn: the fit holds out whole cases by entity hash (docs/reference/ask.md#request "Both hold out whole
    // cases"). Held out by latest time instead, the held-out part would be the cases still running at
    // as_of, which with `terminal` are exactly the cases that never had a yes.
    current: buildTable(header, [pick(ids), pick(times), ...cols.map(pick), pick(ys)]),
    asOf: String(formatTime(asOf, false)),
    counts: {
      ...log.counts,
      entities: log.cases.length,
      readings_per_case_max: grid.length,
      cases: perCase.filter((rs) => rs.length > 0).length,
      rows: ids.length,
      labeled,
      positives: ys.filter((y) => y === 1).length,
      open: openCases,
      // cases whose readings stopped at their outcome time (not at a terminal yes before it)
      dropped_after_outcome: afterOutcome,
    },
    features: names,
    kept: [],
  };
}

/**
 * Table form (docs/reference/map.md#snapshots): each row of the snapshot table is one reading of its case (the entity column)
 * at its snapshot_time_column, with the events shape's features from the log's events up to that time and
 * the snapshot table's other columns (its outcome among them) as given. A snapshot at or after its own
 * outcome_time_column is dropped and counted. The fit holds out whole cases (the entity column); the rows
 * scored are keyed by snapshot id, so cases.ids name snapshots.
 */
function readSnapshotTable(table: RawTable, snaps: RawTable, shape: SnapshotsShape, opts: ShapeOptions): ShapedRecord {
  const idName = shape.snapshot_id_column!;
  const atName = shape.snapshot_time_column!;
  const idIdx = shapeColumn(snaps, idName, 'shape.snapshot_id_column');
  const atIdx = shapeColumn(snaps, atName, 'shape.snapshot_time_column');
  const entityIdx = snaps.columns.indexOf(opts.entityColumn);
  if (entityIdx < 0) {
    throw new ServiceError(
      'shape_invalid',
      `The snapshot table has no entity column ${JSON.stringify(opts.entityColumn)}: each snapshot names its case.`,
      {
        field: 'shape.snapshots',
      },
    );
  }
  const at = readTimes(snaps, atIdx, 'shape.snapshot_time_column', 'instant').times;
  const outcomeAt =
    shape.outcome_time_column !== undefined
      ? readTimes(snaps, shapeColumn(snaps, shape.outcome_time_column, 'shape.outcome_time_column'), 'shape.outcome_time_column', 'instant')
          .times
      : null;
  const log = readLog(table, opts.entityColumn, opts.timeColumn, 'instant');
  const eventIdx = shape.event_column === undefined ? -1 : shapeColumn(table, shape.event_column, 'shape.event_column');
  const valueNames = shape.value_columns ?? [];
  const values = valueNames.map((name, i) =>
    numericColumn(table, shapeColumn(table, name, `shape.value_columns.${i}`), `shape.value_columns.${i}`),
  );
  const lookbacks = shape.lookback_days ?? GRID_LOOKBACKS_DEFAULT;
  const types = eventIdx < 0 ? { names: [], ofRow: new Int32Array(0) } : eventTypes(log, eventIdx, log.latest);
  // the outcome time is not a feature: known for a snapshot only once its outcome has happened
  const framing = new Set([idName, atName, opts.entityColumn, shape.outcome_time_column]);
  const passed = snaps.columns.filter((c) => !framing.has(c));
  const book = new NameBook([opts.entityColumn, ...passed]);
  const names: string[] = [];
  for (const L of lookbacks) names.push(book.add(`event_count_${L}d`));
  valueNames.forEach((v) => lookbacks.forEach((L) => names.push(book.add(`${v}_sum_${L}d`), book.add(`${v}_avg_${L}d`))));
  types.names.forEach((t) => lookbacks.forEach((L) => names.push(book.add(`${slug(t)}_count_${L}d`))));
  names.push(book.add('days_since_last_event'), book.add('days_since_first_event'));
  const counter = new EventCounter(log, lookbacks, values, types.names.length, types.ofRow);
  const caseOf = new Map(log.cases.map((c, i) => [c.id, i]));
  const ids: string[] = [];
  const snapIds: string[] = [];
  const feat: Cell[][] = names.map(() => []);
  const kept: Cell[][] = passed.map(() => []);
  const seen = new Set<string>();
  let dropped = 0;
  let noTime = 0;
  // snapshots in a canonical order (snapshot id by code point), so row order never matters
  const order = [...Array(snaps.rowCount).keys()]
    .filter((r) => {
      const sid = entityKey(snaps.data[idIdx][r]);
      if (sid === null)
        throw new ServiceError('shape_invalid', `Row ${r + 1} of the snapshot table has no ${idName}.`, {
          field: 'shape.snapshot_id_column',
        });
      if (seen.has(sid))
        throw new ServiceError('shape_invalid', `${idName} ${JSON.stringify(sid)} names two snapshots: each id names one.`, {
          field: 'shape.snapshot_id_column',
        });
      seen.add(sid);
      return true;
    })
    .sort((a, b) => compareCodePoints(entityKey(snaps.data[idIdx][a])!, entityKey(snaps.data[idIdx][b])!));
  for (const r of order) {
    const id = entityKey(snaps.data[entityIdx][r]);
    if (id === null || Number.isNaN(at[r])) {
      noTime++;
      continue;
    }
    if (outcomeAt && !Number.isNaN(outcomeAt[r]) && at[r] >= outcomeAt[r]) {
      dropped++;
      continue;
    }
    const c = caseOf.get(id);
    const read = c === undefined ? null : counter.read(at[r], [c]);
    names.forEach((_, j) => {
      if (read && read.has[c!]) feat[j].push(read.columns[j][0]);
      // no event up to the snapshot: counts and sums 0, averages and recency blank
      else feat[j].push(names[j].startsWith('days_since_') || names[j].includes('_avg_') ? null : 0);
    });
    ids.push(id);
    snapIds.push(entityKey(snaps.data[idIdx][r])!);
    passed.forEach((p, k) => kept[k].push(snaps.data[snaps.columns.indexOf(p)][r]));
  }
  if (ids.length === 0) emptyShape('snapshots', `no snapshot has a case, a time and a moment before its outcome (${snaps.rowCount} rows).`);
  const header = [opts.entityColumn, ...names, ...passed];
  return {
    table: buildTable(header, [ids, ...feat, ...kept]),
    outcomeColumn: '',
    entityColumn: opts.entityColumn,
    asOf: String(formatTime(log.latest, false)),
    counts: {
      ...log.counts,
      snapshots: snaps.rowCount,
      rows: ids.length,
      cases: new Set(ids).size,
      dropped_after_outcome: dropped,
      dropped_no_case_or_time: noTime,
    },
    features: names,
    kept: passed,
    current: buildTable(header, [snapIds, ...feat, ...kept]),
  };
}
