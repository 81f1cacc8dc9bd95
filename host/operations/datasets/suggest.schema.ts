// svc_suggest's request and reply.
import * as v from 'valibot';
import { AskDataSchema } from '../../schemas/ask.ts';
import { LIMITS } from '../../schemas/common.ts';
import { OpenMap } from '../../schemas/replies.ts';

const ColumnSchema = v.pipe(v.string(), v.minLength(1), v.maxLength(LIMITS.columnNameMax));

/** docs/reference/map.md#suggest: candidate yes/no questions for a table, from the table alone. */
export const SuggestRequestSchema = v.strictObject({
  data: AskDataSchema,
  entity_column: ColumnSchema,
  time_column: v.optional(ColumnSchema),
  include_categories: v.optional(v.boolean()),
});

const SuggestCandidateSchema = v.looseObject({
  outcome_column: v.string(),
  positive_values: v.array(v.string()),
  values: v.array(v.string()),
  prevalence: v.nullable(v.number()),
  worth_asking: v.boolean(),
  defined_by: v.array(v.string()),
  /** A ready svc_ask body for this outcome. */
  question: OpenMap,
  why_not: v.optional(v.string()),
  code: v.optional(v.nullable(v.string())),
  facts: v.optional(v.looseObject({ rows: v.number(), positives: v.number(), prevalence: v.nullable(v.number()) })),
  next_step: v.optional(v.string()),
});

export const SuggestResponseSchema = v.looseObject({
  candidates: v.array(SuggestCandidateSchema),
  considered: v.number(),
  not_considered: v.optional(v.number()),
  not_checked: v.array(v.string()),
  categories_not_tried: v.optional(v.array(v.string())),
});

export type SuggestRequest = v.InferOutput<typeof SuggestRequestSchema>;
