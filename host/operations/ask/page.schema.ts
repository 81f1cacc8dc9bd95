// svc_page's request and reply.
import * as v from 'valibot';
import { ownRecord } from '../../schemas/record.ts';
import { AnswerSchema, PageInfoSchema } from './ask.schema.ts';
export { PageInfoSchema };

/** docs/reference/models.md#stored-answers: the next page of an MCP-paged answer; a cursor is a position, not a format. */
export const PageRequestSchema = v.strictObject({
  cursor: v.pipe(v.string(), v.minLength(10), v.maxLength(2048)),
  response_format: v.optional(v.picklist(['full', 'compact'])),
});

/** docs/reference/models.md#stored-answers: one page of a stored answer. */
export const PageResponseSchema = v.looseObject({
  status: v.literal('done'),
  answers: ownRecord(v.string(), AnswerSchema),
  page: PageInfoSchema,
});

export type PageRequest = v.InferOutput<typeof PageRequestSchema>;
