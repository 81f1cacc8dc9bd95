// Contract 1.1 "ship a product" requests (additions 2.2, 2.3, 2.5, 2.6): profiles, pages of large answers,
// and a model's life.
import * as v from 'valibot';
import { LIMITS, ModelDaysSchema, ModelRefSchema, NamespaceSchema } from '../../schemas/common.ts';
import { ownRecord } from '../../schemas/record.ts';

/** additions 2.2: what a case is called, the outcome in plain words, and phrases for columns. */
export const ProfileWordsSchema = v.strictObject({
  case: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(40))),
  outcome: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(80))),
  columns: v.optional(
    v.pipe(
      ownRecord(v.pipe(v.string(), v.minLength(1), v.maxLength(LIMITS.columnNameMax)), v.pipe(v.string(), v.minLength(1), v.maxLength(80))),
      v.maxEntries(200),
    ),
  ),
});

const ColumnListSchema = v.pipe(v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(200))), v.maxLength(200));

/** additions 2.2: `display` of chances. */
export const PROFILE_DISPLAYS = ['chance', 'bands'] as const;

/** additions 2.2: sending any of words, exclude, fixed, display replaces the whole profile; none reads it. */
export const ProfileRequestSchema = v.strictObject({
  namespace: v.optional(NamespaceSchema),
  words: v.optional(ProfileWordsSchema),
  exclude: v.optional(ColumnListSchema),
  fixed: v.optional(ColumnListSchema),
  display: v.optional(v.picklist(PROFILE_DISPLAYS)),
});

/** additions 2.3: the next page of an MCP-paged answer; a cursor is a position, not a format. */
export const PageRequestSchema = v.strictObject({
  cursor: v.pipe(v.string(), v.minLength(10), v.maxLength(2048)),
  response_format: v.optional(v.picklist(['full', 'compact'])),
});

/** additions 2.5: sets a live model's expiry to `days` from now. */
export const ExtendModelRequestSchema = v.strictObject({
  model_ref: ModelRefSchema,
  days: ModelDaysSchema,
  namespace: v.optional(NamespaceSchema),
});

/** additions 2.6: deletes a model's bytes; its ref answers nothing from then on. */
export const DeleteModelRequestSchema = v.strictObject({
  model_ref: ModelRefSchema,
  namespace: v.optional(NamespaceSchema),
});

export type ProfileRequest = v.InferOutput<typeof ProfileRequestSchema>;
export type ProfileWords = v.InferOutput<typeof ProfileWordsSchema>;
export type ProfileDisplay = (typeof PROFILE_DISPLAYS)[number];
export type PageRequest = v.InferOutput<typeof PageRequestSchema>;
export type ExtendModelRequest = v.InferOutput<typeof ExtendModelRequestSchema>;
export type DeleteModelRequest = v.InferOutput<typeof DeleteModelRequestSchema>;
