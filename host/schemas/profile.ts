// A namespace profile's words and display of chances: set by svc_profile, used wherever answers are worded (core/says.ts).
import * as v from 'valibot';
import { LIMITS } from './common.ts';
import { ownRecord } from './record.ts';

/** docs/reference/models.md#profile: what a case is called, the outcome in plain words, and phrases for columns. */
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

/** docs/reference/models.md#profile: `display` of chances. */
export const PROFILE_DISPLAYS = ['chance', 'bands'] as const;

export type ProfileWords = v.InferOutput<typeof ProfileWordsSchema>;
export type ProfileDisplay = (typeof PROFILE_DISPLAYS)[number];
