// Inline `rows` (docs/reference/ask.md#data, docs/reference/ask.md#cases) into the raw table: column set is the union of keys.
import { ServiceError } from '../errors.ts';
import type { Cell, RawTable } from './types.ts';

/**
 * Reads an array of row objects into a column-major table. Columns are the union of keys in
 * first-appearance order (as `Object.keys` gives them: JSON.parse already lists integer-like keys
 * first); a key a row lacks is a missing value (null). Values must be string, number, boolean or
 * null; a nested object or array is `invalid_request` at `<field>.<i>.<key>`. A non-finite number
 * (impossible from JSON) and `undefined` become null.
 */
export function rowsToTable(rows: readonly object[], field = 'data.rows'): RawTable {
  const columns: string[] = [];
  const data: Cell[][] = [];
  const index = new Map<string, number>();
  const n = rows.length;

  // Rows usually share one key list: the column of each key is looked up again only when a row's
  // keys differ from the row before's (10,000 rows of 11 cells: 110,000 lookups otherwise).
  let lastKeys: string[] = [];
  let lastColumns: number[] = [];
  for (let r = 0; r < n; r++) {
    const row = rows[r] as Record<string, unknown>;
    if (row === null || typeof row !== 'object' || Array.isArray(row)) {
      throw new ServiceError('invalid_request', `Row ${r} is not an object.`, { field: `${field}.${r}` });
    }
    const keys = Object.keys(row);
    let same = keys.length === lastKeys.length;
    for (let i = 0; same && i < keys.length; i++) same = keys[i] === lastKeys[i];
    if (!same) {
      lastKeys = keys;
      lastColumns = keys.map((key) => {
        let c = index.get(key);
        if (c === undefined) {
          c = columns.length;
          index.set(key, c);
          columns.push(key);
          data.push(new Array<Cell>(n).fill(null));
        }
        return c;
      });
    }
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const value = row[key];
      let cell: Cell;
      if (value === null || value === undefined) cell = null;
      else if (typeof value === 'string' || typeof value === 'boolean') cell = value;
      else if (typeof value === 'number') cell = Number.isFinite(value) ? value : null;
      else {
        const what = Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : typeof value;
        throw new ServiceError('invalid_request', `Row ${r} column "${key}" is ${what}; use a string, number, boolean or null.`, {
          field: `${field}.${r}.${key}`,
        });
      }
      data[lastColumns[i]][r] = cell;
    }
  }
  return { columns, data, rowCount: n };
}
