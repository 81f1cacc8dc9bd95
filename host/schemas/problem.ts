// The problem+json body every operation answers an error with.
import * as v from 'valibot';
import { Integer } from './replies.ts';

/** docs/reference/errors.md#problem: application/problem+json (docs/reference/errors.md#problem adds doc_url and code-specific extras). */
export const ProblemSchema = v.looseObject({
  type: v.string(),
  title: v.string(),
  status: Integer,
  detail: v.string(),
  code: v.string(),
  remedy: v.string(),
  field: v.optional(v.string()),
  request_id: v.optional(v.string()),
});

export type ProblemBody = v.InferOutput<typeof ProblemSchema>;
