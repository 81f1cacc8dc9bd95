// Spec 4.3-4.11 and wire.md "The other operations": requests of the supporting operations.
import * as v from 'valibot';
import { LIMITS, maxChars, ModelRefSchema, NamespaceSchema, NonEmptyStringSchema, RecordIdSchema, TaskIdSchema } from './common.ts';
import { ownRecord } from './record.ts';

/** Spec 4.3: follow a pending ask. */
export const PollRequestSchema = v.strictObject({
  task_id: TaskIdSchema,
  // additions 3.3: without compact, polling returns the full answer
  response_format: v.optional(v.picklist(['full', 'compact'])),
});

/** Spec 4.4: check a stored table or sample before asking. */
export const PreflightRequestSchema = v.strictObject({
  dataset_id: RecordIdSchema,
  outcome_column: v.optional(NonEmptyStringSchema),
  predictors: v.optional(v.array(v.string())),
  labelled_column: v.optional(v.string()),
});

/** additions 3.9: a reported case id is letters, digits and `_ . : @ # + / -`, at most 128, no spaces. */
export const OutcomeEntityIdSchema = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9_.:@#+/-]{1,128}$/, 'must be 1 to 128 letters, digits or _ . : @ # + / - (no spaces)'),
);

/** Spec 2.12: one real outcome; `outcome` is yes/no as 0/1, true/false or a string the record uses. */
export const OutcomeItemSchema = v.strictObject({
  entity_id: OutcomeEntityIdSchema,
  outcome: v.union([v.boolean(), v.pipe(v.number(), v.integer()), v.string()], 'must be a boolean, an integer (0/1) or a string'),
  observed_at: NonEmptyStringSchema,
  event_id: v.optional(v.pipe(v.string(), maxChars(LIMITS.eventIdMax))),
});

/** Spec 4.5/8: 1 to 10,000 outcomes for one model_ref. */
export const ReportOutcomesRequestSchema = v.strictObject({
  model_ref: ModelRefSchema,
  namespace: v.optional(NamespaceSchema),
  outcomes: v.pipe(v.array(OutcomeItemSchema), v.minLength(1), v.maxLength(LIMITS.outcomesMax)),
  // additions 3.9: true writes the valid rows and answers results[] for every row; default all or nothing
  partial: v.optional(v.boolean()),
});

/** Spec 4.6: compare a refit with the fit it replaced. */
export const DriftRequestSchema = v.strictObject({ model_ref: ModelRefSchema, namespace: v.optional(NamespaceSchema) });

/** Spec 2.11: a Verdict allows further properties; pass it on exactly as received. */
export const VerdictSchema = v.looseObject({ verdict_id: v.string(), kind: v.string() });
/** Spec 2.11: a signature is an object of string values. */
export const SignatureSchema = ownRecord(v.string(), v.string());

/** Spec 4.7: verify a Verdict; the top level is strict, the Verdict itself is not. */
export const VerifyRequestSchema = v.strictObject({ verdict: VerdictSchema, signature: SignatureSchema });

/** Spec 4.8: an empty object, no properties allowed. */
export const DescribeRequestSchema = v.strictObject({});

/** Spec 4.10 (shape decided in wire.md): record that a case was acted on through a lever. */
export const AttestRequestSchema = v.strictObject({
  model_ref: ModelRefSchema,
  namespace: v.optional(NamespaceSchema),
  entity_id: NonEmptyStringSchema,
  lever_token: NonEmptyStringSchema,
  post_value: v.union([v.string(), v.number(), v.boolean()], 'must be a string, number or boolean'),
  acted_at: NonEmptyStringSchema,
  event_id: v.optional(v.pipe(v.string(), maxChars(LIMITS.eventIdMax))),
});

/** Spec 4.11 (shape decided in wire.md): outcomes of cases acted on versus not acted on. */
export const EvidenceRequestSchema = v.strictObject({ model_ref: ModelRefSchema, namespace: v.optional(NamespaceSchema) });

export type PollRequest = v.InferOutput<typeof PollRequestSchema>;
export type PreflightRequest = v.InferOutput<typeof PreflightRequestSchema>;
export type OutcomeItem = v.InferOutput<typeof OutcomeItemSchema>;
export type ReportOutcomesRequest = v.InferOutput<typeof ReportOutcomesRequestSchema>;
export type DriftRequest = v.InferOutput<typeof DriftRequestSchema>;
export type Verdict = v.InferOutput<typeof VerdictSchema>;
export type Signature = v.InferOutput<typeof SignatureSchema>;
export type VerifyRequest = v.InferOutput<typeof VerifyRequestSchema>;
export type DescribeRequest = v.InferOutput<typeof DescribeRequestSchema>;
export type AttestRequest = v.InferOutput<typeof AttestRequestSchema>;
export type EvidenceRequest = v.InferOutput<typeof EvidenceRequestSchema>;
