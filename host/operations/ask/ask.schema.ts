// svc_ask's request and reply. The request (schemas/ask.ts) is shared with the preview page, which
// validates asks with it too; the reply's answer pieces are shared with svc_poll and svc_page.
import * as v from 'valibot';
export { AskRequestSchema, type AskRequest } from '../../schemas/ask.ts';
import { TaskIdSchema } from '../../schemas/common.ts';
import { QUESTION_TYPES } from '../../schemas/question.ts';
import { SignatureSchema, VerdictSchema } from '../../schemas/verdict.ts';
import { ownRecord } from '../../schemas/record.ts';
import { Chance, Integer, Open } from '../../schemas/replies.ts';

/** docs/reference/ask.md#reasons (+ docs/reference/ask.md#reasons `range`). */
export const ReasonSchema = v.looseObject({
  feature_label: v.string(),
  value: v.optional(v.unknown()),
  likelihood_direction: v.picklist(['higher', 'lower']),
  strength: v.picklist(['strong', 'moderate']),
  association_not_causal: v.literal(true),
  range: v.optional(v.looseObject({ text: v.string() })),
});

/** docs/reference/ask.md#case-result (+ docs/reference/ask.md#bands band fields). `p` is a map option -> chance for choice. */
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

/** docs/reference/verdicts.md: one signed Verdict per answered question (per option for choice). */
export const VerdictEntrySchema = v.looseObject({
  option: v.optional(v.string()),
  verdict: VerdictSchema,
  signature: v.nullable(SignatureSchema),
});

/** docs/reference/ask.md#answer: read `state` first. */
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

/** docs/reference/tasks.md#pending `progress` of a pending call: the finer step as `stage`, the share of its fits done, the facts so far. */
export const ProgressSchema = v.looseObject({
  stage: v.picklist(['reading', 'shaping', 'binning', 'fitting', 'deciding', 'scoring', 'signing']),
  frac: v.pipe(v.number(), v.minValue(0), v.maxValue(1)),
  fit: v.optional(Integer),
  of: v.optional(Integer),
  facts_so_far: v.looseObject({}),
});

/** docs/reference/ask.md#response (also svc_poll; docs/reference/tasks.md#pending adds `stage`, `elapsed_ms`, `watch_url` and `progress` while pending). */
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

export type Reason = v.InferOutput<typeof ReasonSchema>;
export type CaseResult = v.InferOutput<typeof CaseResultSchema>;
export type VerdictEntry = v.InferOutput<typeof VerdictEntrySchema>;
export type Answer = v.InferOutput<typeof AnswerSchema>;
export type AskResponse = v.InferOutput<typeof AskResponseSchema>;
