// svc_profile's request and reply; the profile's words and display are shared (schemas/profile.ts).
import * as v from 'valibot';
import { NamespaceSchema } from '../../schemas/common.ts';
import { PROFILE_DISPLAYS, ProfileWordsSchema } from '../../schemas/profile.ts';
import { ownRecord } from '../../schemas/record.ts';

const ColumnListSchema = v.pipe(v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(200))), v.maxLength(200));

/** docs/reference/models.md#profile: sending any of words, exclude, fixed, display replaces the whole profile; none reads it. */
export const ProfileRequestSchema = v.strictObject({
  namespace: v.optional(NamespaceSchema),
  words: v.optional(ProfileWordsSchema),
  exclude: v.optional(ColumnListSchema),
  fixed: v.optional(ColumnListSchema),
  display: v.optional(v.picklist(PROFILE_DISPLAYS)),
});

/** docs/reference/models.md#profile: the namespace (null: the workspace's own) and its profile (null: none). */
export const ProfileResponseSchema = v.looseObject({
  namespace: v.nullable(v.string()),
  profile: v.nullable(
    v.looseObject({
      words: v.looseObject({
        case: v.optional(v.string()),
        outcome: v.optional(v.string()),
        columns: v.optional(ownRecord(v.string(), v.string())),
      }),
      exclude: v.array(v.string()),
      fixed: v.array(v.string()),
      display: v.picklist(['chance', 'bands']),
      hash: v.string(),
    }),
  ),
});

export type ProfileRequest = v.InferOutput<typeof ProfileRequestSchema>;
