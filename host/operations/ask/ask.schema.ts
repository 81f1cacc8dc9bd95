// svc_ask's request and reply. The request (schemas/ask.ts) is shared with the preview page, which
// validates asks with it too; the reply's answer pieces are shared with svc_poll and svc_page. The reply
// schemas name every field the service sends (test/openapi/replies.test.ts checks real replies against
// them strictly), so /openapi.json, and the client generated from it, describe answers whole.
import * as v from 'valibot';
export { AskRequestSchema, type AskRequest } from '../../schemas/ask.ts';
import { TaskIdSchema } from '../../schemas/common.ts';
import { QUESTION_TYPES } from '../../schemas/question.ts';
import { SignatureSchema } from '../../schemas/verdict.ts';
import { ownRecord } from '../../schemas/record.ts';
import { Chance, Integer, OpenMap } from '../../schemas/replies.ts';

const NullableNumber = v.nullable(v.number());

/** docs/reference/ask.md#reasons `range`: where the value fell, in words and bounds. */
export const RangeSchema = v.looseObject({
  text: v.string(),
  /** A numeric span's bounds (null at the column's ends). */
  lower: v.optional(NullableNumber),
  upper: v.optional(NullableNumber),
  /** The record's values inside the span. */
  min: v.optional(v.number()),
  max: v.optional(v.number()),
  /** A category's value. */
  value: v.optional(v.string()),
  missing: v.optional(v.literal(true)),
  /** A rare category's bin. */
  other: v.optional(v.literal(true)),
  /** A value the fit never saw, scored as the rare values were. */
  unseen: v.optional(v.literal(true)),
});

/** docs/reference/ask.md#reasons. */
export const ReasonSchema = v.looseObject({
  feature_label: v.string(),
  value: v.optional(v.unknown()),
  likelihood_direction: v.picklist(['higher', 'lower']),
  strength: v.picklist(['strong', 'moderate']),
  association_not_causal: v.literal(true),
  range: v.optional(RangeSchema),
});

/** docs/reference/ask.md#reasons levers: given only when outcome_is_desirable says which way is better. */
export const LeverSchema = v.looseObject({
  feature_label: v.string(),
  direction: v.picklist(['increase', 'decrease', 'to_one_of']),
  /** direction to_one_of: the values to move to, best first. */
  to_one_of: v.optional(v.array(v.string())),
  /** increase: the least value that reaches a better bin; decrease: values under this reach one. */
  target: v.optional(v.union([v.looseObject({ at_least: v.number() }), v.looseObject({ under: v.number() })])),
  /** Send it to svc_attest after acting (docs/reference/outcomes.md#attest). */
  lever_token: v.string(),
  /** time_like: the column moves with the calendar by itself (a tenure, an age, days since something). */
  lever_advisory: v.optional(v.picklist(['time_like'])),
});

const Cell = v.union([v.string(), v.number(), v.boolean(), v.null()]);

/** docs/reference/ask.md#case-result: why a case could not be scored. */
export const NotScoreableSchema = v.looseObject({
  missing_columns: v.optional(v.array(v.string())),
  /** column -> the values the model never saw (new categories, non-numbers in a numeric column). */
  unseen_values: v.optional(ownRecord(v.string(), v.array(Cell))),
  unknown_id: v.optional(v.literal(true)),
});

/**
 * docs/reference/ask.md#case-result (+ docs/reference/ask.md#bands band fields). `p` and `p_display` are maps option ->
 * value for choice. A case the model cannot read has `state: "not_scoreable"` and `not_scoreable`, and no `p`
 * or reasons; the compact format keeps only `entity_id`, `p`, `p_display` and band, level, says, choice.
 */
export const CaseResultSchema = v.looseObject({
  entity_id: v.string(),
  state: v.optional(v.literal('not_scoreable')),
  not_scoreable: v.optional(NotScoreableSchema),
  /** The case's position among the case rows sent, for an unreadable one. */
  row: v.optional(Integer),
  p: v.optional(v.union([Chance, ownRecord(v.string(), Chance)])),
  p_display: v.optional(v.union([v.string(), ownRecord(v.string(), v.string())])),
  level: v.optional(v.string()),
  most_likely: v.optional(v.string()),
  least_likely: v.optional(v.string()),
  choice: v.optional(v.string()),
  position: v.optional(v.pipe(Integer, v.minValue(1))),
  reasons: v.optional(v.pipe(v.array(ReasonSchema), v.maxLength(4))),
  reasons_note: v.optional(v.string()),
  levers: v.optional(v.array(LeverSchema)),
  says: v.optional(v.string()),
  refused: v.optional(v.boolean()),
  refused_reason: v.optional(v.string()),
  band: v.optional(v.picklist(['act', 'escalate', 'refuse'])),
  band_reason: v.optional(v.string()),
  max_autonomy: v.optional(v.picklist(['L0', 'L1', 'L2', 'L3'])),
});

/** docs/reference/verdicts.md: a case as its Verdict signs it. */
export const VerdictCaseSchema = v.looseObject({
  choice: v.optional(v.string()),
  entity_id: v.string(),
  level: v.optional(v.string()),
  p: Chance,
  p_display: v.optional(v.string()),
  position: v.optional(v.pipe(Integer, v.minValue(1))),
  reasons: v.array(ReasonSchema),
});

/** docs/reference/verdicts.md: the signed body of an answer's Verdict (keys in canonical order). */
export const AnswerVerdictSchema = v.looseObject({
  acknowledge_decision_support: v.boolean(),
  cases: v.array(VerdictCaseSchema),
  computed_at: v.string(),
  contract: v.string(),
  core_hash: v.string(),
  expires_at: v.string(),
  issuer: v.string(),
  kind: v.literal('answer'),
  model_ref: v.string(),
  option: v.optional(v.string()),
  outcome: v.looseObject({ column: v.string(), polarity: v.nullable(v.string()), positive_values: v.array(v.string()) }),
  profile_hash: v.optional(v.string()),
  question: v.string(),
  record_hash: v.string(),
  subject_kind: v.string(),
  trust: v.looseObject({
    auc: NullableNumber,
    realised_lift: NullableNumber,
    top_decile_lift: NullableNumber,
    validation_scheme: v.string(),
  }),
  type: v.picklist(QUESTION_TYPES),
  verdict_id: v.string(),
});

/** docs/reference/verdicts.md: one signed Verdict per answered question (per option for choice). */
export const VerdictEntrySchema = v.looseObject({
  option: v.optional(v.string()),
  verdict: AnswerVerdictSchema,
  signature: v.nullable(SignatureSchema),
});

/** docs/reference/ask.md#quality: how the model did on rows it did not learn from. */
export const QualitySchema = v.looseObject({
  validation_scheme: v.picklist(['entity_hash', 'out_of_time', 'entity_hash_folds']),
  folds: Integer,
  auc: NullableNumber,
  auc_interval: v.nullable(v.tuple([v.number(), v.number()])),
  top_decile_lift: NullableNumber,
  realised_lift: NullableNumber,
  brier: NullableNumber,
  log_loss: NullableNumber,
  base_rate: v.number(),
  training_rows: Integer,
  held_out_rows: Integer,
  held_out_positives: Integer,
  /** docs/reference/ask.md#quality excluded_columns: `why` is an open set (entity, identifier, restates_outcome, fixed_by_caller, ...). */
  excluded_columns: v.array(v.looseObject({ column: v.string(), why: v.string() })),
});

/** docs/reference/ask.md#answer next[]: a follow-up call, as data. */
export const NextStepSchema = v.looseObject({
  operation: v.string(),
  /** Fields to send with it. */
  with: v.optional(OpenMap),
  cost: v.string(),
  gives: v.string(),
});

/** docs/reference/ask.md#large-answers: the slice of a paged list. */
export const ListPageSchema = v.looseObject({ offset: Integer, returned: Integer, total: Integer });

/** docs/reference/models.md#stored-answers: where a stored answer is, and where a paged one continues (next_cursor absent on the last page). */
export const PageInfoSchema = v.looseObject({
  answer_url: v.string(),
  expires_at: v.string(),
  next_cursor: v.optional(v.string()),
});

/** docs/reference/ask.md#answer: read `state` first. */
export const AnswerSchema = v.looseObject({
  type: v.picklist(QUESTION_TYPES),
  state: v.picklist(['answered', 'refused', 'not_yet']),
  /** docs/reference/ask.md#states: a restatement of state. */
  decision: v.optional(v.picklist(['actionable', 'refused', 'not_yet'])),
  cache: v.optional(v.picklist(['hit', 'miss'])),
  model_ref: v.optional(v.string()),
  /** choice by option_outcomes: option -> its model. */
  model_refs: v.optional(ownRecord(v.string(), v.string())),
  /** choice by option_outcomes that was not answered: the option whose fit was not. */
  option: v.optional(v.string()),
  polarity: v.optional(v.nullable(v.string())),
  /** Which column was learned and which of its values were read as yes. */
  outcome: v.optional(v.looseObject({ column: v.string(), positive_values: v.array(v.string()) })),
  /** One quality; for choice by option_outcomes, option -> its model's quality. */
  quality: v.optional(v.union([QualitySchema, ownRecord(v.string(), QualitySchema)])),
  cases: v.optional(v.array(CaseResultSchema)),
  cases_note: v.optional(v.string()),
  ranked: v.optional(v.array(CaseResultSchema)),
  ranked_total: v.optional(Integer),
  ranked_note: v.optional(v.string()),
  /** rank: the first 100 unreadable cases, and how many there were. */
  not_scoreable: v.optional(v.array(CaseResultSchema)),
  not_scoreable_total: v.optional(Integer),
  levels_note: v.optional(v.string()),
  verdicts: v.optional(v.array(VerdictEntrySchema)),
  verdicts_withheld: v.optional(v.looseObject({ count: Integer, reason: v.string() })),
  /** docs/reference/ask.md#large-answers: which slice of the case list this page holds. */
  page: v.optional(ListPageSchema),
  model_expires_at: v.optional(v.string()),
  model_columns: v.optional(v.array(v.string())),
  /** docs/reference/models.md#profile: the namespace's profile the answer speaks with. */
  profile: v.optional(v.looseObject({ hash: v.string(), display: v.string(), exclusions_applied: v.array(v.string()) })),
  /** refused and not_yet: the codes of docs/reference/ask.md#states. */
  reasons: v.optional(v.array(v.string())),
  retry: v.optional(v.literal('unproductive')),
  /** What is short, and what there is. */
  needs: v.optional(
    v.looseObject({
      labeled_rows: v.nullable(Integer),
      positives: v.optional(Integer),
      columns: v.optional(Integer),
      countdown: v.optional(v.nullable(OpenMap)),
    }),
  ),
  have: v.optional(
    v.looseObject({
      labeled_rows: Integer,
      positives: Integer,
      /** The columns read as candidate predictors. */
      columns: v.optional(Integer),
      /** Of those, the ones left after the training part's guards (not constant, not restating the outcome). */
      predictive_columns: v.optional(Integer),
    }),
  ),
  /** A refusal or not_yet in one plain sentence, with its numbers. */
  explanation: v.optional(v.string()),
  /** choice refused as option_not_in_pattern: why, in words. */
  detail: v.optional(v.string()),
  next: v.optional(v.array(NextStepSchema)),
  /** refit_of: the drift report (docs/reference/outcomes.md#drift). */
  drift: v.optional(OpenMap),
});

/** docs/reference/tasks.md#pending `progress.facts_so_far`: what is known so far, never a chance. */
export const FactsSchema = v.looseObject({
  rows: v.optional(Integer),
  outcome: v.optional(v.string()),
  training_rows: v.optional(Integer),
  held_out_rows: v.optional(Integer),
  /** A small record checked by resampling (every labeled row held out once). */
  bootstrap: v.optional(v.boolean()),
});

/**
 * docs/reference/tasks.md#pending `progress` of a pending call: the finer step as `stage`, the share of its fits done, the
 * facts so far (a backtest's steps are loading, cutoff and grading).
 */
export const ProgressSchema = v.looseObject({
  stage: v.picklist(['reading', 'shaping', 'binning', 'fitting', 'deciding', 'scoring', 'signing', 'loading', 'cutoff', 'grading']),
  frac: v.pipe(v.number(), v.minValue(0), v.maxValue(1)),
  fit: v.optional(Integer),
  of: v.optional(Integer),
  /** While fitting: bags boosted so far of the fit's bags. */
  bag: v.optional(Integer),
  bags: v.optional(Integer),
  facts_so_far: FactsSchema,
});

/** docs/reference/ask.md#response (also svc_poll; docs/reference/tasks.md#pending adds `stage`, `elapsed_ms`, `watch_url` and `progress` while pending). */
export const AskResponseSchema = v.looseObject({
  status: v.picklist(['done', 'pending']),
  task_id: v.optional(TaskIdSchema),
  retry_after_ms: v.optional(Integer),
  stage: v.optional(v.picklist(['reading_data', 'reading_shape', 'asking', 'backtesting'])),
  elapsed_ms: v.optional(Integer),
  watch_url: v.optional(v.string()),
  progress: v.optional(ProgressSchema),
  contract: v.optional(v.string()),
  core_hash: v.optional(v.string()),
  /** The record asked about: its content hash (the fit cache key) and size. */
  record: v.optional(v.looseObject({ content_hash: v.string(), rows: v.optional(Integer), columns: v.optional(Integer) })),
  /** docs/reference/ask.md#namespace: echoed; null for the workspace's own models. */
  namespace: v.optional(v.nullable(v.string())),
  answers: v.optional(ownRecord(v.string(), AnswerSchema)),
  dataset_id: v.optional(v.string()),
  /** docs/reference/ask.md#shapes: the shape read, the as_of it was read at, its row counts and the features it built. */
  shape: v.optional(
    v.looseObject({
      kind: v.string(),
      as_of: v.optional(v.string()),
      counts: v.optional(ownRecord(v.string(), v.number())),
      features: v.optional(v.array(v.string())),
    }),
  ),
  fits_run: v.optional(Integer),
  billable_decisions: v.optional(Integer),
  /** On samples: nothing is billed. */
  free: v.optional(v.literal(true)),
  /** docs/reference/ask.md#large-answers: the whole stored answer (concise, compact, and paged MCP answers). */
  page: v.optional(PageInfoSchema),
  /** docs/reference/ask.md#request-fields export: the answer as CSV for 24 hours. */
  export: v.optional(v.looseObject({ format: v.literal('csv'), results_url: v.string(), expires_at: v.string() })),
});

export type Reason = v.InferOutput<typeof ReasonSchema>;
export type CaseResult = v.InferOutput<typeof CaseResultSchema>;
export type VerdictEntry = v.InferOutput<typeof VerdictEntrySchema>;
export type Answer = v.InferOutput<typeof AnswerSchema>;
export type AskResponse = v.InferOutput<typeof AskResponseSchema>;
