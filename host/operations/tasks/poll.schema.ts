// svc_poll's request and reply.
import * as v from 'valibot';
import { TaskIdSchema } from '../../schemas/common.ts';
import { AskResponseSchema } from '../ask/ask.schema.ts';
import { BacktestResponseSchema } from '../backtest/backtest.schema.ts';

/** docs/reference/tasks.md#poll: follow a pending ask. */
export const PollRequestSchema = v.strictObject({
  task_id: TaskIdSchema,
  // docs/reference/tasks.md#pending: without compact, polling returns the full answer
  response_format: v.optional(v.picklist(['full', 'compact'])),
});

/** docs/reference/tasks.md#poll: the reply the ask (or the backtest) would have given, or pending. */
export const PollResponseSchema = v.union([AskResponseSchema, BacktestResponseSchema]);

export type PollRequest = v.InferOutput<typeof PollRequestSchema>;
