// svc_drift's request and reply.
import * as v from 'valibot';
import { ModelRefSchema, NamespaceSchema } from '../../schemas/common.ts';
import { OpenMap } from '../../schemas/replies.ts';

/** docs/reference/outcomes.md#drift: compare a refit with the fit it replaced. */
export const DriftRequestSchema = v.strictObject({ model_ref: ModelRefSchema, namespace: v.optional(NamespaceSchema) });

/** docs/reference/outcomes.md#drift + docs/reference/README.md. */
export const DriftResponseSchema = v.looseObject({
  pattern: v.picklist(['unchanged', 'changed', 'no_prior']),
  recommendation: v.picklist(['keep', 'refit', 'abandon', 'no_check_yet']),
  refit_quality: v.optional(v.picklist(['worse', 'similar', 'better', 'not_comparable'])),
  keep_model_ref: v.optional(v.nullable(v.string())),
  note_code: v.optional(v.nullable(v.picklist(['refit_worse', 'prior_unusable', 'lift_not_confirmed']))),
  note: v.optional(v.nullable(v.string())),
  watch_url: v.optional(v.string()),
  /** The comparison's numbers, or `basis` saying why there is none (docs/reference/outcomes.md#drift). */
  report: v.optional(OpenMap),
});

export type DriftRequest = v.InferOutput<typeof DriftRequestSchema>;
export type DriftResponse = v.InferOutput<typeof DriftResponseSchema>;
