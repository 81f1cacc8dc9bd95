// svc_extend_model's request and reply.
import * as v from 'valibot';
import { ModelDaysSchema, ModelRefSchema, NamespaceSchema } from '../../schemas/common.ts';

/** docs/reference/models.md#extend: sets a live model's expiry to `days` from now. */
export const ExtendModelRequestSchema = v.strictObject({
  model_ref: ModelRefSchema,
  days: ModelDaysSchema,
  namespace: v.optional(NamespaceSchema),
});

/** docs/reference/models.md#extend. */
export const ExtendModelResponseSchema = v.looseObject({
  model_ref: v.string(),
  model_expires_at: v.string(),
  /** Present when the expiry was kept because it was already later than `days` from now. */
  note: v.optional(v.string()),
});

export type ExtendModelRequest = v.InferOutput<typeof ExtendModelRequestSchema>;
