// svc_page's request and reply.
import * as v from 'valibot';
import { ownRecord } from '../../schemas/record.ts';
import { AnswerSchema } from './ask.schema.ts';

/** docs/reference/models.md#stored-answers: the next page of an MCP-paged answer; a cursor is a position, not a format. */
export const PageRequestSchema = v.strictObject({
  cursor: v.pipe(v.string(), v.minLength(10), v.maxLength(2048)),
  response_format: v.optional(v.picklist(['full', 'compact'])),
});

/** docs/reference/models.md#stored-answers/3.7: where a paged answer continues (next_cursor absent on the last page). */
export const PageInfoSchema = v.looseObject({
  answer_url: v.string(),
  expires_at: v.string(),
  next_cursor: v.optional(v.string()),
});

/** docs/reference/models.md#stored-answers: one page of a stored answer. */
export const PageResponseSchema = v.looseObject({
  status: v.literal('done'),
  answers: ownRecord(v.string(), AnswerSchema),
  page: PageInfoSchema,
});

export type PageRequest = v.InferOutput<typeof PageRequestSchema>;
