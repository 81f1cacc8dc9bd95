// The cases an ask answers about (docs/reference/ask.md#cases): ids resolved to each id's latest row, new rows as
// given, or (rank without cases) every entity of the record. Produces one table of case rows, and the
// cases no model could read whatever it is (docs/reference/ask.md#case-result: an unknown id is a per-case result).
import { ServiceError } from '../errors.ts';
import { rowsToTable } from '../table/rows.ts';
import { entityKey, latestRowPerEntity } from '../table/select.ts';
import type { Cell, RawTable } from '../table/types.ts';
import type { Cases } from '../schemas/index.ts';
import { cellText, compareCodePoints, isMissing } from '../table/typing.ts';
import { unreadableRows } from '../engine/scorer.ts';
import type { Model } from '../engine/model.ts';

/** docs/reference/ask.md#case-result: why a case cannot be scored. */
export interface NotScoreable {
  missing_columns?: string[];
  unseen_values?: Record<string, Cell[]>;
  unknown_id?: true;
}

/** A case result of state not_scoreable (no p, reasons or Verdict; not billed). */
export interface SkippedCase {
  /** Where it stands among the cases asked about (request order). */
  position: number;
  result: { entity_id: string; state: 'not_scoreable'; not_scoreable: NotScoreable; row?: number };
}

export interface CaseSet {
  table: RawTable;
  entityIds: string[];
  /** The request position of each table row; absent = row r is position r. */
  positions?: number[];
  /** Cases asked about that are not in `table` (unknown ids), at their positions. */
  skipped: SkippedCase[];
  /** How many cases were asked about (table rows + skipped). */
  total: number;
  /** The cases.rows objects the table was read from (a key a row lacks is a missing column, not a blank). */
  rowObjects?: readonly object[];
  /** Why no case was selected, when `cases.open` found none (an answer then says it in `cases_note`). */
  note?: string;
}

const MAX_LISTED = 20;
/** Ids of the record named when none of the asked ids is in it. */
const EXAMPLE_IDS = 3;

/** Rows `idx` of `table` as a new table (column-major copy of just those rows). */
export function pickRows(table: RawTable, idx: number[]): RawTable {
  return { columns: table.columns, data: table.data.map((col) => idx.map((r) => col[r])), rowCount: idx.length };
}

/** docs/reference/ask.md#by-model-ref: cases given as rows, read with no record (a model_ref question without data). */
export function caseRowsOf(rows: readonly object[], entityColumn: string): CaseSet {
  const table = rowsToTable(rows, 'cases.rows');
  const e = table.columns.indexOf(entityColumn);
  const ids: string[] = [];
  const keep: number[] = [];
  const skipped: SkippedCase[] = [];
  for (let r = 0; r < table.rowCount; r++) {
    const id = e >= 0 ? entityKey(table.data[e][r] as Cell) : null;
    if (id === null) {
      // docs/reference/ask.md#case-result: an unreadable row is a per-case result; without its id it is named by its row.
      skipped.push({
        position: r,
        result: { entity_id: '', state: 'not_scoreable', not_scoreable: { missing_columns: [entityColumn] }, row: r },
      });
    } else {
      keep.push(r);
      ids.push(id);
    }
  }
  if (skipped.length === 0) return { table, entityIds: ids, skipped, total: table.rowCount, rowObjects: rows };
  return {
    table: pickRows(table, keep),
    entityIds: ids,
    positions: keep,
    skipped,
    total: table.rowCount,
    rowObjects: keep.map((r) => rows[r]),
  };
}

/**
 * docs/reference/ask.md#cases `cases.open`: what "open" means on this record. `outcomeColumn`: rows whose outcome is
 * blank are open; `at`: on a snapshots grid, only the readings taken at as_of (their time cell as written).
 */
export interface OpenCases {
  outcomeColumn: string;
  at?: { column: string; value: string };
}

export function selectCases(
  record: RawTable,
  cases: Cases | undefined,
  entityColumn: string,
  timeColumn: string | undefined,
  open?: OpenCases,
): CaseSet {
  const latest = () => latestRows(record, entityColumn, timeColumn);
  if (cases?.open === true) return openCases(record, entityColumn, timeColumn, open);
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
      skipped: [],
      total: ids.length,
    };
  }
  if (cases.ids !== undefined) {
    const map = cases.ids.length <= FEW_IDS ? latestRowsOf(record, entityColumn, timeColumn, cases.ids) : latest();
    const unknown = cases.ids.filter((id) => !map.has(id));
    if (unknown.length === cases.ids.length) {
      // 1.0's problem stays where not one case of the call can be answered (decision on docs/decisions/0008-per-case-results.md).
      const listed = unknown
        .slice(0, MAX_LISTED)
        .map((id) => JSON.stringify(id))
        .join(', ');
      const more = unknown.length > MAX_LISTED ? ` and ${unknown.length - MAX_LISTED} more` : '';
      // A few of the record's own ids show what its ids look like (a prefix, zero padding, case): from the
      // whole record's index (a map of the few ids asked about holds none of them here).
      const examples = [...latest().keys()].sort(compareIds).slice(0, EXAMPLE_IDS);
      const shown = examples.map((id) => JSON.stringify(id)).join(', ');
      throw new ServiceError(
        'unknown_case_id',
        `none of the ids appears in ${entityColumn}: ${listed}${more}; its ids look like ${shown}`,
        {
          field: 'cases.ids',
          remedy: `Send ids as ${entityColumn} spells them (e.g. ${shown}), or send the cases as rows.`,
          extra: { unknown_ids: unknown.slice(0, 100) },
        },
      );
    }
    if (unknown.length === 0) {
      return {
        table: pickRows(
          record,
          cases.ids.map((id) => map.get(id)!),
        ),
        entityIds: [...cases.ids],
        skipped: [],
        total: cases.ids.length,
      };
    }
    // docs/reference/ask.md#case-result: an unknown id is a per-case not_scoreable {unknown_id: true}; the other ids are answered.
    const rows: number[] = [];
    const ids: string[] = [];
    const positions: number[] = [];
    const skipped: SkippedCase[] = [];
    cases.ids.forEach((id, i) => {
      const r = map.get(id);
      if (r === undefined)
        skipped.push({ position: i, result: { entity_id: id, state: 'not_scoreable', not_scoreable: { unknown_id: true } } });
      else {
        rows.push(r);
        ids.push(id);
        positions.push(i);
      }
    });
    return { table: pickRows(record, rows), entityIds: ids, positions, skipped, total: cases.ids.length };
  }
  return caseRowsOf(cases.rows!, entityColumn);
}

/**
 * docs/reference/ask.md#request: one row per case with its outcome still unknown: on a grid the readings at as_of, otherwise
 * the latest blank-outcome row per case; ids in code point order. None open = no cases (an answer with none).
 */
function openCases(record: RawTable, entityColumn: string, timeColumn: string | undefined, open: OpenCases | undefined): CaseSet {
  const oc = open ? record.columns.indexOf(open.outcomeColumn) : -1;
  if (!open || oc < 0) {
    throw new ServiceError('invalid_request', 'cases.open: this record has no outcome column to tell open cases by', {
      field: 'cases.open',
      remedy: 'Ask cases.open of a record with a yes/no outcome column (a mapped record, a snapshots grid or a table with blank outcomes).',
    });
  }
  const at = open.at ? record.columns.indexOf(open.at.column) : -1;
  const keep: number[] = [];
  for (let r = 0; r < record.rowCount; r++) {
    if (!isMissing(record.data[oc][r])) continue;
    if (open.at !== undefined && (at < 0 || cellText(record.data[at][r]) !== open.at.value)) continue;
    keep.push(r);
  }
  const blank = pickRows(record, keep);
  const map = latestRowPerEntity(blank, entityColumn, timeColumn);
  const ids = [...map.keys()].sort(compareIds);
  return {
    table: pickRows(
      blank,
      ids.map((id) => map.get(id)!),
    ),
    entityIds: ids,
    skipped: [],
    total: ids.length,
    ...(ids.length === 0 ? { note: noOpenCase(open) } : {}),
  };
}

/** docs/reference/ask.md#cases: why cases.open answered nothing, and what to send instead. */
function noOpenCase(open: OpenCases): string {
  const where = open.at
    ? `no reading at ${open.at.column} ${open.at.value} has a blank ${open.outcomeColumn}`
    : `every row has its ${open.outcomeColumn} (a blank ${open.outcomeColumn} marks a case still open)`;
  return (
    `cases.open found no open case: ${where}, so there is no case to answer. Add rows whose ${open.outcomeColumn} is ` +
    'still blank, or send cases: {ids: [...]} or cases: {rows: [...]} to ask about particular cases.'
  );
}

/** The case results in request order: `answered[r]` is table row r's result, at its position; each skipped case at its own. */
export function inRequestOrder<T>(cs: CaseSet, answered: readonly T[]): Array<T | SkippedCase['result']> {
  if (cs.skipped.length === 0) return answered as T[];
  const out = new Array<T | SkippedCase['result']>(cs.total);
  answered.forEach((x, r) => (out[cs.positions ? cs.positions[r] : r] = x));
  for (const s of cs.skipped) out[s.position] = s.result;
  return out;
}

/**
 * The cases every one of `models` can read (docs/reference/ask.md#case-result): the rest become not_scoreable results with
 * their missing columns and unseen values. `ignore`: columns the answer sets itself (a choice's option column).
 */
export function readableCases(cs: CaseSet, models: readonly Model[], ignore?: ReadonlySet<string>): CaseSet {
  const rowObjects = cs.rowObjects;
  const absent = rowObjects ? (column: string, r: number) => !Object.hasOwn(rowObjects[r], column) : undefined;
  const problems = new Map<number, NotScoreable>();
  for (const model of models) {
    for (const [r, p] of unreadableRows(model, cs.table, absent, ignore)) {
      const known = problems.get(r);
      if (!known) problems.set(r, p);
      else {
        for (const c of p.missing_columns ?? []) if (!known.missing_columns?.includes(c)) (known.missing_columns ??= []).push(c);
        for (const [c, vals] of Object.entries(p.unseen_values ?? {}))
          if (!known.unseen_values?.[c]) (known.unseen_values ??= {})[c] = vals;
      }
    }
  }
  if (problems.size === 0) return cs;
  const position = (r: number) => (cs.positions ? cs.positions[r] : r);
  const keep: number[] = [];
  for (let r = 0; r < cs.table.rowCount; r++) if (!problems.has(r)) keep.push(r);
  const skipped = [...cs.skipped];
  for (const [r, p] of problems) {
    const result: SkippedCase['result'] = { entity_id: cs.entityIds[r], state: 'not_scoreable', not_scoreable: p };
    if (rowObjects) result.row = position(r);
    skipped.push({ position: position(r), result });
  }
  skipped.sort((x, y) => x.position - y.position);
  return {
    table: pickRows(cs.table, keep),
    entityIds: keep.map((r) => cs.entityIds[r]),
    positions: keep.map(position),
    skipped,
    total: cs.total,
    ...(rowObjects ? { rowObjects: keep.map((r) => rowObjects[r]) } : {}),
  };
}

// Tables from the sample and sealed-dataset caches are the same objects ask after ask: their
// entity index is computed once (an inline table is a new object, so nothing of it is kept).
const latestByTable = new WeakMap<RawTable, Map<string, Map<string, number>>>();

/**
 * An ask about at most this many ids whose record has no entity index yet finds their rows in one pass without
 * making one: a cold ask about one case of a 1,000,000-row stored record spent 1.3 s of CPU (and about 60 MB)
 * indexing a million entities to look up one.
 */
const FEW_IDS = 1000;

/**
 * The latest row of each of `ids` (those the record has): latestRows(...).get(id) for each, from the entity
 * index when the table has one, else from one pass over the record that keeps only these ids' rows.
 */
function latestRowsOf(table: RawTable, entityColumn: string, timeColumn: string | undefined, ids: readonly string[]): Map<string, number> {
  const key = `${entityColumn}\u0000${timeColumn ?? ''}`;
  const known = latestByTable.get(table)?.get(key);
  if (known) return known;
  return latestRowPerEntity(table, entityColumn, timeColumn, new Set(ids));
}

export function latestRows(table: RawTable, entityColumn: string, timeColumn: string | undefined): Map<string, number> {
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
