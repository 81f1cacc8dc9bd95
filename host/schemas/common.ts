// Shared building blocks for the wire schemas: ids, limits (docs/reference/limits.md#limits), inline data and cross-field helpers.
import * as v from 'valibot';
import { ownRecord } from './record.ts';

/** docs/reference/limits.md#limits: the limits the schemas enforce, in one place so describe and docs can quote them. */
export const LIMITS = {
  rowsMax: 10_000,
  csvMax: 8_000_000,
  caseIdsMax: 10_000,
  outcomesMax: 10_000,
  topKMax: 1000,
  questionNameMax: 64,
  levelsMin: 2,
  levelsMax: 10,
  cutsMin: 1,
  cutsMax: 9,
  optionsMin: 2,
  optionsMax: 255,
  optionOutcomesMin: 2,
  optionOutcomesMax: 32,
  shapeColumnsMax: 24,
  columnNameMax: 200,
  whenItemsMax: 16,
  // Not in docs/reference/limits.md#limits: all/any nesting levels, in the spirit of its 16-items rule, so validating and reading
  // a `when` never depends on the machine's stack.
  whenDepthMax: 16,
  idempotencyKeyMax: 128,
  eventIdMax: 128,
  filenameMax: 120,
} as const;

export const DATASET_ID_PATTERN = /^ds_[0-9a-z]{20,40}$/;
/** docs/reference/ask.md#data/4.4: a record named by id is a stored dataset (DATASET_ID_PATTERN) or a sample, `sample:<name>`. */
export const RECORD_ID_PATTERN = /^(?:ds_[0-9a-z]{20,40}|sample:.+)$/;
export const TASK_ID_PATTERN = /^tk_[0-9a-z]{20,40}$/;
export const MODEL_REF_PATTERN = /^mr1_[0-9a-f]{32}$/;
/** docs/reference/README.md: a namespace inside a workspace (one customer of a builder's product). */
export const NAMESPACE_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const QUESTION_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const FILENAME_PATTERN = /^[A-Za-z0-9._-]{1,120}$/;

/**
 * At most `requirement` characters, counted as Unicode code points, as JSON Schema's maxLength counts them
 * (so the limit the OpenAPI document and the MCP tool schemas state is the one enforced: docs/guides/overload.md). A string
 * of no more UTF-16 units is within it without counting.
 */
export function maxChars<TInput extends string, const TRequirement extends number>(
  requirement: TRequirement,
): v.MaxCodePointsAction<TInput, TRequirement, undefined> {
  const action = v.maxCodePoints<TInput, TRequirement>(requirement);
  return {
    ...action,
    '~run'(dataset, config) {
      return dataset.typed && dataset.value.length > requirement ? action['~run'](dataset, config) : dataset;
    },
  };
}

/** A string with at least one character (the spec's "min length 1"). */
export const NonEmptyStringSchema = v.pipe(v.string(), v.minLength(1));

/** docs/reference/datasets.md#lifecycle: a stored dataset id (add-dataset, delete-dataset). */
export const DatasetIdSchema = v.pipe(v.string(), v.regex(DATASET_ID_PATTERN));
/**
 * docs/reference/ask.md#data (data.dataset_id) and 4.4 (preflight): a stored dataset id or `sample:<name>`. A malformed
 * id is refused here (422 naming the field); a well-formed one that is not found is 404 unknown_dataset.
 */
export const RecordIdSchema = v.pipe(
  v.string(),
  v.minLength(1),
  v.regex(RECORD_ID_PATTERN, 'must be a stored dataset id (ds_ followed by 20 to 40 of 0-9 a-z) or sample:<name>'),
);
/** docs/reference/tasks.md#poll: the id of a pending ask. */
export const TaskIdSchema = v.pipe(v.string(), v.regex(TASK_ID_PATTERN));
/** docs/reference/ask.md#questions/2.8: a model reference. */
export const ModelRefSchema = v.pipe(v.string(), v.regex(MODEL_REF_PATTERN));
/** docs/reference/README.md, docs/reference/ask.md#namespace: omitted = the workspace's own models. */
export const NamespaceSchema = v.pipe(
  v.string(),
  v.regex(NAMESPACE_PATTERN, 'must be 1 to 64 of a-z 0-9 _ - starting with a letter or digit (pattern ^[a-z0-9][a-z0-9_-]{0,63}$)'),
);
/** docs/reference/models.md#extend, docs/reference/ask.md#request: model lifetimes in days. */
export const ModelDaysSchema = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(365));

// ownRecord, not v.record: a column named constructor, prototype or __proto__ is a column like any other.
const RowObjectSchema = ownRecord(v.string(), v.unknown());
const NOT_A_ROW = 'must be an object of column name to value, not an array';
/** docs/reference/ask.md#data: one inline row, a column-name-to-any-value object (valibot's record alone would take an array). */
export const RowSchema = v.lazy((input) => (Array.isArray(input) ? v.never(NOT_A_ROW) : RowObjectSchema));
/** docs/reference/ask.md#data/4.2/8: inline rows, 1 to 10,000 per call (the readable schema; RowsSchema runs it fast). */
export const RowsByValibot = v.pipe(v.array(RowSchema), v.minLength(1), v.maxLength(LIMITS.rowsMax));
/**
 * RowsByValibot, with a fast path for the common case: 1 to 10,000 items, each an object and not an
 * array, is exactly what that schema accepts (a row's keys are any strings and its values anything), and
 * its output is then a copy of each row with the same own keys (spread defines own properties, so a
 * `__proto__` column stays a column, as ownRecord keeps it). Anything else runs valibot itself, which
 * names the field at fault. Valibot's run over 10,000 rows of 11 cells took about 8 ms of a 10,000-row
 * ask.
 */
type RowsDataset = { value: unknown; typed?: boolean; issues?: unknown[] };
const runRowsByValibot = (dataset: RowsDataset, config: v.Config<v.BaseIssue<unknown>>): RowsDataset =>
  (RowsByValibot as unknown as { '~run': (d: RowsDataset, c: typeof config) => RowsDataset })['~run'](dataset, config);
function runRows(dataset: RowsDataset, config: v.Config<v.BaseIssue<unknown>>): RowsDataset {
  const rows = dataset.value;
  if (Array.isArray(rows) && rows.length >= 1 && rows.length <= LIMITS.rowsMax) {
    const out = new Array<Record<string, unknown>>(rows.length);
    let i = 0;
    for (; i < rows.length; i++) {
      const row: unknown = rows[i];
      if (typeof row !== 'object' || row === null || Array.isArray(row)) break;
      out[i] = { ...row };
    }
    if (i === rows.length) return { typed: true, value: out };
  }
  return runRowsByValibot(dataset, config);
}
export const RowsSchema = Object.assign(
  { ...RowsByValibot, '~run': runRows },
  {
    // Standard Schema consumers validate through ~standard, which must call this run, not the copied one.
    '~standard': { ...RowsByValibot['~standard'], validate: (value: unknown) => runRows({ value }, v.getGlobalConfig()) },
  },
) as unknown as typeof RowsByValibot;
/** docs/reference/ask.md#data/8: inline CSV text, 1 to 8,000,000 characters (code points). */
export const CsvSchema = v.pipe(v.string(), v.minLength(1), maxChars(LIMITS.csvMax));
/** docs/reference/ask.md#data: a URI to download a CSV from (https/public-host rules are checked by the fetcher). */
export const FetchUrlSchema = v.pipe(v.string(), v.url());
/** docs/reference/ask.md#data: headers sent with fetch_url. */
export const FetchHeadersSchema = ownRecord(v.string(), v.string());

/** A path item that makes a custom issue point at `key` of `input`. */
export function pathTo(input: Record<string, unknown>, key: string): [v.ObjectPathItem] {
  return [{ type: 'object', origin: 'value', input, key, value: input[key] }];
}

/**
 * A cross-field rule on an object: runs only when the object itself is well typed and reports through
 * `report(key, message)` (key undefined = the object itself), so every error names its field.
 */
export function objectRule<T extends object>(rule: (value: T, report: (key: string | undefined, message: string) => void) => void) {
  return v.rawCheck<T>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const value = dataset.value;
    const record = value as Record<string, unknown>;
    rule(value, (key, message) => addIssue(key === undefined ? { message } : { message, path: pathTo(record, key) }));
  });
}

/** docs/reference/ask.md#data/2.4/4.2: exactly one of `keys` is given; `fetch_headers` only travels with `fetch_url`. */
export function exactlyOneSource<T extends Record<string, unknown>>(keys: readonly string[]) {
  return objectRule<T>((value, report) => {
    const given = keys.filter((k) => value[k] !== undefined);
    const list = keys.join(', ');
    if (given.length === 0) report(undefined, `needs exactly one of ${list}`);
    else if (given.length > 1) {
      report(given[1], `give exactly one of ${list}, not both ${given[0]} and ${given[1]}`);
    }
    if ('fetch_headers' in value && value.fetch_headers !== undefined && value.fetch_url === undefined) {
      report('fetch_headers', 'is only allowed together with fetch_url');
    }
  });
}
