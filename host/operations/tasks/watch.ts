// svc_watch (docs/reference/outcomes.md#watch): `GET /v1/watch/{token}`, what a watch_url shows, read as JSON with no key. A model's
// link (from svc_track_record or svc_drift) shows its calibration and latest drift, exactly what those two calls
// answer now, with no rows of data; a task's link says where its event stream is (the watch page reads this first).
// Never counted against the workspace's budget; 410 watch_link_expired after 24 hours, 404 unknown_link otherwise.
import { ServiceError } from '../../errors.ts';
import type { Caller, OpContext, OpResult } from '../../runtime/services.ts';
import { driftBody } from '../models/drift.ts';
import { openModelWatchToken, openWatchToken, type ModelWatchGrant } from '../../signing/watch-token.ts';
import { wireNamespace } from '../models/model-links.ts';
import { FREE, type Operation, type OperationRequest } from '../operation.ts';
import { trackRecordBody } from '../models/track-record.ts';

export const unknownLink = () =>
  new ServiceError('unknown_link', 'this watch link is not one this service made (or what it shows is gone); use the watch_url whole');

export function expiredLink(expiresAt: number, what: string) {
  return new ServiceError('watch_link_expired', `this watch link expired at ${new Date(expiresAt).toISOString()}, ${what}`);
}

/** The workspace a link names, as the caller its reads run for (it holds no scopes: the reads need none). */
function linkCaller(workspaceId: string): Caller {
  return { workspaceId, via: 'key', keyId: null, subject: `watch:${workspaceId}`, mode: 'live', scopes: [] };
}

async function modelView(ctx: OpContext, g: ModelWatchGrant): Promise<Record<string, unknown>> {
  const { services } = ctx;
  // docs/reference/outcomes.md#watch's per-task limit, applied per model: 60 reads a minute (each read pairs every outcome)
  const slot = await services.events.openWatch(`model:${g.workspaceId}:${g.namespace}:${g.modelRef}`);
  if (!slot.ok) {
    throw new ServiceError(
      'watch_streams_limited',
      'this model was read through watch links 60 times in the last minute; wait retry_after_ms',
      {
        extra: { retry_after_ms: slot.retryAfterMs },
        headers: { 'Retry-After': String(Math.max(1, Math.ceil(slot.retryAfterMs / 1000))) },
      },
    );
  }
  slot.release();
  const as = { ...ctx, caller: linkCaller(g.workspaceId) };
  let trackRecord: Record<string, unknown>;
  try {
    trackRecord = await trackRecordBody(as, g.modelRef, g.namespace);
  } catch (err) {
    // a model this namespace no longer names reads as an unknown link; a deleted one keeps its 410 model_deleted
    if (err instanceof ServiceError && err.code === 'model_ref_missing') throw unknownLink();
    throw err;
  }
  let drift: Record<string, unknown> | null = null;
  let driftNote: string | null = null;
  try {
    drift = await driftBody(as, g.modelRef, g.namespace);
  } catch (err) {
    if (!(err instanceof ServiceError) || err.code !== 'drift_not_recorded') throw err;
    driftNote = err.message;
  }
  return {
    kind: 'model',
    shows: g.kind,
    model_ref: g.modelRef,
    namespace: wireNamespace(g.namespace),
    expires_at: new Date(g.expiresAt).toISOString(),
    read_at: new Date(services.now()).toISOString(),
    track_record: trackRecord,
    drift,
    ...(driftNote !== null ? { drift_note: driftNote } : {}),
  };
}

async function runWatch(ctx: OpContext, _body: unknown, req: OperationRequest): Promise<OpResult> {
  const { services } = ctx;
  const token = req.params.token ?? '';
  const model = openModelWatchToken(services.secrets, token);
  if (model) {
    if (services.now() >= model.expiresAt)
      throw expiredLink(model.expiresAt, '24 hours after it was given; call svc_track_record or svc_drift for a new one');
    return { status: 200, body: await modelView(ctx, model) };
  }
  const task = openWatchToken(services.secrets, token);
  if (!task) throw unknownLink();
  if (services.now() >= task.expiresAt) throw expiredLink(task.expiresAt, "with its task's answer");
  if (!(await services.store.getTask(task.workspaceId, task.taskId))) throw unknownLink();
  return {
    status: 200,
    body: {
      kind: 'task',
      task_id: task.taskId,
      expires_at: new Date(task.expiresAt).toISOString(),
      events_url: `${services.config.baseUrl}/v1/watch/${token}/events`,
    },
  };
}

/** svc_watch: REST only (a GET route), no key. */
export const watchOperation: Operation = {
  name: 'svc_watch',
  resource: 'tasks',
  path: '/v1/watch/:token',
  method: 'GET',
  auth: 'none',
  body: 'none',
  title: 'What a watch link shows',
  description:
    'The JSON behind a watch_url ({site_url}/watch/<token>), with no key. For the link of svc_track_record or ' +
    'svc_drift: kind "model", the model_ref, namespace, expires_at, and track_record and drift exactly as those ' +
    'calls answer now (without watch_url; drift null with drift_note when the refit was not recorded): calibration ' +
    'and latest drift, no rows of data. For the link of a pending ask or backtest: kind "task" and its events_url ' +
    '(svc_watch_events). 24 hours from when the link was given (then 410 watch_link_expired); an altered or unknown ' +
    'link is 404 unknown_link. A model is read through its links at most 60 times a minute (429 ' +
    "watch_streams_limited). Never counted against the workspace's budget. " +
    FREE,
  status: 200,
  examples: [],
  run: runWatch,
};
