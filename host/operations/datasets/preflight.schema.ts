// svc_preflight's request and reply.
import * as v from 'valibot';
import { NonEmptyStringSchema, RecordIdSchema } from '../../schemas/common.ts';
import { Integer } from '../../schemas/replies.ts';
import { ownRecord } from '../../schemas/record.ts';

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
  /** Whether one row is one case, and which column names the case (inferred from its name or its distinct values). */
  grain: v.looseObject({
    rows: Integer,
    entities: Integer,
    rows_per_entity_max: Integer,
    one_row_per_entity: v.boolean(),
    entity_column: v.nullable(v.string()),
    entity_inferred_from: v.picklist(['name', 'distinct', 'none']),
  }),
  /** Column -> how it reads. */
  resolutions: ownRecord(
    v.string(),
    v.looseObject({
      kind: v.string(),
      missing: Integer,
      distinct: Integer,
      ambiguous: v.optional(v.looseObject({ why: v.string(), examples: v.array(v.string()) })),
    }),
  ),
  fitness: v.nullable(
    v.looseObject({
      labeled_rows: Integer,
      positives: v.nullable(Integer),
      negatives: v.nullable(Integer),
      usable_predictors: Integer,
      positives_per_predictor: v.nullable(v.number()),
    }),
  ),
  blocking: v.array(v.string()),
  advisory: v.array(v.string()),
});

export type PreflightRequest = v.InferOutput<typeof PreflightRequestSchema>;
export type PreflightResponse = v.InferOutput<typeof PreflightResponseSchema>;
