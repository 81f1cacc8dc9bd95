// svc_report_outcomes' request and reply.
import * as v from 'valibot';
import { LIMITS, maxChars, ModelRefSchema, NamespaceSchema, NonEmptyStringSchema } from '../../schemas/common.ts';
import { Integer } from '../../schemas/replies.ts';

/** docs/reference/outcomes.md#report: a reported case id is letters, digits and `_ . : @ # + / -`, at most 128, no spaces. */
export const OutcomeEntityIdSchema = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9_.:@#+/-]{1,128}$/, 'must be 1 to 128 letters, digits or _ . : @ # + / - (no spaces)'),
);

/** docs/reference/outcomes.md#report: one real outcome; `outcome` is yes/no as 0/1, true/false or a string the record uses. */
export const OutcomeItemSchema = v.strictObject({
  entity_id: OutcomeEntityIdSchema,
  outcome: v.union([v.boolean(), v.pipe(v.number(), v.integer()), v.string()], 'must be a boolean, an integer (0/1) or a string'),
  observed_at: NonEmptyStringSchema,
  event_id: v.optional(v.pipe(v.string(), maxChars(LIMITS.eventIdMax))),
});

/** docs/reference/outcomes.md#report/8: 1 to 10,000 outcomes for one model_ref. */
export const ReportOutcomesRequestSchema = v.strictObject({
  model_ref: ModelRefSchema,
  namespace: v.optional(NamespaceSchema),
  outcomes: v.pipe(v.array(OutcomeItemSchema), v.minLength(1), v.maxLength(LIMITS.outcomesMax)),
  // docs/reference/outcomes.md#report: true writes the valid rows and answers results[] for every row; default all or nothing
  partial: v.optional(v.boolean()),
});

/** docs/reference/outcomes.md#report: only `written` is required; `partial: true` adds a result for every row. */
export const ReportOutcomesResponseSchema = v.looseObject({
  written: Integer,
  duplicates: v.optional(Integer),
  results: v.optional(
    v.array(
      v.looseObject({
        index: Integer,
        status: v.picklist(['written', 'duplicate', 'error']),
        field: v.optional(v.string()),
        detail: v.optional(v.string()),
      }),
    ),
  ),
});

export type OutcomeItem = v.InferOutput<typeof OutcomeItemSchema>;
export type ReportOutcomesRequest = v.InferOutput<typeof ReportOutcomesRequestSchema>;
export type ReportOutcomesResponse = v.InferOutput<typeof ReportOutcomesResponseSchema>;
