// svc_evidence's request and reply.
import * as v from 'valibot';
import { ModelRefSchema, NamespaceSchema } from '../../schemas/common.ts';
import { Integer } from '../../schemas/replies.ts';

/** docs/reference/outcomes.md#evidence (shape decided in docs/reference/outcomes.md#report): outcomes of cases acted on versus not acted on. */
export const EvidenceRequestSchema = v.strictObject({ model_ref: ModelRefSchema, namespace: v.optional(NamespaceSchema) });

/** docs/reference/outcomes.md#evidence svc_evidence response: `live` stays null until each group has 30 cases with an outcome. */
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
    compliant_attestations: Integer,
    n_acted: Integer,
    n_not_acted: Integer,
    entities_with_outcome: Integer,
    /** Cases with an outcome each group needs before `live` is given. */
    needed_per_group: Integer,
  }),
  /** Observational, not causal: said on every reply. */
  note: v.string(),
});

export type EvidenceRequest = v.InferOutput<typeof EvidenceRequestSchema>;
export type EvidenceResponse = v.InferOutput<typeof EvidenceResponseSchema>;
