// svc_delete_model's request and reply.
import * as v from 'valibot';
import { ModelRefSchema, NamespaceSchema } from '../../schemas/common.ts';

/** docs/reference/models.md#delete: deletes a model's bytes; its ref answers nothing from then on. */
export const DeleteModelRequestSchema = v.strictObject({
  model_ref: ModelRefSchema,
  namespace: v.optional(NamespaceSchema),
});

/** docs/reference/models.md#delete. */
export const DeleteModelResponseSchema = v.looseObject({ model_ref: v.string(), deleted: v.literal(true) });

export type DeleteModelRequest = v.InferOutput<typeof DeleteModelRequestSchema>;
