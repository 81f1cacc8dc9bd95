// svc_task_events (docs/reference/tasks.md#events): `GET /v1/tasks/{task_id}/events`, the Server-Sent Events of a pending task,
// with the key that asked, within its workspace. A done event's result_url is task_result (task-result.ts).
import { ServiceError } from '../../errors.ts';
import type { TaskRecord } from '../../store/index.ts';
import type { OpContext, OpResult, Services } from '../../runtime/services.ts';
import { FREE, type Operation, type OperationRequest } from '../operation.ts';
import { lastEventIdOf, taskEventStream, terminalEvent } from '../../runtime/events/stream.ts';
import { credentialCheck } from '../../runtime/events/credential-check.ts';

/** Headers of every event stream: never cached or buffered on the way (docs/reference/tasks.md#events heartbeats keep it open). */
export const SSE_HEADERS = { 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' };
export const SSE_TYPE = 'text/event-stream; charset=utf-8';

const TASK_ID = /^tk_[0-9a-z]{26}$/;

/** docs/decisions/0045-event-ids.md (docs/decisions/README.md): a done event's result_url, the GET form of svc_poll. */
export function resultUrlOf(services: Services, taskId: string): string {
  return `${services.config.baseUrl}/v1/tasks/${taskId}`;
}

/**
 * The stream of `task` from Last-Event-ID on, or 204 when the task is finished and the client already holds
 * its done or error event (docs/reference/tasks.md#events). `onClose` runs when the stream ends (or at once when none opens).
 */
export async function streamTask(
  services: Services,
  task: TaskRecord,
  req: OperationRequest,
  resultUrl: string | null,
  onClose?: () => void,
  stillAllowed?: () => Promise<ServiceError | null>,
): Promise<OpResult> {
  onClose = services.events.countStream(onClose);
  try {
    const after = lastEventIdOf(req.header('last-event-id'), req.query('last_event_id'));
    if (after !== null) {
      const last = await terminalEvent(services, task);
      if (last && after >= last.seq) {
        onClose?.();
        return { status: 204, body: null, headers: SSE_HEADERS };
      }
    }
    const bytes = taskEventStream(services, { task, after, resultUrl, signal: req.signal, onClose, stillAllowed });
    return { status: 200, body: null, headers: SSE_HEADERS, stream: { contentType: SSE_TYPE, bytes } };
  } catch (err) {
    onClose?.();
    throw err;
  }
}

/** The caller's task `taskId` (unknown_task when it is not one of this workspace's). */
export async function keyedTask(ctx: OpContext, taskId: string): Promise<TaskRecord> {
  const task = TASK_ID.test(taskId) ? await ctx.services.store.getTask(ctx.caller!.workspaceId, taskId) : null;
  if (!task) {
    throw new ServiceError('unknown_task', `no task ${JSON.stringify(taskId)} in this workspace (tasks are kept 24 hours)`, {
      field: 'task_id',
    });
  }
  return task;
}

async function runTaskEvents(ctx: OpContext, _body: unknown, req: OperationRequest): Promise<OpResult> {
  const taskId = req.params.task_id ?? '';
  const task = await keyedTask(ctx, taskId);
  // the key (or access token) is checked again as the stream goes: revoked, the stream ends
  // (docs/guides/pending-asks.md, "A stream whose key is revoked")
  const stillAllowed = credentialCheck(ctx.services, req.header('authorization'));
  return streamTask(ctx.services, task, req, resultUrlOf(ctx.services, taskId), undefined, stillAllowed);
}

const EVENTS_TEXT =
  'Server-Sent Events of a task an ask or a backtest (or a poll) returned as pending, with the key that asked: `stage` events ' +
  '(stage reading_data, reading_shape or asking; step reading, shaping, binning, fitting, deciding, scoring or signing; ' +
  'a backtest: stage reading_data or backtesting, step loading, cutoff or grading; ' +
  "message to show as is; elapsed_ms; facts so far; frac over the call's fits; fit and of; bag and bags while fitting), " +
  'one `answer` event per question (state and decision, never a chance), then `done` (with result_url: GET it with ' +
  'the same key for the answer) or `error` (the problem). Every event has an integer id; reconnect with Last-Event-ID ' +
  '(or ?last_event_id=) for the events after it; a finished task whose last event you hold answers 204. A comment ' +
  'line every 15 s; the stream closes at done, error or after about five minutes (reconnect), and with an error ' +
  'event (code unauthorized) within seconds of its key being revoked. ';

/** svc_task_events: REST only (an event stream), in the OpenAPI document. */
export const taskEventsOperation: Operation = {
  name: 'svc_task_events',
  resource: 'tasks',
  path: '/v1/tasks/:task_id/events',
  method: 'GET',
  auth: 'key',
  body: 'none',
  title: 'Watch a pending task',
  description: EVENTS_TEXT + FREE,
  status: 200,
  produces: 'text/event-stream',
  examples: [],
  run: runTaskEvents,
};
