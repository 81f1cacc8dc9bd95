// svc_poll (docs/reference/tasks.md#poll, docs/reference/tasks.md#pending): 202 while the task runs, then exactly the reply the ask would have given.
import { reviveProblem, ServiceError, type StoredProblem } from '../../errors.ts';
import { parseBody } from '../../schemas/index.ts';
import type { OpContext, OpResult } from '../../runtime/services.ts';
import { EXAMPLE_IDS, FREE, READ_ONLY, type Operation, type OperationRequest } from '../operation.ts';
import { replyInFormat } from '../ask/formats.ts';
import { RETRY_AFTER_MS, pendingProgress } from '../../runtime/tasks.ts';
import { watchUrlOf } from '../../signing/watch-token.ts';
import { firstStageOf, type StageData } from '../../runtime/events/types.ts';
import type { ResponseFormat } from '../ask/formats.ts';
import { PollRequestSchema, PollResponseSchema } from './poll.schema.ts';

async function runPoll(ctx: OpContext, raw: unknown, req: OperationRequest): Promise<OpResult> {
  const { task_id, response_format } = parseBody(PollRequestSchema, raw);
  return taskReply(ctx, task_id, 'task_id', req, response_format);
}

/**
 * What svc_poll answers for a task of the caller's workspace (also the GET of a done event's result_url):
 * 202 with its stage, progress and watch_url while it runs (docs/reference/tasks.md#pending), then the reply the call would have
 * given, in `format` (docs/reference/tasks.md#pending/3.7: compact, or paged over MCP).
 */
export async function taskReply(
  ctx: OpContext,
  taskId: string,
  field: string,
  req: OperationRequest,
  format?: ResponseFormat,
): Promise<OpResult> {
  const { store, config, now } = ctx.services;
  const task = await store.getTask(ctx.caller!.workspaceId, taskId);
  if (!task) throw new ServiceError('unknown_task', `no task ${taskId} in this workspace (tasks are kept 24 hours)`, { field });
  if (task.status === 'done') {
    // the full answer is stored once per task for its links
    const done: OpResult = { status: 200, body: JSON.parse(task.result!), bodyJson: () => task.result! };
    return replyInFormat(ctx, done, { format: format ?? 'full', transport: req.transport, storedId: `sa_${taskId.slice(3)}` });
  }
  if (task.status === 'failed') throw reviveProblem(JSON.parse(task.problem!) as StoredProblem);
  // The latest stage event holds every fact so far (events/progress.ts), whichever process wrote it.
  const last = await store.lastTaskEvent(taskId, 'stage');
  const data: Partial<StageData> = last ? (JSON.parse(last.data) as StageData) : firstStageOf(operationOf(task.request ?? ''));
  return {
    status: 202,
    body: {
      status: 'pending',
      task_id: taskId,
      retry_after_ms: RETRY_AFTER_MS,
      ...pendingProgress(data),
      elapsed_ms: Math.max(0, now() - task.created_at),
      watch_url: watchUrlOf(ctx.services, taskId, task.workspace_id, task.created_at),
    },
  };
}

/** svc_poll: the one declaration the transports, MCP, OpenAPI and tasks are derived from. */
export const pollOperation: Operation = {
  name: 'svc_poll',
  resource: 'tasks',
  path: '/v1/poll',
  method: 'POST',
  auth: 'key',
  body: 'json',
  title: 'Follow a pending ask',
  description:
    'Follows an ask that returned status "pending": call it with that task_id after retry_after_ms. Returns ' +
    '{status: "pending", task_id, retry_after_ms, stage, elapsed_ms, watch_url, progress} while the fit runs, then exactly the reply the ask ' +
    'would have returned (status "done"). Results are kept 24 hours; an unknown task_id is unknown_task. ' +
    FREE,
  request: PollRequestSchema,
  response: PollResponseSchema,
  status: 200,
  pending: true,
  tool: READ_ONLY,
  examples: [{ name: 'task', summary: 'The task_id an ask gave with status "pending"', value: { task_id: EXAMPLE_IDS.taskId } }],
  run: runPoll,
};

/** The operation a stored task request names ('' when unreadable: it then reads as an ask's). */
function operationOf(request: string): string {
  try {
    const op = (JSON.parse(request) as { operation?: unknown }).operation;
    return typeof op === 'string' ? op : '';
  } catch {
    return '';
  }
}
