// svc_attest's request and reply.
import * as v from 'valibot';
import { LIMITS, maxChars, ModelRefSchema, NamespaceSchema, NonEmptyStringSchema } from '../../schemas/common.ts';

/** docs/reference/outcomes.md#attest (shape decided in docs/reference/ask.md#reasons): record that a case was acted on through a lever. */
export const AttestRequestSchema = v.strictObject({
  model_ref: ModelRefSchema,
  namespace: v.optional(NamespaceSchema),
  entity_id: NonEmptyStringSchema,
  lever_token: NonEmptyStringSchema,
  post_value: v.union([v.string(), v.number(), v.boolean()], 'must be a string, number or boolean'),
  acted_at: NonEmptyStringSchema,
  event_id: v.optional(v.pipe(v.string(), maxChars(LIMITS.eventIdMax))),
});

/** docs/reference/outcomes.md#attest svc_attest response. */
export const AttestResponseSchema = v.looseObject({
  compliant: v.boolean(),
  evaluated_feature: v.nullable(v.string()),
  evaluated_direction: v.nullable(v.string()),
  event_id: v.nullable(v.string()),
  written: v.boolean(),
  /** When the attestation is about the lever's own case and column: where the value was and where it went, in words (and a to_one_of lever's values). */
  evaluation: v.optional(v.looseObject({ from: v.string(), to: v.string(), values: v.optional(v.array(v.string())) })),
});

export type AttestRequest = v.InferOutput<typeof AttestRequestSchema>;
export type AttestResponse = v.InferOutput<typeof AttestResponseSchema>;
