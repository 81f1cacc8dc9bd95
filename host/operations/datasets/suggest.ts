// svc_suggest (docs/reference/map.md#suggest): which yes/no questions are worth asking of a table, from the table alone: a
// quick screen per candidate outcome column (no fit), each with a ready ask svc_ask accepts as it is.
//
// Candidates: every column but the entity and time columns with exactly two values (one candidate), one
// value and blanks (flagged missingness_as_outcome: a blank is not a no), and with include_categories
// one candidate per value of a 3-8-valued column. Up to 60 columns are considered per call, in table order.
// The screen reads each other column's own AUC against the candidate (operations/datasets/preflight.ts columnAuc,
// the engine's binning of categories): AUC >= 0.985 alone nearly fixes the outcome (defined_by,
// leakage_suspect); the best usable column under 0.55 is no_separating_signal. Codes, first that applies:
// constant_outcome, missingness_as_outcome, prevalence_out_of_band (under 1% or over 99% yes),
// leakage_suspect, too_few_patterns (under 2 usable predictors), no_separating_signal, too_few_positives
// (under 80 of the rarer class, the engine's held-out bar).
import { ServiceError } from '../../errors.ts';
import { parseBody } from '../../schemas/index.ts';
import type { Cell, RawTable } from '../../table/types.ts';
import { cellText, compareCodePoints, isMissing, yesNoMeaning } from '../../table/typing.ts';
import type { OpContext, OpResult } from '../../runtime/services.ts';
import { assertKeyMayUse, resolveRecord } from '../ask/record.ts';
import { checkColumn } from '../../core/plan.ts';
import { columnAuc, NOT_YET_CLASS_ROWS, RESTATES_AUC } from './preflight.ts';
import { resolveColumn, type Resolution } from './preflight-columns.ts';
import { FREE, READ_ONLY, type Operation } from '../operation.ts';
import { entityKey } from '../../table/select.ts';
import { type SuggestRequest, SuggestRequestSchema, SuggestResponseSchema } from './suggest.schema.ts';

export const MAX_CONSIDERED = 60;
const MAX_CATEGORY_VALUES = 8;
const PREVALENCE_BAND: readonly [number, number] = [0.01, 0.99];
const SEPARATING_AUC = 0.55;
const MIN_PREDICTORS = 2;

export type SuggestCode =
  | 'constant_outcome'
  | 'missingness_as_outcome'
  | 'prevalence_out_of_band'
  | 'no_separating_signal'
  | 'leakage_suspect'
  | 'too_few_patterns'
  | 'too_few_positives';

const WHY_NOT: Record<SuggestCode, string> = {
  constant_outcome: 'every labeled row has the same value, so there is nothing to learn',
  missingness_as_outcome:
    'the column has one value and blanks: a blank is not a "no", so yes against blank would learn what went unrecorded',
  prevalence_out_of_band: 'yes is under 1% or over 99% of labeled rows: too rare (or too common) to check on held-out rows',
  leakage_suspect:
    'some columns alone nearly fix the outcome (defined_by): they are likely recorded from it, and an answer would restate it',
  too_few_patterns: 'fewer than 2 usable predictor columns: more columns may help',
  no_separating_signal: 'no column on its own separates yes from no (best AUC under 0.55); a model is likely to be refused',
  too_few_positives: `fewer than ${NOT_YET_CLASS_ROWS} rows of the rarer value: more cases may help (an ask would likely answer not_yet)`,
};

const NEXT_STEP: Record<SuggestCode, string> = {
  constant_outcome: 'Pick another candidate.',
  missingness_as_outcome: 'Record an explicit no (0, no, false) where the outcome did not happen, then suggest again.',
  prevalence_out_of_band: 'Collect more cases of the rarer value, or define the outcome more broadly.',
  leakage_suspect: 'Drop the defined_by columns (or list them in svc_profile exclude), then ask.',
  too_few_patterns: 'Add columns known before the outcome, then suggest again.',
  no_separating_signal: 'Add columns known before the outcome; asking as it is will likely be refused (free).',
  too_few_positives: 'Add more past cases, then ask (an ask now is free and says how many more it needs).',
};

export interface Column {
  name: string;
  index: number;
  res: Resolution;
  values: string[];
}

function distinctTexts(cells: readonly Cell[]): string[] {
  const seen = new Set<string>();
  for (const c of cells) {
    const t = cellText(c);
    if (t !== null) seen.add(t);
  }
  return [...seen].sort(compareCodePoints);
}

/** docs/reference/ask.md#request rule the ready ask must pass: without time_column, one row per case (as svc_ask checks it). */
function checkOneRowPerCase(table: RawTable, entity: string): void {
  const cells = table.data[table.columns.indexOf(entity)];
  const ids = new Set<string>();
  let rows = 0;
  for (const cell of cells) {
    const k = entityKey(cell);
    if (k === null) continue;
    rows++;
    ids.add(k);
  }
  if (rows > 0 && ids.size * 2 <= rows) {
    throw new ServiceError(
      'entity_not_an_id',
      `entity_column: ${entity} has ${ids.size} distinct values over ${rows} rows, so it names groups of rows, not cases`,
      { field: 'entity_column', remedy: 'Name the column that names each case, or a time_column so each case takes its latest row.' },
    );
  }
}

/** The columns of `table` but the framing ones, resolved, with their distinct values (code point order). */
export function columnsOf(table: RawTable, framing: ReadonlyArray<string | undefined>): Column[] {
  const skip = new Set(framing);
  return table.columns
    .map((name, index) => ({ name, index }))
    .filter((c) => !skip.has(c.name))
    .map((c) => ({ ...c, res: resolveColumn(table.data[c.index], false), values: distinctTexts(table.data[c.index]) }));
}

export async function runSuggest(ctx: OpContext, raw: unknown): Promise<OpResult> {
  const req = parseBody(SuggestRequestSchema, raw);
  assertKeyMayUse(ctx, req.data);
  const record = await resolveRecord(ctx, req.data);
  const table = record.table;
  checkColumn(table.columns, req.entity_column, 'entity_column');
  if (req.time_column !== undefined) checkColumn(table.columns, req.time_column, 'time_column');
  if (req.time_column === req.entity_column) {
    throw new ServiceError('invalid_request', "time_column: names the entity column; name the column holding each row's time", {
      field: 'time_column',
    });
  }
  if (req.time_column === undefined) checkOneRowPerCase(table, req.entity_column);

  const columns = columnsOf(table, [req.entity_column, req.time_column]);
  const considered = columns.slice(0, MAX_CONSIDERED);
  const notChecked: string[] = [];
  const categoriesNotTried: string[] = [];
  const candidates: Record<string, unknown>[] = [];
  for (const col of considered) {
    const n = col.values.length;
    const missing = col.res.missing;
    if (n === 2 || (n === 1 && missing > 0)) candidates.push(screen(req, table, columns, col, positivesOf(col)));
    else if (n >= 3 && n <= MAX_CATEGORY_VALUES && col.res.kind !== 'numeric') {
      if (req.include_categories) for (const value of col.values) candidates.push(screen(req, table, columns, col, [value]));
      else categoriesNotTried.push(col.name);
    } else notChecked.push(col.name);
  }
  const body: Record<string, unknown> = {
    candidates,
    considered: considered.length,
    ...(columns.length > MAX_CONSIDERED ? { not_considered: columns.length - MAX_CONSIDERED } : {}),
    not_checked: notChecked,
    categories_not_tried: categoriesNotTried,
  };
  return { status: 200, body };
}

/** The yes values of a two-valued column: its own yes/no meaning, else the rarer value (ties: the later by code point). */
export function positivesOf(col: Column): string[] {
  if (col.values.length === 1) return [col.values[0]];
  const meaning = yesNoMeaning(col.values);
  if (meaning) return meaning.positiveValues.filter((p) => col.values.includes(p));
  return [col.values[1]];
}

/** What the screen found for one candidate outcome (no fit). */
export interface Screen {
  code: SuggestCode | null;
  definedBy: string[];
  labeled: number;
  positives: number;
  prevalence: number | null;
}

/** docs/reference/map.md#suggest screen of `col` as the outcome with `positives` as its yes values, against the other `columns`. */
export function screenColumn(table: RawTable, columns: readonly Column[], col: Column, positives: readonly string[]): Screen {
  const cells = table.data[col.index];
  const yes = new Set(positives);
  const y = new Float64Array(table.rowCount).fill(NaN);
  let labeled = 0;
  let pos = 0;
  for (let r = 0; r < table.rowCount; r++) {
    if (isMissing(cells[r])) continue;
    labeled++;
    y[r] = yes.has(cellText(cells[r])!) ? 1 : 0;
    pos += y[r];
  }
  const neg = labeled - pos;
  const prevalence = labeled > 0 ? Math.round((pos / labeled) * 1e6) / 1e6 : null;
  const definedBy: string[] = [];
  let usable = 0;
  let best = 0;
  if (pos > 0 && neg > 0) {
    for (const other of columns) {
      if (other.index === col.index) continue;
      const kind = other.res.kind;
      if ((kind !== 'numeric' && kind !== 'category' && kind !== 'yesno') || other.res.ambiguous) continue;
      const a = columnAuc(table.data[other.index], other.res, y);
      if (a === null) continue;
      if (a >= RESTATES_AUC) definedBy.push(other.name);
      else {
        usable++;
        best = Math.max(best, a);
      }
    }
  }
  let code: SuggestCode | null = null;
  if (col.values.length === 1) code = 'missingness_as_outcome';
  else if (pos === 0 || neg === 0) code = 'constant_outcome';
  else if (prevalence! < PREVALENCE_BAND[0] || prevalence! > PREVALENCE_BAND[1]) code = 'prevalence_out_of_band';
  else if (definedBy.length > 0) code = 'leakage_suspect';
  else if (usable < MIN_PREDICTORS) code = 'too_few_patterns';
  else if (best < SEPARATING_AUC) code = 'no_separating_signal';
  else if (Math.min(pos, neg) < NOT_YET_CLASS_ROWS) code = 'too_few_positives';
  return { code, definedBy, labeled, positives: pos, prevalence };
}

function screen(req: SuggestRequest, table: RawTable, columns: Column[], col: Column, positives: string[]): Record<string, unknown> {
  const { code, definedBy, labeled, positives: pos, prevalence } = screenColumn(table, columns, col, positives);
  const open = labeled < table.rowCount;
  const data = { ...req.data };
  // fetch_headers are the caller's secret: never echoed (add them back to ask a private fetch_url)
  delete data.fetch_headers;
  const question = {
    data,
    entity_column: req.entity_column,
    ...(req.time_column !== undefined ? { time_column: req.time_column } : {}),
    // docs/reference/map.md#suggest leaves it to the caller; `other` asks nothing of people (use person, with
    // acknowledge_decision_support, when the cases are people)
    subject_kind: 'other',
    questions: {
      q: open
        ? { type: 'yesno', outcome_column: col.name, positive_values: positives }
        : { type: 'rank', outcome_column: col.name, positive_values: positives, top_k: 20 },
    },
    ...(open ? { cases: { open: true } } : {}),
  };
  return {
    outcome_column: col.name,
    positive_values: positives,
    values: col.values,
    prevalence,
    worth_asking: code === null,
    defined_by: definedBy,
    question,
    code,
    facts: { rows: labeled, positives: pos, prevalence },
    ...(code !== null
      ? { why_not: WHY_NOT[code], next_step: NEXT_STEP[code] }
      : {
          next_step: open
            ? 'Send question to svc_ask: it answers the cases whose outcome is still blank.'
            : 'Send question to svc_ask: it ranks the cases most likely to say yes.',
        }),
  };
}

/** svc_suggest: the one declaration the transports, MCP, OpenAPI and tasks are derived from. */
export const suggestOperation: Operation = {
  name: 'svc_suggest',
  resource: 'datasets',
  path: '/v1/suggest',
  method: 'POST',
  auth: 'key',
  body: 'json',
  title: 'Suggest questions worth asking of a table',
  description:
    'Lists candidate yes/no questions for a table (data as in svc_ask; entity_column required, time_column optional): ' +
    'every two-valued column, and with include_categories one candidate per value of a 3-8-valued column. Each ' +
    'candidate has its prevalence, worth_asking (a quick screen, no fit), defined_by (columns that alone nearly fix ' +
    'it), a code when the screen stops it (constant_outcome, missingness_as_outcome, prevalence_out_of_band, ' +
    'leakage_suspect, too_few_patterns, no_separating_signal, too_few_positives) and question: a request body ' +
    'svc_ask accepts as it is (subject_kind other: say person, with acknowledge_decision_support, when cases are ' +
    'people). Up to 60 columns per call. Tables only. ' +
    FREE,
  rules:
    'Also required, beyond what the input schema says: data has exactly one of dataset_id, rows, csv, fetch_url (fetch_headers only with fetch_url).',
  request: SuggestRequestSchema,
  response: SuggestResponseSchema,
  status: 200,
  pending: false,
  // docs/reference/mcp.md: open-world like svc_ask, since data may be a fetch_url
  tool: { ...READ_ONLY, openWorldHint: true },
  examples: [
    {
      name: 'sample',
      summary: 'Which questions the saas_churn sample supports',
      value: { data: { dataset_id: 'sample:saas_churn' }, entity_column: 'customer_id' },
    },
  ],
  run: runSuggest,
};
