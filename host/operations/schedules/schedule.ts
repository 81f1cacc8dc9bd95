// svc_schedule (docs/reference/schedules.md#schedule): answers a confirmed mapping on a cadence. The schedule keeps the key it acts
// as (id and scopes) and the mapping's sealed fetch_headers; its first run starts now, the next ones when
// the dispatcher (dispatch.ts) finds them due; each run is a task (run.ts) whose watch_url the reply gives.
import { ServiceError } from '../../errors.ts';
import { parseBody } from '../../schemas/index.ts';
import type { ScheduleRecord } from '../../store/index.ts';
import type { OpContext, OpResult } from '../../runtime/services.ts';
import { testKeyRefusal } from '../datasets/errors.ts';
import { watchUrlOf } from '../../signing/watch-token.ts';
import { newId } from '../../lib/ids.ts';
import { keptMapping } from '../map/map.ts';
import { EXAMPLE_IDS, type Operation } from '../operation.ts';
import { startRun } from './dispatch.ts';
import { executeScheduleRun } from './run.ts';
import { scheduleView } from './view.ts';
import { ScheduleRequestSchema, ScheduleResponseSchema } from './schedule.schema.ts';

async function runSchedule(ctx: OpContext, raw: unknown): Promise<OpResult> {
  const req = parseBody(ScheduleRequestSchema, raw);
  const caller = ctx.caller!;
  // docs/reference/schedules.md#runs: the runs act as a live API key; an OAuth sign-in is refused, a test key reads samples only
  if (caller.via !== 'key' || caller.keyId === null) {
    throw new ServiceError(
      'schedule_key_required',
      'authorization: svc_schedule needs a live API key; an OAuth access token cannot be lent to scheduled runs',
      {
        field: 'authorization',
      },
    );
  }
  if (caller.mode === 'test') {
    throw testKeyRefusal(ctx, 'a schedule fetches your own sources every period, which a test key cannot; use a live key (svck_live_)');
  }
  const namespace = req.namespace ?? '';
  const kept = await keptMapping(ctx, namespace, req.mapping_id);
  const fixed = kept.request.sources.findIndex((s) => s.fetch_url === undefined);
  if (fixed >= 0) {
    const s = kept.request.sources[fixed];
    throw new ServiceError(
      'schedule_sources_not_refetchable',
      `mapping_id: source ${fixed}${s.label ? ` (${s.label})` : ''} of ${req.mapping_id} is the stored dataset ${s.dataset_id}, which is the same every period; a schedule needs every source as a fetch_url`,
      { field: 'mapping_id' },
    );
  }
  const now = ctx.services.now();
  const schedule: ScheduleRecord = {
    schedule_id: newId('sc_'),
    workspace_id: caller.workspaceId,
    namespace,
    mapping_id: req.mapping_id,
    cadence: req.cadence,
    subject_kind: req.subject_kind,
    acknowledged: req.acknowledge_decision_support === true,
    key_id: caller.keyId,
    scopes: [...caller.scopes],
    sealed_headers: kept.request.sealed_headers ?? null,
    state: 'active',
    halt_code: null,
    model_ref: null,
    fit_hash: null,
    anchor_at: now,
    next_run_at: now,
    run_id: null,
    run_state: null,
    last_run: null,
    created_at: now,
  };
  await ctx.services.store.putSchedule(schedule);
  // the first run starts now (docs/reference/schedules.md#runs watch_url: "first run")
  const runId = await startRun(ctx.services, schedule, now);
  const stored = (await ctx.services.store.getSchedule(caller.workspaceId, schedule.schedule_id)) ?? schedule;
  return {
    status: 200,
    body: {
      schedule: scheduleView(stored),
      ...(runId ? { watch_url: watchUrlOf(ctx.services, runId, caller.workspaceId, now) } : {}),
      next: [
        { operation: 'svc_poll', with: { task_id: runId }, cost: 'free', gives: 'the first run as it stands, then its report' },
        { operation: 'svc_describe', with: {}, cost: 'free', gives: 'every schedule of the workspace with its latest run (send your key)' },
        { operation: 'svc_delete_schedule', with: { schedule_id: schedule.schedule_id }, cost: 'free', gives: 'no more runs' },
      ],
    },
  };
}

/** svc_schedule: the one declaration the transports, MCP, OpenAPI and tasks are derived from. */
export const scheduleOperation: Operation = {
  name: 'svc_schedule',
  resource: 'schedules',
  path: '/v1/schedule',
  method: 'POST',
  auth: 'key',
  scope: 'write:outcomes',
  body: 'json',
  title: 'Answer a mapping on a cadence',
  description:
    'Keeps a confirmed mapping (svc_map mapping_id; every source a fetch_url) answered daily, weekly or monthly. ' +
    'Each run fetches the sources again and replays the mapping, fits (plain the first time, then refit_of the ' +
    "model in use; skipped when the labelled readings are unchanged), reads drift, scores today's open cases with " +
    'the model in use and reports the outcomes closed since the last run (event_id <mapping_id>:<entity>:<snapshot_at>). ' +
    'Drift keep keeps the model until one day past the next run, refit switches, abandon stops the schedule. The ' +
    'first run starts now (watch_url follows it); a period runs once even with several nodes or after a restart. ' +
    'Needs a live API key with write:outcomes (the runs act as it); halted (halt_code) when the key is revoked or a ' +
    'source cannot be fetched. Runs are billed for the calls they make (fits and answered cases); scheduling is free.',
  rules: 'Also required, beyond what the input schema says: acknowledge_decision_support true when subject_kind is person.',
  request: ScheduleRequestSchema,
  response: ScheduleResponseSchema,
  status: 200,
  pending: false,
  // additions: not idempotent (each call makes another schedule)
  tool: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  examples: [
    {
      name: 'weekly',
      summary: 'Answer a mapping of fetched logs every week (send a mapping_id svc_map confirmed over fetch_url sources)',
      value: { mapping_id: EXAMPLE_IDS.mappingId, cadence: 'weekly', subject_kind: 'org' },
    },
  ],
  task: executeScheduleRun,
  run: runSchedule,
};
