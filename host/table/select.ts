// Case selection for asks (docs/reference/ask.md#cases `cases.ids`, 2.6 `time_column`): each entity's latest row.
import { ServiceError } from '../errors.ts';
import type { Cell, RawTable } from './types.ts';
import { compareCodePoints, parseNumber } from './typing.ts';

// ISO 8601 extended (2024-03-15T12:30:00Z) and basic (20240315T123000Z) forms; the basic form has
// no separators, so its time of day needs a `T` (a bare `20240315 1230` is not taken).
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;
const ISO_BASIC = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(?:(\d{2})(?:[.,](\d+))?)?)?\s*(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

/**
 * Epoch ms of an ISO 8601 date or date-time, or null. Extended form: `YYYY-MM-DD` (UTC midnight),
 * `YYYY-MM-DD[T ]hh:mm[:ss[.fff]]`; basic form: `YYYYMMDD`, `YYYYMMDDThhmm[ss[.fff]]`. A time of day
 * is read as UTC unless it ends in `Z` or an offset `±hh`, `±hhmm`, `±hh:mm`, which is honoured.
 * Out-of-range parts (month 13, 30 February, hour 24) give null. A number is taken only when its
 * digits are a basic date (the number 20240315 is 2024-03-15, as a CSV cell and a JSON number read alike).
 */
export function parseIso8601(cell: unknown, forms: 'any' | 'extended' = 'any'): number | null {
  let s: string;
  if (typeof cell === 'number') {
    if (!Number.isInteger(cell) || cell < 10_000_000 || cell > 99_999_999) return null;
    s = String(cell);
  } else if (typeof cell === 'string') s = cell.trim();
  else return null;
  const m = ISO.exec(s) ?? (forms === 'any' ? ISO_BASIC.exec(s) : null);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [h, mi, sec] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || sec > 59) return null;
  if (m[4] === undefined && m[9] !== undefined) return null; // an offset needs a time of day
  const ms = m[7] === undefined ? 0 : Number(`${m[7]}00`.slice(0, 3)); // below 1 ms is dropped
  let offset = 0;
  if (m[9] !== undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11] ?? 0);
    if (oh > 23 || om > 59) return null;
    offset = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  return ((daysFromCivil(y, mo, d) * 24 + h) * 60 + mi - offset) * 60_000 + sec * 1000 + ms;
}

/**
 * A cell as a point in time for ordering rows (docs/reference/ask.md#cases "the latest wins", the engine's out-of-time
 * split): an ISO 8601 time (parseIso8601) in epoch ms, else a plain number (or number string) as it
 * is, else null. Plain numbers only order rows here; shapes that measure days and hours refuse them
 * (host/table/shapes/read.ts `readTimes`).
 */
export function parseTime(cell: unknown): number | null {
  return parseIso8601(cell) ?? plainTime(cell);
}

function plainTime(cell: unknown): number | null {
  if (typeof cell === 'number') return Number.isFinite(cell) ? (cell === 0 ? 0 : cell) : null;
  return typeof cell === 'string' ? parseNumber(cell) : null;
}

/**
 * How one column's values read as times, decided for the whole column: when every value is an ISO
 * 8601 time, extended or basic, they are read as times (20240315 is a date); otherwise a value that
 * merely looks like a basic date is a number like its neighbours (a column of sequence numbers or
 * epoch minutes, where 28120115 happens to spell a day, stays a column of numbers).
 */
export function timeReaderFor(cells: readonly unknown[]): { read: (cell: unknown) => number | null; allIso: boolean } {
  let allIso = true;
  const checked = new Set<unknown>();
  for (const cell of cells) {
    if (checked.has(cell)) continue;
    checked.add(cell);
    if (cell === null || cell === undefined || (typeof cell === 'string' && cell.trim() === '')) continue;
    if (parseIso8601(cell) === null) {
      allIso = false;
      break;
    }
  }
  return allIso ? { read: (c) => parseIso8601(c), allIso } : { read: (c) => parseIso8601(c, 'extended') ?? plainTime(c), allIso };
}

function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm; no Date quirks). */
function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The entity id of a cell: trimmed text (numbers in canonical form); null when empty or null. */
export function entityKey(cell: Cell | undefined): string | null {
  if (cell === null || cell === undefined) return null;
  if (typeof cell === 'number') return Number.isFinite(cell) ? String(cell === 0 ? 0 : cell) : null;
  const s = typeof cell === 'string' ? cell.trim() : String(cell);
  return s === '' ? null : s;
}

/** Index of a named column; `invalid_request` at `field` when the table has no such column. */
export function columnIndex(table: RawTable, name: string, field: string): number {
  const c = table.columns.indexOf(name);
  if (c < 0) throw new ServiceError('invalid_request', `The record has no column "${name}".`, { field });
  return c;
}

/**
 * Per entity id, the index of its latest row (docs/reference/ask.md#cases: "with several rows per id the latest wins").
 * With a time column: the greatest `parseTime` (a row without a readable time is earliest); equal
 * times are broken by the row's cells compared as text, column by column (missing first), taking
 * the greatest, so the choice does not depend on row order (only fully identical rows remain, and
 * then the last in file order is returned). Without a time column the last row in file order wins.
 * Rows with an empty entity id are skipped. `only`: the ids to index (every id when absent); the others are
 * skipped, and each of these gets the row it would get in the whole index.
 */
export function latestRowPerEntity(
  table: RawTable,
  entityColumn: string,
  timeColumn?: string,
  only?: ReadonlySet<string>,
): Map<string, number> {
  const ec = columnIndex(table, entityColumn, 'entity_column');
  const tc = timeColumn === undefined ? -1 : columnIndex(table, timeColumn, 'time_column');
  const ids = table.data[ec];
  const readTime = tc < 0 ? parseTime : timeReaderFor(table.data[tc]).read;
  const latest = new Map<string, number>();
  const times = new Map<string, number | null>();
  for (let r = 0; r < table.rowCount; r++) {
    const id = entityKey(ids[r]);
    if (id === null || (only !== undefined && !only.has(id))) continue;
    const best = latest.get(id);
    if (tc < 0 || best === undefined) {
      latest.set(id, r);
      if (tc >= 0) times.set(id, readTime(table.data[tc][r]));
      continue;
    }
    const t = readTime(table.data[tc][r]);
    const bt = times.get(id) as number | null;
    const cmp = t === bt ? compareRows(table, r, best) : t === null ? -1 : bt === null ? 1 : t - bt;
    if (cmp >= 0) {
      latest.set(id, r);
      times.set(id, t);
    }
  }
  return latest;
}

/** Compares two rows' cells as text, column by column; a missing cell sorts first. */
function compareRows(table: RawTable, a: number, b: number): number {
  for (const col of table.data) {
    const x = col[a];
    const y = col[b];
    if (x === y) continue;
    if (x === null || x === undefined) return y === null || y === undefined ? 0 : -1;
    if (y === null || y === undefined) return 1;
    const cmp = compareCodePoints(String(x), String(y));
    if (cmp !== 0) return cmp;
  }
  return 0;
}
