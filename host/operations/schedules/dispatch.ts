// The schedule dispatcher (docs/reference/schedules.md#runs "Dispatch hourly, <=10 runs at once"): on every node, a timer looks
// for schedules whose next run is due and starts each one's run by moving its next_run_at on in the same
// transaction that queues the run's task (store startScheduleRun), so each period runs once across the
// nodes and across restarts; a period missed while every node was down runs once, when one comes back.
import type { ScheduleRecord } from '../../store/index.ts';
import type { Caller, Services } from '../../runtime/services.ts';
import { newId } from '../../lib/ids.ts';
import type { TaskRequest } from '../../runtime/tasks.ts';
import { nextRunAfter } from './cadence.ts';
import type { RunBody } from './run.ts';
import { newRunReport, runReportOf, STEPS } from './view.ts';

/** docs/reference/schedules.md#runs: at most this many runs at once (across the nodes sharing the store). */
export const MAX_RUNS_AT_ONCE = 10;

/** The key a schedule's runs act as (docs/reference/schedules.md#runs: the key's id and scopes, stored with the schedule). */
export function scheduleCaller(s: ScheduleRecord): Caller {
  return { workspaceId: s.workspace_id, via: 'key', keyId: s.key_id, subject: `key:${s.key_id}`, mode: 'live', scopes: s.scopes };
}

/**
 * Starts this period's run of `s` (its next_run_at as read) and queues its task; false when another node
 * or an earlier tick started it, or the schedule was deleted, stopped or is still running its last run.
 */
export async function startRun(services: Services, s: ScheduleRecord, now: number): Promise<string | null> {
  const runId = newId('tk_');
  const prev = runReportOf(s);
  const report = newRunReport(runId, now, prev ? (prev.as_of ?? prev.closed_since) : null);
  const body: RunBody = { schedule_id: s.schedule_id, run_id: runId };
  const request: TaskRequest = { operation: 'svc_schedule', body, caller: scheduleCaller(s) };
  const started = await services.store.startScheduleRun(s.schedule_id, s.next_run_at!, nextRunAfter(s.anchor_at, s.cadence, now), {
    run_id: runId,
    request: JSON.stringify(request),
    last_run: JSON.stringify(report),
    now,
  });
  if (!started) return null;
  services.log.info({ schedule_id: s.schedule_id, run_id: runId }, 'scheduled run started');
  services.tasks.kick(services);
  return runId;
}

/** One pass: closes runs whose task was lost, then starts the due runs there is room for. Returns the runs started. */
export async function dispatchDue(services: Services): Promise<number> {
  const { store } = services;
  const now = services.now();
  for (const s of await store.lostScheduleRuns()) {
    const report = runReportOf(s);
    if (!report || s.run_id === null) continue;
    const step = STEPS.find((st) => report.steps[st] === 'running') ?? report.step ?? 'map';
    report.steps[step] = 'failed';
    for (const st of STEPS) if (report.steps[st] === 'pending' || report.steps[st] === 'running') report.steps[st] = 'skipped';
    report.steps[step] = 'failed';
    report.state = 'done';
    report.step = step;
    report.error = {
      step,
      code: 'run_lost',
      detail: 'the run stopped with its process more often than a task is retried; the next period runs again',
    };
    await store.updateScheduleRun(s.schedule_id, s.run_id, { last_run: JSON.stringify(report), run_state: 'done' });
  }
  const room = MAX_RUNS_AT_ONCE - (await store.runningScheduleRuns());
  if (room <= 0) return 0;
  let started = 0;
  for (const s of await store.dueSchedules(now, room)) if (await startRun(services, s, now)) started++;
  return started;
}

/** Dispatches every `intervalMs` (the timer never keeps the process alive); returns a stop function. */
export function startScheduler(services: Services, intervalMs: number): () => void {
  let running = false;
  const tick = () => {
    if (running) return;
    running = true;
    dispatchDue(services)
      .catch((err: unknown) => services.log.error({ err }, 'schedule dispatch failed'))
      .finally(() => {
        running = false;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  // a period that fell due while this node was down is run now, not an interval later
  setImmediate(tick);
  return () => clearInterval(timer);
}
