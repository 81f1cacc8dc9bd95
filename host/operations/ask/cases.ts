// The cases an ask answers about (spec 2.4): ids resolved to each id's latest row, new rows as
// given, or (rank without cases) every entity of the record. Produces one table of case rows.
import { ServiceError } from '../../errors.ts';
import { rowsToTable } from '../../table/rows.ts';
import { entityKey, latestRowPerEntity } from '../../table/select.ts';
import type { Cell, RawTable } from '../../table/types.ts';
import type { Cases } from '../../schemas/index.ts';
import { compareCodePoints } from '../../table/typing.ts';

export interface CaseSet {
  table: RawTable;
  entityIds: string[];
}

const MAX_LISTED = 20;

/** Rows `idx` of `table` as a new table (column-major copy of just those rows). */
export function pickRows(table: RawTable, idx: number[]): RawTable {
  return { columns: table.columns, data: table.data.map((col) => idx.map((r) => col[r])), rowCount: idx.length };
}

export function selectCases(record: RawTable, cases: Cases | undefined, entityColumn: string, timeColumn: string | undefined): CaseSet {
  const latest = () => latestRows(record, entityColumn, timeColumn);
  if (cases === undefined) {
    // rank over the whole record: each entity once, by its latest row, in a stable order
    const map = latest();
    const ids = [...map.keys()].sort(compareIds);
    return {
      table: pickRows(
        record,
        ids.map((id) => map.get(id)!),
      ),
      entityIds: ids,
    };
  }
  if (cases.ids !== undefined) {
    const map = latest();
    const unknown = cases.ids.filter((id) => !map.has(id));
    if (unknown.length > 0) {
      const listed = unknown
        .slice(0, MAX_LISTED)
        .map((id) => JSON.stringify(id))
        .join(', ');
      const more = unknown.length > MAX_LISTED ? ` and ${unknown.length - MAX_LISTED} more` : '';
      throw new ServiceError('unknown_case_id', `${unknown.length} id(s) do not appear in ${entityColumn}: ${listed}${more}`, {
        field: 'cases.ids',
        extra: { unknown_ids: unknown.slice(0, 100) },
      });
    }
    return {
      table: pickRows(
        record,
        cases.ids.map((id) => map.get(id)!),
      ),
      entityIds: [...cases.ids],
    };
  }
  const table = rowsToTable(cases.rows!, 'cases.rows');
  const e = table.columns.indexOf(entityColumn);
  const ids: string[] = [];
  const missingAt: number[] = [];
  for (let r = 0; r < table.rowCount; r++) {
    const id = e >= 0 ? entityKey(table.data[e][r] as Cell) : null;
    if (id === null) missingAt.push(r);
    ids.push(id ?? '');
  }
  if (missingAt.length > 0) {
    throw new ServiceError(
      'row_not_scoreable',
      `case rows lack the entity column ${entityColumn} (rows ${missingAt.slice(0, MAX_LISTED).join(', ')})`,
      {
        field: 'cases',
        extra: { missing_columns: [entityColumn] },
      },
    );
  }
  return { table, entityIds: ids };
}

// Tables from the sample and sealed-dataset caches are the same objects ask after ask: their
// entity index is computed once (an inline table is a new object, so nothing of it is kept).
const latestByTable = new WeakMap<RawTable, Map<string, Map<string, number>>>();

function latestRows(table: RawTable, entityColumn: string, timeColumn: string | undefined): Map<string, number> {
  let perKey = latestByTable.get(table);
  if (!perKey) {
    perKey = new Map();
    latestByTable.set(table, perKey);
  }
  const key = `${entityColumn}\u0000${timeColumn ?? ''}`;
  let map = perKey.get(key);
  if (!map) {
    map = latestRowPerEntity(table, entityColumn, timeColumn);
    perKey.set(key, map);
  }
  return map;
}

/** Code-point order of ids (deterministic tie-break for rank). */
export function compareIds(a: string, b: string): number {
  return compareCodePoints(a, b);
}
