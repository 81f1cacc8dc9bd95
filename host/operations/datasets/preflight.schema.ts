// svc_preflight's request and reply.
import * as v from 'valibot';
import { NonEmptyStringSchema, RecordIdSchema } from '../../schemas/common.ts';
import { Open } from '../../schemas/replies.ts';

/** docs/reference/datasets.md#preflight: check a stored table or sample before asking. */
export const PreflightRequestSchema = v.strictObject({
  dataset_id: RecordIdSchema,
  outcome_column: v.optional(NonEmptyStringSchema),
  predictors: v.optional(v.array(v.string())),
  labelled_column: v.optional(v.string()),
});

/** docs/reference/datasets.md#preflight: fitness is present but may be null. */
export const PreflightResponseSchema = v.looseObject({
  dataset_id: v.string(),
  grain: Open,
  resolutions: Open,
  fitness: v.nullable(Open),
  blocking: v.array(v.string()),
  advisory: v.array(v.string()),
});

export type PreflightRequest = v.InferOutput<typeof PreflightRequestSchema>;
export type PreflightResponse = v.InferOutput<typeof PreflightResponseSchema>;
