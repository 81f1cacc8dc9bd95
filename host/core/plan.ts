// The planning of an ask, shared by the service and the browser page: which fits its questions need (one
// per distinct fit key, docs/reference/ask.md#fits), which view of the record each is fitted on and answered from,
// and the checks of the columns it names. No fit runs here, and nothing here reads the store.
import { ServiceError } from '../errors.ts';
import type { AskRequest, Question } from '../schemas/index.ts';
import type { Cell, RawTable } from '../table/types.ts';
import { latestRows, selectCases, type OpenCases } from './cases.ts';
import { entityKey } from '../table/select.ts';
import { cellText, parseNumber } from '../table/typing.ts';
import { resolveOutcome, spellPositives } from './outcome.ts';
import { fitKeyOf, type FitRequest } from './fit-outcome.ts';
import { didYouMean, listColumns } from './columns.ts';
import type { RecordView } from './views.ts';

/** Where a question's view of the record comes from (views.ts RecordViews for shapes; tables alone in the page). */
export interface ViewSource {
  viewFor(outcomeColumn: string, positiveValues: string[] | undefined, field: string): RecordView;
}

export interface PlannedQuestion {
  name: string;
  question: Question;
  /** One fit, or one per option for choice with option_outcomes (in the options' order). */
  fitKeys: string[];
  options?: string[];
  /** The record (or its shaped reading) this question is fitted on and answered from. */
  view: RecordView;
  /** docs/reference/models.md#profile: the profile's `exclude` columns its fits left out. */
  exclusionsApplied: string[];
}

export interface AskPlan {
  /** Each distinct fit the questions need, by fit key. */
  requests: Map<string, FitRequest>;
  questions: PlannedQuestion[];
}

/** The whole record as one table of cases: the view of an ask without a shape (or shape kind table). */
export function tableViewOf(
  record: RawTable,
  ask: Pick<AskRequest, 'entity_column' | 'time_column' | 'cases' | 'group_column'>,
  open?: OpenCases,
): RecordView {
  const { entity_column, time_column, cases, group_column } = ask;
  return {
    table: record,
    entityColumn: entity_column,
    timeColumn: time_column,
    // docs/reference/ask.md#request: held out whole; the entity column itself needs no naming twice
    ...(group_column !== undefined && group_column !== entity_column ? { groupColumn: group_column } : {}),
    cases: selectCases(record, cases, entity_column, time_column, open),
  };
}

/** Refuses a column name the record does not have, listing the ones it has and the closest name. */
export function checkColumn(columns: string[], name: string, field: string): void {
  if (columns.includes(name)) return;
  throw new ServiceError(
    'invalid_request',
    `${field}: ${JSON.stringify(name)} is not a column of the record (${listColumns(columns)})${didYouMean(name, columns)}`,
    {
      field,
      remedy: `Name one of the record's columns in ${field}, spelled exactly as in its header.`,
    },
  );
}

/**
 * A choice over a category column tries each option on every case; an option the column never has has no
 * term in the model (it would be read as an unseen value), so a "best option" would rest on nothing. A
 * numeric column is different: a value between seen values falls in a bin like any other.
 */
function checkOptionsOccur(table: RawTable, column: string, options: readonly string[], field: string): void {
  const cells = table.data[table.columns.indexOf(column)];
  const seen = new Set<string>();
  let numeric = true;
  for (const cell of cells) {
    const t = cellText(cell);
    if (t === null) continue;
    seen.add(t);
    if (numeric && parseNumber(cell) === null) numeric = false;
  }
  if (numeric) return;
  const values = [...seen];
  options.forEach((o, i) => {
    if (seen.has(o)) return;
    throw new ServiceError(
      'invalid_request',
      `${field}.options.${i}: ${column} never has ${JSON.stringify(o)} in the record, so the model knows nothing of it (its values: ` +
        `${values
          .slice(0, 20)
          .map((v) => JSON.stringify(v))
          .join(', ')}${values.length > 20 ? ', ...' : ''})${didYouMean(o, values)}`,
      { field: `${field}.options.${i}`, remedy: `List as options values that ${column} has in the record, spelled as it has them.` },
    );
  });
}

const idColumnsChecked = new WeakMap<RawTable, Set<string>>();

/**
 * A table without a time column must have one row per case: an entity column whose values repeat on
 * average twice or more names groups (a contract type, a country), so "cases" would be groups and whole
 * groups would be held out. Repeats are fine with a time_column (a log: the latest row per case is read).
 */
function checkEntityIsAnId(table: RawTable, entityColumn: string): void {
  // A cached record (sample, sealed dataset) is checked once per entity column.
  const checked = idColumnsChecked.get(table) ?? new Set<string>();
  if (checked.has(entityColumn)) return;
  const cells = table.data[table.columns.indexOf(entityColumn)];
  const { rows, atLeast } = distinctIdsAtLeast(cells);
  // Most records pass on the lower bound alone (one row per id); only a record near or past the limit is
  // counted exactly, by the keys of the latest-row index the cases are then read from (cases.ts, kept per
  // table). A cold ask about a few cases of a million-row record so builds no map of a million ids
  // (about 1 s of its task thread): the cases are found in one pass (cases.ts latestRowsOf).
  if (rows === 0 || atLeast * 2 > rows) {
    checked.add(entityColumn);
    idColumnsChecked.set(table, checked);
    return;
  }
  const distinct = latestRows(table, entityColumn, undefined).size;
  if (distinct * 2 > rows) {
    checked.add(entityColumn);
    idColumnsChecked.set(table, checked);
    return;
  }
  const sizes = new Map<string, number>();
  for (const cell of cells) {
    const id = entityKey(cell);
    if (id !== null) sizes.set(id, (sizes.get(id) ?? 0) + 1);
  }
  let largest: [string, number] = ['', 0];
  for (const entry of sizes) if (entry[1] > largest[1]) largest = entry;
  throw new ServiceError(
    'entity_not_an_id',
    `entity_column: ${entityColumn} has ${sizes.size.toLocaleString('en-US')} distinct values over ${rows.toLocaleString('en-US')} rows ` +
      `(${(rows / sizes.size).toFixed(1)} rows per value on average; ${JSON.stringify(largest[0])} alone has ${largest[1].toLocaleString('en-US')}), ` +
      'so it names groups of rows, not cases',
    { field: 'entity_column' },
  );
}

/**
 * The rows with an id (entityKey) and a lower bound on their distinct ids: the number of distinct pairs of
 * two 32-bit hashes of the ids, in an open-addressing table of typed arrays (no string is kept). Equal ids
 * hash equal, so two ids counted apart are different ids; two different ids counted as one (a collision of
 * both hashes) only lower the bound, which the caller then checks exactly.
 */
export function distinctIdsAtLeast(cells: readonly unknown[]): { rows: number; atLeast: number } {
  let bits = 4;
  while (1 << bits < cells.length * 2) bits++;
  const size = 1 << bits;
  const mask = size - 1;
  const shift = 32 - bits;
  // slot s holds its pair at 2s and 2s + 1; the second hash is odd, so 0 marks a free slot
  const pairs = new Int32Array(2 * size);
  let rows = 0;
  let atLeast = 0;
  let last: unknown = undefined;
  for (const cell of cells) {
    // a repeat of the cell before (the same string object or value) is a row of an id already counted
    if (cell === last && cell !== null && cell !== undefined) {
      rows++;
      continue;
    }
    // entityKey trims; a string with printable ASCII at both ends is already its own key
    let id: string | null;
    if (typeof cell === 'string' && cell.length > 0 && isPlainEnd(cell.charCodeAt(0)) && isPlainEnd(cell.charCodeAt(cell.length - 1)))
      id = cell;
    else id = entityKey(cell as Cell);
    if (id === null) continue;
    last = cell;
    rows++;
    // FNV-1a and a multiplicative hash of the UTF-16 code units
    let a = 0x811c9dc5 | 0;
    let b = id.length | 0;
    for (let i = 0; i < id.length; i++) {
      const c = id.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = (Math.imul(b, 31) + c) | 0;
    }
    b = Math.imul(b ^ (b >>> 15), 0x2c1b3c6d) | 1;
    let slot = Math.imul(a ^ (a >>> 15), 0x9e3779b1) >>> shift;
    for (;;) {
      const at = 2 * slot;
      if (pairs[at + 1] === 0) {
        pairs[at] = a;
        pairs[at + 1] = b;
        atLeast++;
        break;
      }
      if (pairs[at] === a && pairs[at + 1] === b) break;
      slot = (slot + 1) & mask;
    }
  }
  return { rows, atLeast };
}

/** A code unit that trim() never removes: printable ASCII. */
const isPlainEnd = (c: number): boolean => c > 32 && c < 127;

/** Refuses an entity or time column the record lacks (every ask on a record, model_ref questions too). */
export function checkFramingColumns(ask: AskRequest, columns: string[]): void {
  checkColumn(columns, ask.entity_column, 'entity_column');
  if (ask.time_column !== undefined) checkColumn(columns, ask.time_column, 'time_column');
  if (ask.group_column !== undefined) checkColumn(columns, ask.group_column, 'group_column');
}

/**
 * docs/reference/models.md#profile: the profile's `exclude` as one fit applies it: table records only (a shape's features are
 * its own), never a framing column (outcome, entity, time), and only columns the record has. Sorted.
 */
export function appliedExclusions(view: RecordView, outcomeColumn: string, exclude: readonly string[] | undefined): string[] {
  if (!exclude || exclude.length === 0 || view.shapeKey !== undefined) return [];
  const framing = new Set([outcomeColumn, view.entityColumn, view.timeColumn]);
  return [...new Set(exclude)].filter((c) => !framing.has(c) && view.table.columns.includes(c)).sort();
}

/**
 * Plans `ask` on a record of these columns and content hash, with views from `views` (see ViewSource);
 * `exclude`: the namespace profile's columns new fits leave out.
 */
export function planAsk(
  ask: AskRequest,
  record: { columns: string[]; contentHash: string; table?: RawTable },
  views: ViewSource,
  coreHash: string,
  exclude?: readonly string[],
): AskPlan {
  checkFramingColumns(ask, record.columns);
  // docs/decisions/0001-group-column.md: group_column = entity_column says each case has several rows, held out whole
  if (record.table && (!ask.shape || ask.shape.kind === 'table') && ask.time_column === undefined && ask.group_column !== ask.entity_column)
    checkEntityIsAnId(record.table, ask.entity_column);
  const requests = new Map<string, FitRequest>();
  const questions: PlannedQuestion[] = [];
  const addFit = (outcomeColumn: string, q: Question, field: string): { key: string; view: RecordView; excluded: string[] } => {
    for (const [role, name] of [
      ['entity_column', ask.entity_column],
      ['time_column', ask.time_column],
      ['group_column', ask.group_column],
    ] as const) {
      if (name !== undefined && outcomeColumn === name) {
        const at = q.type === 'choice' && q.option_outcomes !== undefined ? `${field}.option_outcomes` : `${field}.outcome_column`;
        throw new ServiceError('invalid_request', `${at}: ${JSON.stringify(name)} is the ${role}; the outcome must be another column`, {
          field: at,
          remedy: `Name the yes/no column the cases' outcome is in as outcome_column; ${role} names the ${role === 'time_column' ? 'time' : 'case'} of each row.`,
        });
      }
    }
    const view = views.viewFor(outcomeColumn, q.positive_values?.map(String), field);
    const outcome = resolveOutcome(view.table, outcomeColumn, spellPositives(view.table, outcomeColumn, q.positive_values), field);
    const excluded = appliedExclusions(view, outcomeColumn, exclude);
    const req: FitRequest = {
      table: view.table,
      recordHash: record.contentHash,
      entityColumn: view.entityColumn,
      timeColumn: view.timeColumn,
      ...(view.groupColumn !== undefined ? { groupColumn: view.groupColumn } : {}),
      ...(view.readingTimeColumn !== undefined ? { readingTimeColumn: view.readingTimeColumn } : {}),
      shapeKey: view.shapeKey,
      outcome,
      desirable: q.outcome_is_desirable ?? null,
      ...(excluded.length > 0 ? { exclude: excluded } : {}),
    };
    const key = fitKeyOf(coreHash, req);
    if (!requests.has(key)) requests.set(key, req);
    return { key, view, excluded };
  };
  for (const [name, q] of Object.entries(ask.questions)) {
    const field = `questions.${name}`;
    if (q.type === 'choice' && q.option_outcomes !== undefined) {
      const options = Object.keys(q.option_outcomes);
      const fitsOf = options.map((o) => addFit(q.option_outcomes![o], q, field));
      if (new Set(fitsOf.map((f) => f.view)).size > 1) {
        // each option's outcome would read the record differently (traces, series): no common cases
        throw new ServiceError(
          'invalid_request',
          `${field}.option_outcomes: with shape kind ${ask.shape!.kind} ask one question per outcome instead`,
          { field: `${field}.option_outcomes` },
        );
      }
      const exclusionsApplied = [...new Set(fitsOf.flatMap((f) => f.excluded))].sort();
      questions.push({ name, question: q, fitKeys: fitsOf.map((f) => f.key), options, view: fitsOf[0].view, exclusionsApplied });
    } else {
      const { key, view, excluded } = addFit(q.outcome_column!, q, field);
      if (q.type === 'choice') {
        checkColumn(view.table.columns, q.option_column!, `${field}.option_column`);
        checkOptionsOccur(view.table, q.option_column!, q.options ?? [], field);
      }
      questions.push({ name, question: q, fitKeys: [key], view, exclusionsApplied: excluded });
    }
  }
  return { requests, questions };
}
