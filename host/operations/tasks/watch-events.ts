// svc_watch_events (docs/reference/tasks.md#watch): `GET /v1/watch/{token}/events`, the stream of one task for anyone holding
// its watch_url; no key, never counted against the workspace's budget, its done event without result_url.
import { ServiceError } from '../../errors.ts';
import type { OpContext, OpResult } from '../../runtime/services.ts';
import { FREE, type Operation, type OperationRequest } from '../operation.ts';
import { openModelWatchToken, openWatchToken } from '../../signing/watch-token.ts';
import { streamTask } from './task-events.ts';

const unknownLink = () =>
  new ServiceError('unknown_link', 'this watch link is not one this service made (or its task is gone); use the watch_url whole');

async function runWatchEvents(ctx: OpContext, _body: unknown, req: OperationRequest): Promise<OpResult> {
  const { services } = ctx;
  const grant = openWatchToken(services.secrets, req.params.token ?? '');
  if (!grant && openModelWatchToken(services.secrets, req.params.token ?? '')) {
    // a model's link (svc_track_record, svc_drift) has no stream: its view is a JSON read
    throw new ServiceError('unknown_link', "this watch link shows a model's calibration, not a task: read GET /v1/watch/<token>");
  }
  if (!grant) throw unknownLink();
  if (services.now() >= grant.expiresAt) {
    throw new ServiceError(
      'watch_link_expired',
      `this watch link expired at ${new Date(grant.expiresAt).toISOString()}, with its task's answer`,
    );
  }
  const task = await services.store.getTask(grant.workspaceId, grant.taskId);
  if (!task) throw unknownLink();
  const slot = await services.events.openWatch(task.id);
  if (!slot.ok) {
    const why = slot.why === 'open' ? '5 streams of this task are open at once' : '60 streams of this task opened in the last minute';
    throw new ServiceError('watch_streams_limited', `${why}; wait retry_after_ms, then reconnect`, {
      extra: { retry_after_ms: slot.retryAfterMs },
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(slot.retryAfterMs / 1000))) },
    });
  }
  return streamTask(services, task, req, null, slot.release);
}

/** svc_watch_events: REST only (an event stream), no key. */
export const watchEventsOperation: Operation = {
  name: 'svc_watch_events',
  resource: 'tasks',
  path: '/v1/watch/:token/events',
  method: 'GET',
  auth: 'none',
  body: 'none',
  title: 'Watch a task through its watch link',
  description:
    'The same stream as svc_task_events for the token of a watch_url ({site_url}/watch/<token>), with no key: one ' +
    'task per link, for 24 hours (then 410 watch_link_expired); its done event carries no result_url. Per task at ' +
    'most 5 streams open at once and 60 opens a minute (429 watch_streams_limited with retry_after_ms). Never counted ' +
    "against the workspace's budget. " +
    FREE,
  status: 200,
  produces: 'text/event-stream',
  examples: [],
  run: runWatchEvents,
};
