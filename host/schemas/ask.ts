// docs/reference/ask.md#data, docs/reference/ask.md#cases, docs/reference/ask.md#request: the svc_ask request — record source, cases, top level and its cross-field rules.
import * as v from 'valibot';
import {
  ModelDaysSchema,
  NamespaceSchema,
  CsvSchema,
  FetchHeadersSchema,
  FetchUrlSchema,
  LIMITS,
  maxChars,
  NonEmptyStringSchema,
  RecordIdSchema,
  RowsSchema,
  exactlyOneSource,
  objectRule,
} from './common.ts';
import { QuestionsSchema } from './question.ts';
import { ShapeSchema } from './shape.ts';

/** docs/reference/ask.md#data: the record; exactly one source, fetch_headers only with fetch_url, nothing else. */
export const AskDataSchema = v.pipe(
  v.strictObject({
    // A stored dataset (ds_...) or a sample (sample:<name>); well-formed unknown ids answer unknown_dataset.
    dataset_id: v.optional(RecordIdSchema),
    rows: v.optional(RowsSchema),
    csv: v.optional(CsvSchema),
    fetch_url: v.optional(FetchUrlSchema),
    fetch_headers: v.optional(FetchHeadersSchema),
  }),
  exactlyOneSource(['dataset_id', 'rows', 'csv', 'fetch_url']),
);

/** docs/reference/ask.md#cases/8: the cases to answer about, by id, as new rows, or (docs/reference/ask.md#cases) today's open cases; exactly one. */
export const CasesSchema = v.pipe(
  v.strictObject({
    ids: v.optional(v.pipe(v.array(NonEmptyStringSchema), v.minLength(1), v.maxLength(LIMITS.caseIdsMax))),
    rows: v.optional(RowsSchema),
    open: v.optional(v.literal(true)),
  }),
  exactlyOneSource(['ids', 'rows', 'open']),
);

export const SUBJECT_KINDS = ['person', 'org', 'object', 'event', 'other'] as const;

/** docs/reference/ask.md#response-format: full (default), concise (no Verdicts; the whole at page.answer_url), compact (also lean cases). */
export const RESPONSE_FORMATS = ['full', 'concise', 'compact'] as const;

const AskObjectSchema = v.strictObject({
  // docs/reference/ask.md#by-model-ref: optional when every question has a model_ref and the cases are rows
  data: v.optional(AskDataSchema),
  entity_column: NonEmptyStringSchema,
  subject_kind: v.picklist(SUBJECT_KINDS),
  questions: QuestionsSchema,
  cases: v.optional(CasesSchema),
  time_column: v.optional(NonEmptyStringSchema),
  // docs/reference/ask.md#request: the case column of a table holding several rows per case (may be entity_column)
  group_column: v.optional(NonEmptyStringSchema),
  shape: v.optional(ShapeSchema),
  band: v.optional(v.boolean()),
  acknowledge_decision_support: v.optional(v.boolean()),
  idempotency_key: v.optional(v.pipe(v.string(), v.minLength(1), maxChars(LIMITS.idempotencyKeyMax))),
  // docs/reference/ask.md#namespace, docs/reference/ask.md#request, docs/reference/ask.md#response-format
  namespace: v.optional(NamespaceSchema),
  model_ttl_days: v.optional(ModelDaysSchema),
  response_format: v.optional(v.picklist(RESPONSE_FORMATS)),
  export: v.optional(v.picklist(['csv'])),
});

/** docs/reference/ask.md#request: the ask request with its top-level rules. */
export const AskRequestSchema = v.pipe(
  AskObjectSchema,
  objectRule<v.InferOutput<typeof AskObjectSchema>>((ask, report) => {
    // docs/reference/ask.md#cases: cases are required for yesno, score and choice; only rank may rank the whole record.
    if (ask.cases === undefined) {
      const needy = Object.entries(ask.questions).find(([, q]) => q.type !== 'rank');
      if (needy) report('cases', `is required: question ${needy[0]} is a ${needy[1].type} question (only rank may omit cases)`);
    }
    // docs/reference/ask.md#by-model-ref: a model_ref question scores cases.rows, or cases.ids read from data in the same call.
    if (ask.data === undefined) {
      const fitted = Object.entries(ask.questions).find(([, q]) => q.type === 'choice' || q.model_ref === undefined);
      if (fitted) report('data', `is required: question ${fitted[0]} has no model_ref, so it is fitted on the record`);
      else if (ask.cases?.rows === undefined) {
        report('data', 'is required unless the cases are rows (cases.ids and whole-record ranks are read from the record)');
      }
    }
    // docs/reference/ask.md#request: person subjects turn on decision-support safeguards.
    if (ask.subject_kind === 'person' && ask.acknowledge_decision_support !== true) {
      const why = 'results are decision support, with a human in the loop';
      report('acknowledge_decision_support', `must be true when subject_kind is person (${why})`);
    }
    // docs/reference/ask.md#request: every shape except table orders rows by time.
    if (ask.shape && ask.shape.kind !== 'table' && ask.time_column === undefined) {
      report('time_column', `is required with shape kind ${ask.shape.kind}`);
    }
    // docs/decisions/0001-group-column.md: group_column is for tables; a shaped reading's rows are already grouped by its entity column
    if (ask.group_column !== undefined && ask.shape && ask.shape.kind !== 'table') {
      report(
        'group_column',
        `applies to table records only: shape kind ${ask.shape.kind} already keeps each entity_column case's rows together`,
      );
    }
    if (ask.group_column !== undefined && ask.group_column === ask.time_column) {
      report('group_column', 'must not be the time_column: name the column whose value is the same on every row of one case');
    }
  }),
);

export type AskData = v.InferOutput<typeof AskDataSchema>;
export type Cases = v.InferOutput<typeof CasesSchema>;
export type SubjectKind = (typeof SUBJECT_KINDS)[number];
export type AskRequest = v.InferOutput<typeof AskRequestSchema>;
