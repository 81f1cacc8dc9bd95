// docs/reference/ask.md#shapes shared reading: named columns, times, as_of, and the log grouped into cases in canonical order.
import { ServiceError } from '../../errors.ts';
import { entityKey, parseIso8601, timeReaderFor } from '../select.ts';
import type { Cell, RawTable } from '../types.ts';
import { cellText, compareCodePoints, isMissing, parseNumber } from '../typing.ts';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** Index of a column the shape names; `shape_invalid` at `field` when the record lacks it. */
export function shapeColumn(table: RawTable, name: string, field: string): number {
  const c = table.columns.indexOf(name);
  if (c < 0) {
    throw new ServiceError('shape_invalid', `The record has no column ${JSON.stringify(name)} (named by ${field}).`, { field });
  }
  return c;
}

/**
 * A column the shape reads as numbers: every non-missing value must parse, else `shape_invalid` at
 * `field` quoting the smallest offending value (by code point, so the message does not depend on row order).
 */
export function numericColumn(table: RawTable, c: number, field: string): (number | null)[] {
  const cells = table.data[c];
  const out: (number | null)[] = new Array(table.rowCount);
  let bad: string | null = null;
  for (let r = 0; r < table.rowCount; r++) {
    const cell = cells[r];
    if (isMissing(cell)) out[r] = null;
    else {
      const x = parseNumber(cell);
      out[r] = x;
      if (x === null) {
        const t = cellText(cell) as string;
        if (bad === null || compareCodePoints(t, bad) < 0) bad = t;
      }
    }
  }
  if (bad !== null) {
    throw new ServiceError(
      'shape_invalid',
      `Column ${JSON.stringify(table.columns[c])} must hold numbers; it holds ${JSON.stringify(bad)}.`,
      { field },
    );
  }
  return out;
}

/**
 * How a shape uses its times. `instant` (events, signals): windows, horizons and `days_since_*` are
 * measured in days and hours, so only ISO 8601 dates and times are read (a bare 2024 or 20240315.5
 * is not an instant; 20240315 is the basic form of 2024-03-15). `order` (series, panel, traces): the
 * times only order a case's periods or runs, so plain numbers (period 1, 2, 3 or 202401) may stand
 * in for them, but not mixed with ISO 8601 times in one column.
 */
export type TimeUse = 'instant' | 'order';

/** A time column read: epoch ms (or the plain numbers as they are) per row, NaN when blank. */
export interface ReadTimes {
  times: Float64Array;
  /** True when the values are plain numbers (then they are written back as numbers). */
  numeric: boolean;
}

const ISO_EXAMPLES = '2024-03-15, 20240315, 2024-03-15T12:00:00Z (with or without a zone)';

/** Times of one column (see TimeUse); a value that cannot be read so is `shape_invalid` at `field`. */
export function readTimes(table: RawTable, c: number, field: string, use: TimeUse): ReadTimes {
  const cells = table.data[c];
  const out = new Float64Array(table.rowCount);
  // 20240315 is a date only in a column of dates (select.ts timeReaderFor); among plain numbers it is one
  const isoForms = timeReaderFor(cells).allIso ? 'any' : 'extended';
  // Logs repeat their times: each spelling is read once. Kind per spelling: 0 ISO, 1 plain number, 2 neither.
  const seen = new Map<Cell, number>();
  const kinds: number[] = [];
  const values: number[] = [];
  // The smallest offending text by code point, so the message does not depend on row order.
  const smallest: (string | null)[] = [null, null, null];
  for (let r = 0; r < table.rowCount; r++) {
    const cell = cells[r];
    let k = seen.get(cell);
    if (k === undefined) {
      k = kinds.length;
      seen.set(cell, k);
      if (isMissing(cell)) (kinds.push(-1), values.push(NaN));
      else {
        const iso = parseIso8601(cell, isoForms);
        const plain = iso === null ? parseNumber(cell) : null;
        const kind = iso !== null ? 0 : plain !== null ? 1 : 2;
        kinds.push(kind);
        values.push(iso ?? plain ?? NaN);
        const text = cellText(cell) as string;
        if (smallest[kind] === null || compareCodePoints(text, smallest[kind] as string) < 0) smallest[kind] = text;
      }
    }
    out[r] = values[k];
  }
  const name = JSON.stringify(table.columns[c]);
  if (smallest[2] !== null) {
    throw new ServiceError(
      'shape_invalid',
      `Column ${name} holds a value that is not a time: ${JSON.stringify(smallest[2])}. Use ISO 8601: ${ISO_EXAMPLES}` +
        (use === 'order' ? ', or plain numbers that order the periods (1, 2, 3).' : '.'),
      { field },
    );
  }
  if (smallest[1] !== null && use === 'instant') {
    throw new ServiceError(
      'shape_invalid',
      `Column ${name} holds plain numbers (the smallest: ${JSON.stringify(smallest[1])}), which are not times: this shape measures ` +
        `its windows in days and hours. Use ISO 8601 dates or times: ${ISO_EXAMPLES}.`,
      { field },
    );
  }
  if (smallest[0] !== null && smallest[1] !== null) {
    throw new ServiceError(
      'shape_invalid',
      `Column ${name} mixes ISO 8601 times (${JSON.stringify(smallest[0])}) and plain numbers (${JSON.stringify(smallest[1])}); ` +
        'use one or the other, so the order of its values means one thing.',
      { field },
    );
  }
  return { times: out, numeric: smallest[0] === null };
}

/**
 * docs/reference/ask.md#shapes `as_of` (events, signals): an ISO 8601 time, extended or basic, read like the time
 * column; anything else is `shape_invalid` at `shape.as_of` (a bare "2024" is a year, not an instant).
 */
export function parseAsOf(asOf: string | undefined): number | null {
  if (asOf === undefined) return null;
  const t = parseIso8601(asOf);
  if (t === null) {
    throw new ServiceError(
      'shape_invalid',
      `shape.as_of ${JSON.stringify(asOf)} is not an ISO 8601 time such as 2024-06-30, 20240630 or 2024-06-30T12:00:00Z.`,
      {
        field: 'shape.as_of',
      },
    );
  }
  return t;
}

/** How times are written back: ISO 8601 in UTC, so zoned, unzoned and date-only inputs read alike. */
export function formatTime(ms: number, numeric: boolean): string | number {
  if (numeric || !(Math.abs(ms) <= 8.64e15)) return ms;
  return new Date(ms).toISOString();
}

/** One case of a log: its id and its rows (input row indices) in canonical time order. */
export interface CaseRows {
  id: string;
  rows: number[];
}

/** A record read as a log (events, series, panel, signals, traces). */
export interface Log {
  table: RawTable;
  entityIdx: number;
  timeIdx: number;
  /** Per input row: epoch ms, NaN when blank. */
  times: Float64Array;
  /** True when the times are plain numbers (`order` use only): then they are written back as numbers. */
  numericTimes: boolean;
  /** Cases sorted by id (code point order). */
  cases: CaseRows[];
  /** The latest time among the rows kept (before any `until` cut); NaN when none. */
  latest: number;
  counts: Record<string, number>;
}

/**
 * Reads the entity and time columns (times as `use` allows), drops rows without an entity id or a
 * time (counted), drops rows after `until` (counted as `after_as_of`), and puts the rest in canonical
 * order (docs/design/architecture.md#determinism): entity id by code point, then time, then the row's
 * cells as text, so any order of the same rows reads the same.
 */
export function readLog(
  table: RawTable,
  entityColumn: string,
  timeColumnName: string,
  use: TimeUse,
  until?: (latest: number) => number,
): Log {
  if (!timeColumnName) {
    throw new ServiceError('shape_invalid', 'A shaped record needs time_column (docs/reference/ask.md#request).', { field: 'time_column' });
  }
  const entityIdx = table.columns.indexOf(entityColumn);
  if (entityIdx < 0) {
    throw new ServiceError('shape_invalid', `The record has no entity column ${JSON.stringify(entityColumn)}.`, { field: 'entity_column' });
  }
  const timeIdx = shapeColumn(table, timeColumnName, 'time_column');
  const { times, numeric } = readTimes(table, timeIdx, 'time_column', use);
  const entityCells = table.data[entityIdx];
  const ids: (string | null)[] = new Array(table.rowCount);
  let noEntity = 0;
  let noTime = 0;
  let latest = NaN;
  for (let r = 0; r < table.rowCount; r++) {
    const id = (ids[r] = entityKey(entityCells[r]));
    if (id === null) noEntity++;
    else if (Number.isNaN(times[r])) noTime++;
    else if (!(times[r] <= latest)) latest = times[r];
  }
  const cut = until ? until(latest) : Infinity;
  // Rows per entity in file order (one pass), then each entity's rows put in order on their own.
  const byId = new Map<string, number[]>();
  let after = 0;
  for (let r = 0; r < table.rowCount; r++) {
    const id = ids[r];
    if (id === null || Number.isNaN(times[r])) continue;
    if (!(times[r] <= cut)) {
      after++;
      continue;
    }
    const rows = byId.get(id);
    if (rows) rows.push(r);
    else byId.set(id, [r]);
  }
  const cases: CaseRows[] = [...byId.keys()]
    .sort(compareCodePoints)
    .map((id) => ({ id, rows: orderRows(table, byId.get(id) as number[], times) }));
  return {
    table,
    entityIdx,
    timeIdx,
    times,
    numericTimes: numeric,
    cases,
    latest,
    counts: {
      input_rows: table.rowCount,
      dropped_no_entity: noEntity,
      dropped_no_time: noTime,
      after_as_of: after,
    },
  };
}

/**
 * One entity's rows by time, rows that tie on time by their cells as text (only those: the text of
 * every row costs more than the sort). Identical rows may come in any order: they read the same.
 */
function orderRows(table: RawTable, rows: number[], times: Float64Array): number[] {
  rows.sort((a, b) => times[a] - times[b]);
  const text = (r: number) => table.data.map((col) => (col[r] === null || col[r] === undefined ? '' : String(col[r]))).join('\u0000');
  for (let i = 0; i < rows.length;) {
    let j = i + 1;
    while (j < rows.length && times[rows[j]] === times[rows[i]]) j++;
    if (j - i > 1) {
      const run = rows.slice(i, j).map((r) => ({ r, k: text(r) }));
      run.sort((a, b) => compareCodePoints(a.k, b.k));
      run.forEach((x, k) => (rows[i + k] = x.r));
    }
    i = j;
  }
  return rows;
}

/**
 * Keeps one row per (case, time): the last in canonical order (the greatest row text), so a
 * duplicated period cannot depend on file order. Returns the number of rows dropped.
 */
export function dedupePeriods(log: Log): number {
  let dropped = 0;
  for (const c of log.cases) {
    const out: number[] = [];
    for (const r of c.rows) {
      const prev = out[out.length - 1];
      if (prev !== undefined && log.times[prev] === log.times[r]) {
        out[out.length - 1] = r;
        dropped++;
      } else out.push(r);
    }
    c.rows = out;
  }
  return dropped;
}

/** A column-major table from named columns. */
export function buildTable(columns: string[], data: Cell[][]): RawTable {
  return { columns, data, rowCount: data.length > 0 ? data[0].length : 0 };
}
