// Encodes a table of cases into the engine's typed arrays (docs/design/engine.md#step-3): column typing,
// sorted dictionaries, and the columns the host excludes with their reason. Strings stay here.
import type { Cell, RawTable } from '../table/types.ts';
import { encodeCategorical, isMissing, parseNumber } from '../table/typing.ts';
import { entityKey, timeReaderFor } from '../table/select.ts';

export type ExclusionWhy =
  | 'entity'
  | 'time'
  // docs/decisions/0001-group-column.md group_column: the case each row belongs to
  | 'group'
  | 'identifier'
  | 'constant'
  | 'restates_outcome'
  | 'unusable'
  | 'outcome'
  // docs/reference/models.md#profile: a namespace profile's `exclude`
  | 'excluded_by_caller';

export interface EncodedColumn {
  name: string;
  kind: 'numeric' | 'categorical' | 'skip';
  why?: ExclusionWhy;
  values?: Float64Array; // numeric
  codes?: Int32Array; // categorical
  dictionary?: string[]; // categorical, sorted by code point
}

export interface EncodedTable {
  nRows: number;
  /** Each row's held-out unit: its entity id, or its group_column value when one is given (EncodeOptions). */
  entityIds: string[];
  entityBytes: Uint8Array;
  entityOffsets: Int32Array;
  outcome: Float64Array; // 1, 0, NaN
  time: Float64Array | null;
  columns: EncodedColumn[];
}

export interface EncodeOptions {
  entityColumn: string;
  outcomeColumn: string;
  /** Outcome per row: 1, 0 or NaN (unlabeled), resolved by the caller from positive values. */
  outcome: Float64Array;
  timeColumn?: string;
  /**
   * docs/reference/ask.md#request: the column naming the case each row belongs to, when it is not the entity column. The
   * engine orders, holds out and folds rows by its value instead of the entity's, so a case's rows are never
   * split between training and the held-out test.
   */
  groupColumn?: string;
  /** Extra columns the caller wants left out (for example other outcome columns of the same ask). */
  skip?: ReadonlyMap<string, ExclusionWhy>;
}

/** A categorical column with nearly all values distinct is an identifier, not a predictor. */
const IDENTIFIER_DISTINCT_SHARE = 0.9;
const IDENTIFIER_MIN_VALUES = 20;

export function encodeTable(table: RawTable, opts: EncodeOptions): EncodedTable {
  const n = table.rowCount;
  if (opts.outcome.length !== n) throw new Error(`outcome has ${opts.outcome.length} values for ${n} rows`);
  const entityIdx = table.columns.indexOf(opts.groupColumn ?? opts.entityColumn);
  if (entityIdx < 0) throw new Error(`column ${opts.groupColumn ?? opts.entityColumn} is not in the table`);
  if (!table.columns.includes(opts.entityColumn)) throw new Error(`entity column ${opts.entityColumn} is not in the table`);
  const entityIds: string[] = new Array(n);
  const enc = new TextEncoder();
  const offsets = new Int32Array(n + 1);
  // UTF-8 of every id into one growing buffer (encodeInto: no array per row); at most 3 bytes a UTF-16 unit
  let entityBytes = new Uint8Array(Math.max(64, n * 16));
  let total = 0;
  for (let r = 0; r < n; r++) {
    const id = entityKey(table.data[entityIdx][r] as Cell) ?? '';
    entityIds[r] = id;
    offsets[r] = total;
    if (total + id.length * 3 > entityBytes.length) {
      const grown = new Uint8Array(Math.max(entityBytes.length * 2, total + id.length * 3));
      grown.set(entityBytes.subarray(0, total));
      entityBytes = grown;
    }
    total += enc.encodeInto(id, entityBytes.subarray(total)).written;
  }
  offsets[n] = total;
  entityBytes = entityBytes.slice(0, total);

  let time: Float64Array | null = null;
  if (opts.timeColumn !== undefined) {
    const ti = table.columns.indexOf(opts.timeColumn);
    if (ti < 0) throw new Error(`time column ${opts.timeColumn} is not in the table`);
    time = new Float64Array(n);
    const { read } = timeReaderFor(table.data[ti]);
    for (let r = 0; r < n; r++) time[r] = read(table.data[ti][r]) ?? NaN;
  }

  const columns: EncodedColumn[] = [];
  table.columns.forEach((name, c) => {
    if (name === opts.outcomeColumn) return;
    if (name === opts.entityColumn) return void columns.push({ name, kind: 'skip', why: 'entity' });
    if (name === opts.groupColumn) return void columns.push({ name, kind: 'skip', why: 'group' });
    if (name === opts.timeColumn) return void columns.push({ name, kind: 'skip', why: 'time' });
    const extra = opts.skip?.get(name);
    if (extra) return void columns.push({ name, kind: 'skip', why: extra });
    columns.push(encodeColumn(name, table.data[c]));
  });
  return { nRows: n, entityIds, entityBytes, entityOffsets: offsets, outcome: opts.outcome, time, columns };
}

/**
 * Types and encodes one column in as few passes as the answer allows: numbers are read once into the
 * values the engine gets (typing.ts inferColumn and encodeNumeric would read each cell twice and keep a
 * set of every distinct number, which encoding does not need); a column found not to be numeric is
 * encoded as categories, and its dictionary gives the distinct count the identifier check needs.
 */
function encodeColumn(name: string, cells: Cell[]): EncodedColumn {
  const n = cells.length;
  const values = new Float64Array(n);
  let missing = 0;
  let numeric = true;
  for (let r = 0; r < n; r++) {
    const cell = cells[r];
    // A cell that reads as a finite number is never missing (no missing token is a decimal, and
    // isMissing's numbers are the infinite ones), so the number is tried first: a numeric column's cells
    // are then read once, not also matched against the missing tokens and a regex (~1 s at 9,000,000 cells).
    const x = parseNumber(cell);
    if (x !== null) {
      values[r] = x;
      continue;
    }
    if (isMissing(cell)) {
      values[r] = NaN;
      missing++;
      continue;
    }
    numeric = false;
    break;
  }
  if (numeric) return missing === n ? { name, kind: 'skip', why: 'constant' } : { name, kind: 'numeric', values };
  const { codes, dictionary } = encodeCategorical(cells);
  let present = 0;
  for (let r = 0; r < n; r++) if (codes[r] >= 0) present++;
  if (present >= IDENTIFIER_MIN_VALUES && dictionary.length >= IDENTIFIER_DISTINCT_SHARE * present) {
    return { name, kind: 'skip', why: 'identifier' };
  }
  return { name, kind: 'categorical', codes, dictionary };
}

/** Number of non-missing cells (used by callers that describe columns). */
export function presentCount(cells: readonly Cell[]): number {
  let k = 0;
  for (const c of cells) if (!isMissing(c)) k++;
  return k;
}
