// svc_poll (spec 4.3, 3.2): 202 while the task runs, then exactly the reply the ask would have given.
import { reviveProblem, ServiceError, type StoredProblem } from '../errors.ts';
import { PollRequestSchema, parseBody, REQUEST_SCHEMAS, RESPONSE_SCHEMAS } from '../schemas/index.ts';
import type { OpContext, OpResult } from '../services.ts';
import { EXAMPLE_IDS, FREE, READ_ONLY, type Operation, type OperationRequest } from './operation.ts';
import { replyInFormat } from './ask/formats.ts';
import { RETRY_AFTER_MS } from './tasks.ts';

async function runPoll(ctx: OpContext, raw: unknown, req: OperationRequest): Promise<OpResult> {
  const { task_id, response_format } = parseBody(PollRequestSchema, raw);
  const task = await ctx.services.store.getTask(ctx.caller!.workspaceId, task_id);
  if (!task) throw new ServiceError('unknown_task', `no task ${task_id} in this workspace (tasks are kept 24 hours)`, { field: 'task_id' });
  if (task.status === 'done') {
    // additions 3.3/3.7: compact, or paged over MCP; the full answer is stored once per task for its links
    const done: OpResult = { status: 200, body: JSON.parse(task.result!), bodyJson: () => task.result! };
    return replyInFormat(ctx, done, { format: response_format ?? 'full', transport: req.transport, storedId: `sa_${task_id.slice(3)}` });
  }
  if (task.status === 'failed') throw reviveProblem(JSON.parse(task.problem!) as StoredProblem);
  return {
    status: 202,
    body: {
      status: 'pending',
      task_id,
      retry_after_ms: RETRY_AFTER_MS,
      stage: task.stage ?? 'reading_data',
      elapsed_ms: Math.max(0, ctx.services.now() - task.created_at),
    },
  };
}

/** svc_poll: the one declaration the transports, MCP, OpenAPI and tasks are derived from. */
export const pollOperation: Operation = {
  name: 'svc_poll',
  path: '/v1/poll',
  method: 'POST',
  auth: 'key',
  body: 'json',
  title: 'Follow a pending ask',
  description:
    'Follows an ask that returned status "pending": call it with that task_id after retry_after_ms. Returns ' +
    '{status: "pending", task_id, retry_after_ms, stage, elapsed_ms} while the fit runs, then exactly the reply the ask ' +
    'would have returned (status "done"). Results are kept 24 hours; an unknown task_id is unknown_task. ' +
    FREE,
  request: REQUEST_SCHEMAS.svc_poll,
  response: RESPONSE_SCHEMAS.svc_poll,
  status: 200,
  pending: true,
  tool: READ_ONLY,
  examples: [{ name: 'task', summary: 'The task_id an ask gave with status "pending"', value: { task_id: EXAMPLE_IDS.taskId } }],
  run: runPoll,
};
