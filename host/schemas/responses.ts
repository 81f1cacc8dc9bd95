// Response bodies (spec 2.7-2.13, 4.2-4.12, wire.md): loose objects that document required fields for OpenAPI/MCP.
import * as v from 'valibot';
import { DatasetIdSchema, TaskIdSchema } from './common.ts';
import { QUESTION_TYPES } from './question.ts';
import { SignatureSchema, VerdictSchema } from './operations.ts';
import { ownRecord } from './record.ts';

const Integer = v.pipe(v.number(), v.integer());
const Chance = v.pipe(v.number(), v.minValue(0), v.maxValue(1));
const Open = v.looseObject({});

/** Spec 2.10 (+ wire.md `range`). */
export const ReasonSchema = v.looseObject({
  feature_label: v.string(),
  value: v.optional(v.unknown()),
  likelihood_direction: v.picklist(['higher', 'lower']),
  strength: v.picklist(['strong', 'moderate']),
  association_not_causal: v.literal(true),
  range: v.optional(v.looseObject({ text: v.string() })),
});

/** Spec 2.9 (+ wire.md band fields). `p` is a map option -> chance for choice. */
export const CaseResultSchema = v.looseObject({
  entity_id: v.string(),
  p: v.union([Chance, ownRecord(v.string(), Chance)]),
  level: v.optional(v.string()),
  most_likely: v.optional(v.string()),
  least_likely: v.optional(v.string()),
  choice: v.optional(v.string()),
  position: v.optional(v.pipe(Integer, v.minValue(1))),
  reasons: v.pipe(v.array(ReasonSchema), v.maxLength(4)),
  levers: v.optional(v.array(Open)),
  refused: v.optional(v.boolean()),
  refused_reason: v.optional(v.string()),
  band: v.optional(v.picklist(['act', 'escalate', 'refuse'])),
  band_reason: v.optional(v.string()),
  max_autonomy: v.optional(v.picklist(['L0', 'L1', 'L2', 'L3'])),
});

/** Spec 2.11: one signed Verdict per answered question (per option for choice). */
export const VerdictEntrySchema = v.looseObject({
  option: v.optional(v.string()),
  verdict: VerdictSchema,
  signature: v.nullable(SignatureSchema),
});

/** Spec 2.8: read `state` first. */
export const AnswerSchema = v.looseObject({
  type: v.picklist(QUESTION_TYPES),
  state: v.picklist(['answered', 'refused', 'not_yet']),
  cache: v.optional(v.picklist(['hit', 'miss'])),
  model_ref: v.optional(v.string()),
  model_refs: v.optional(ownRecord(v.string(), v.string())),
  polarity: v.optional(v.nullable(v.string())),
  quality: v.optional(Open),
  cases: v.optional(v.array(CaseResultSchema)),
  ranked: v.optional(v.array(CaseResultSchema)),
  ranked_total: v.optional(Integer),
  verdicts: v.optional(v.array(VerdictEntrySchema)),
  reasons: v.optional(v.array(v.string())),
  retry: v.optional(v.literal('unproductive')),
  needs: v.optional(v.looseObject({ labeled_rows: v.nullable(Integer) })),
  drift: v.optional(Open),
});

/** Spec 3.3 `progress` of a pending call: the finer step as `stage`, the share of its fits done, the facts so far. */
export const ProgressSchema = v.looseObject({
  stage: v.picklist(['reading', 'shaping', 'binning', 'fitting', 'deciding', 'scoring', 'signing']),
  frac: v.pipe(v.number(), v.minValue(0), v.maxValue(1)),
  fit: v.optional(Integer),
  of: v.optional(Integer),
  facts_so_far: v.looseObject({}),
});

/** Spec 2.7 (also svc_poll; spec 3.3 adds `stage`, `elapsed_ms`, `watch_url` and `progress` while pending). */
export const AskResponseSchema = v.looseObject({
  status: v.picklist(['done', 'pending']),
  task_id: v.optional(TaskIdSchema),
  retry_after_ms: v.optional(Integer),
  stage: v.optional(v.picklist(['reading_data', 'reading_shape', 'asking'])),
  elapsed_ms: v.optional(Integer),
  watch_url: v.optional(v.string()),
  progress: v.optional(ProgressSchema),
  contract: v.optional(v.string()),
  core_hash: v.optional(v.string()),
  record: v.optional(v.looseObject({ content_hash: v.string() })),
  answers: v.optional(ownRecord(v.string(), AnswerSchema)),
  dataset_id: v.optional(v.string()),
  shape: v.optional(v.looseObject({ kind: v.string() })),
  fits_run: v.optional(Integer),
  billable_decisions: v.optional(Integer),
});

/** Spec 2.13: application/problem+json (wire.md adds doc_url and code-specific extras). */
export const ProblemSchema = v.looseObject({
  type: v.string(),
  title: v.string(),
  status: Integer,
  detail: v.string(),
  code: v.string(),
  remedy: v.string(),
  field: v.optional(v.string()),
  request_id: v.optional(v.string()),
});

/** Spec 4.2: rows and columns are required but may be null. */
export const AddDatasetResponseSchema = v.looseObject({
  dataset_id: DatasetIdSchema,
  status: v.picklist(['ready', 'open', 'awaiting_upload']),
  rows: v.nullable(Integer),
  columns: v.nullable(v.array(v.string())),
  upload_url: v.optional(v.string()),
  upload_method: v.optional(v.literal('PUT')),
  expires_in: v.optional(Integer),
  upload_pieces_url: v.optional(v.string()),
  upload_page: v.optional(v.string()),
  upload_page_expires_in: v.optional(Integer),
});

/** Spec 4.3: the ask response. */
export const PollResponseSchema = AskResponseSchema;

/** Spec 4.4: fitness is present but may be null. */
export const PreflightResponseSchema = v.looseObject({
  dataset_id: v.string(),
  grain: Open,
  resolutions: Open,
  fitness: v.nullable(Open),
  blocking: v.array(v.string()),
  advisory: v.array(v.string()),
});

/** additions 3.9: only `written` is required; `partial: true` adds a result for every row. */
export const ReportOutcomesResponseSchema = v.looseObject({
  written: Integer,
  duplicates: v.optional(Integer),
  results: v.optional(
    v.array(
      v.looseObject({
        index: Integer,
        status: v.picklist(['written', 'duplicate', 'error']),
        field: v.optional(v.string()),
        detail: v.optional(v.string()),
      }),
    ),
  ),
});

/** Spec 4.6 + additions 3.10. */
export const DriftResponseSchema = v.looseObject({
  pattern: v.picklist(['unchanged', 'changed', 'no_prior']),
  recommendation: v.picklist(['keep', 'refit', 'abandon', 'no_check_yet']),
  refit_quality: v.optional(v.picklist(['worse', 'similar', 'better', 'not_comparable'])),
  keep_model_ref: v.optional(v.nullable(v.string())),
  note_code: v.optional(v.nullable(v.picklist(['refit_worse', 'prior_unusable']))),
  note: v.optional(v.nullable(v.string())),
  watch_url: v.optional(v.string()),
  report: v.optional(Open),
});

export const VerifyResponseSchema = v.looseObject({
  status: v.picklist(['valid', 'invalid_signature', 'expired', 'unknown_key']),
});

/** additions 3.10: a journey's first call; `body` is ready to send as it is, `needs` what to fill in from earlier calls. */
const JourneyCallSchema = v.looseObject({
  operation: v.string(),
  does: v.string(),
  body: v.optional(Open),
  needs: v.optional(v.array(v.string())),
});

export const DescribeResponseSchema = v.looseObject({
  interface_version: v.string(),
  contract: v.string(),
  question_types: v.array(Open),
  samples: v.array(Open),
  /** additions 1 and 3.10. */
  journeys: v.array(v.looseObject({ name: v.string(), title: v.string(), summary: v.string(), first_calls: v.array(JourneyCallSchema) })),
});

export const DeleteDatasetResponseSchema = v.looseObject({ dataset_id: v.string(), deleted: v.literal(true) });

/** Spec 4.12: 201 with a test key shown once. */
export const RegisterResponseSchema = v.looseObject({
  api_key: v.string(),
  mode: v.literal('test'),
  note: v.optional(v.string()),
});

/** wire.md svc_attest response. */
export const AttestResponseSchema = v.looseObject({
  compliant: v.boolean(),
  evaluated_feature: v.nullable(v.string()),
  evaluated_direction: v.nullable(v.string()),
  event_id: v.nullable(v.string()),
  written: v.boolean(),
});

/** wire.md svc_evidence response: `live` stays null until each group has 30 cases with an outcome. */
export const EvidenceResponseSchema = v.looseObject({
  model_ref: v.string(),
  live: v.nullable(
    v.looseObject({
      n_acted: Integer,
      n_not_acted: Integer,
      rate_acted: v.number(),
      rate_not_acted: v.number(),
      diff: v.number(),
      ci_low: v.number(),
      ci_high: v.number(),
      small_n: v.boolean(),
    }),
  ),
  progress: v.looseObject({
    attestations: Integer,
    n_acted: Integer,
    n_not_acted: Integer,
    entities_with_outcome: Integer,
  }),
});

/** additions 2.2: the namespace (null: the workspace's own) and its profile (null: none). */
export const ProfileResponseSchema = v.looseObject({
  namespace: v.nullable(v.string()),
  profile: v.nullable(
    v.looseObject({
      words: v.looseObject({}),
      exclude: v.array(v.string()),
      fixed: v.array(v.string()),
      display: v.picklist(['chance', 'bands']),
      hash: v.string(),
    }),
  ),
});

/** additions 2.3/3.7: where a paged answer continues (next_cursor absent on the last page). */
export const PageInfoSchema = v.looseObject({
  answer_url: v.string(),
  expires_at: v.string(),
  next_cursor: v.optional(v.string()),
});

/** additions 2.3: one page of a stored answer. */
export const PageResponseSchema = v.looseObject({
  status: v.literal('done'),
  answers: ownRecord(v.string(), AnswerSchema),
  page: PageInfoSchema,
});

/** additions 2.5. */
export const ExtendModelResponseSchema = v.looseObject({ model_ref: v.string(), model_expires_at: v.string() });

/** additions 2.6. */
export const DeleteModelResponseSchema = v.looseObject({ model_ref: v.string(), deleted: v.literal(true) });

export type Reason = v.InferOutput<typeof ReasonSchema>;
export type CaseResult = v.InferOutput<typeof CaseResultSchema>;
export type VerdictEntry = v.InferOutput<typeof VerdictEntrySchema>;
export type Answer = v.InferOutput<typeof AnswerSchema>;
export type AskResponse = v.InferOutput<typeof AskResponseSchema>;
export type ProblemBody = v.InferOutput<typeof ProblemSchema>;
export type AddDatasetResponse = v.InferOutput<typeof AddDatasetResponseSchema>;
export type PreflightResponse = v.InferOutput<typeof PreflightResponseSchema>;
export type ReportOutcomesResponse = v.InferOutput<typeof ReportOutcomesResponseSchema>;
export type DriftResponse = v.InferOutput<typeof DriftResponseSchema>;
export type VerifyResponse = v.InferOutput<typeof VerifyResponseSchema>;
export type DescribeResponse = v.InferOutput<typeof DescribeResponseSchema>;
export type DeleteDatasetResponse = v.InferOutput<typeof DeleteDatasetResponseSchema>;
export type RegisterResponse = v.InferOutput<typeof RegisterResponseSchema>;
export type AttestResponse = v.InferOutput<typeof AttestResponseSchema>;
export type EvidenceResponse = v.InferOutput<typeof EvidenceResponseSchema>;
