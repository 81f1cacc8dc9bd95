// svc_poll's request and reply.
import * as v from 'valibot';
import { TaskIdSchema } from '../../schemas/common.ts';
import { AskResponseSchema } from '../ask/ask.schema.ts';

/** Spec 4.3: follow a pending ask. */
export const PollRequestSchema = v.strictObject({
  task_id: TaskIdSchema,
  // additions 3.3: without compact, polling returns the full answer
  response_format: v.optional(v.picklist(['full', 'compact'])),
});

/** Spec 4.3: the ask response. */
export const PollResponseSchema = AskResponseSchema;

export type PollRequest = v.InferOutput<typeof PollRequestSchema>;
