// Pending work (spec 3.2, wire.md "Ask: timing and pending"): a call that is not done after a short wait
// becomes a durable task with a lease. This process renews the lease while it works; a task whose owner
// died is claimed again by any process's runner and executed from its stored request.
//
// States of a task (store column `status`; every move is one conditional UPDATE, so of two processes
// only one makes it):
//
//   from      event                                          to        by
//   (none)    ask outlasts PENDING_WAIT_MS                   running   createTask, under this process's lease
//   running   work finishes                                  done      completeTask (only the lease owner)
//   running   work throws                                    failed    failTask (only the lease owner)
//   running   the service stops                              pending   releaseTask (attempt not counted)
//   running   lease lapses (owner killed), runner claims it  running   claimTask (attempts + 1)
//   pending   a runner claims it                             running   claimTask (attempts + 1)
//   running   claimed with attempts > MAX_TASK_ATTEMPTS      failed    the claimer gives it up
//   done/failed  24 hours without update                     (gone)    the sweeper
//
// A task's idempotency record (if the ask had a key) follows it: host/operations/idempotency.ts.
import type { TaskRecord } from '../store/index.ts';
import { ServiceError, storeProblem, reviveProblem, type StoredProblem } from '../errors.ts';
import { resultJson, type Caller, type OpContext, type OpResult, type Services } from '../services.ts';
import { newId } from './ids.ts';
import { OWNER, type HeldLease } from './leases.ts';
import { settleIdempotency } from './idempotency.ts';
import type { TaskExecutor } from './operation.ts';
import { TaskProgress, progressOf } from './events/progress.ts';
import { TaskEventWriter } from './events/writer.ts';
import { errorEventData } from './events/stream.ts';
import { watchUrlOf } from './events/watch-token.ts';
import type { NewTaskEvent } from '../store/index.ts';
import type { StageData } from './events/types.ts';

export const RETRY_AFTER_MS = 1_000;
/**
 * Starts of one task whose process died each time before it finished (a fit that runs out of memory
 * kills the process, not just the call). The next claim fails it instead of running it again.
 */
export const MAX_TASK_ATTEMPTS = 3;

export type { Stage } from './events/types.ts';

/** What a task stores to be re-run by any process: the operation, its body and who asked. */
export interface TaskRequest {
  operation: string;
  body: unknown;
  caller: Caller;
  idempotency?: { operation: string; key: string };
}

/** Runs calls that may go pending, and picks up tasks other processes left unfinished. One per service. */
export class TaskRunner {
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  private stopped = false;

  constructor(
    /** How each operation that may go pending re-runs its stored request (from the operation table). */
    private readonly executors: ReadonlyMap<string, TaskExecutor>,
  ) {}

  /**
   * Runs `work`; if it is not done within config.pendingWaitMs, answers 202 with a task that this
   * process keeps leased until the work ends, then stores the result (or the problem) on the task.
   */
  async runWithPending(ctx: OpContext, req: TaskRequest, work: (progress: TaskProgress) => Promise<OpResult>): Promise<OpResult> {
    const { services } = ctx;
    // Spec 2.12: the call's events wait in the writer; they are stored with the task if it becomes one.
    const writer = new TaskEventWriter(services);
    const progress = new TaskProgress(writer, services.now, services.now());
    const running = Promise.resolve().then(() => work(progress));
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), services.config.pendingWaitMs)));
    const first = await Promise.race([
      running.then(
        (r) => ({ r }),
        (e: unknown) => ({ e }),
      ),
      waited,
    ]);
    clearTimeout(timer);
    if (first && 'r' in first) return first.r;
    if (first && 'e' in first) throw first.e;

    const id = newId('tk_');
    const now = services.now();
    const watchUrl = watchUrlOf(services, id, req.caller.workspaceId, now);
    // Spec 3.3: where the call is now; a retry with the same idempotency_key replays this very reply.
    const pending = {
      status: 'pending',
      task_id: id,
      retry_after_ms: RETRY_AFTER_MS,
      watch_url: watchUrl,
      ...pendingProgress(progress.current()),
    };
    // One transaction: the task is born running under this process's lease (no other runner can claim
    // it first), and the call's idempotency record points at it (wire.md: a retry with the same key
    // gets this task, never a second fit, until the final reply replaces it).
    await services.store.createTask({
      id,
      workspace_id: req.caller.workspaceId,
      request: JSON.stringify(req),
      stage: progress.stage,
      created_at: now,
      events: writer.takeForTask(id),
      lease: { owner: OWNER, lease_until: now + services.config.taskLeaseMs },
      idempotency: req.idempotency && { ...req.idempotency, status_code: 202, response: JSON.stringify(pending) },
    });
    writer.attach(id, OWNER);
    void finishTask(
      services,
      id,
      req,
      running,
      holdTask(services, id, () => progress.stage),
      writer,
    );
    return { status: 202, body: pending };
  }

  /** Starts claiming tasks whose owner stopped renewing (a crash or restart), one at a time. */
  start(services: Services, intervalMs = services.leases.renewMs): void {
    this.stopped = false;
    this.timer = setInterval(() => void this.tick(services), intervalMs);
    this.timer.unref();
    void this.tick(services);
  }

  /** No more claims; the tasks this process holds are handed back by the LeaseKeeper's stop. */
  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  private async tick(services: Services): Promise<void> {
    if (this.busy || this.stopped) return;
    this.busy = true;
    try {
      while (!this.stopped) {
        const task = await services.store.claimNextTask({ owner: OWNER, now: services.now(), lease_ms: services.config.taskLeaseMs });
        if (!task) break;
        if (this.stopped) {
          await services.store.releaseTask(task.id, OWNER, services.now());
          break;
        }
        await this.resume(services, task);
      }
    } catch (err) {
      services.log.error({ err }, 'task runner');
    } finally {
      this.busy = false;
    }
  }

  private async resume(services: Services, task: TaskRecord): Promise<void> {
    const { id } = task;
    const req = parseRequest(task);
    if (task.attempts > MAX_TASK_ATTEMPTS) {
      // Each earlier start ended with its process gone (the lease ran out, nothing was recorded): a
      // fourth would most likely take this process down too, so a poll gets this problem instead.
      services.log.error({ task_id: id, attempts: task.attempts - 1 }, 'task given up after repeated crashes');
      const detail =
        `task ${id} was started ${task.attempts - 1} times and each time the process running it stopped before it finished ` +
        '(for example it ran out of memory); it was given up. Ask again with a smaller record or fewer questions';
      await failWith(services, id, req, storeProblem(new ServiceError('internal', detail)), undefined, true);
      return;
    }
    if (!req) {
      await failWith(services, id, null, storeProblem(new ServiceError('internal', `task ${id} has no readable request; ask again`)));
      return;
    }
    services.log.info({ task_id: id, operation: req.operation, attempt: task.attempts }, 'resuming task');
    const run = this.executors.get(req.operation);
    const ctx: OpContext = { services, caller: req.caller, requestId: `task-${id}`, clientAddress: 'task' };
    const writer = new TaskEventWriter(services);
    writer.attach(id, OWNER);
    const progress = new TaskProgress(writer, services.now, task.created_at);
    const held = holdTask(services, id, () => progress.stage);
    // Through a promise, so a request the executor refuses at once (a throw) fails the task like any error.
    const running = run
      ? Promise.resolve().then(() => run(ctx, req.body, progress))
      : Promise.reject(new ServiceError('internal', `no executor for ${req.operation}`));
    await finishTask(services, id, req, running, held, writer);
  }
}

function holdTask(services: Services, id: string, stageOf: () => string): HeldLease {
  const { store, now, config } = services;
  return services.leases.hold(
    () => store.renewTaskLease(id, { owner: OWNER, now: now(), lease_ms: config.taskLeaseMs, stage: stageOf() }),
    () => store.releaseTask(id, OWNER, now()),
  );
}

/** Spec 3.3: what a pending reply adds, from the call's progress (or a task's latest stage event). */
export function pendingProgress(d: Partial<StageData>): Record<string, unknown> {
  return { stage: d.stage ?? 'reading_data', elapsed_ms: d.elapsed_ms ?? 0, progress: progressOf(d) };
}

async function finishTask(
  services: Services,
  id: string,
  req: TaskRequest,
  running: Promise<OpResult>,
  held: HeldLease,
  writer: TaskEventWriter,
): Promise<void> {
  try {
    const result = await running;
    if (held.abandoned) return;
    // Every event of the call is stored before the last one, which goes with the status (spec 2.12 done).
    await writer.close();
    // Only the lease holder settles: one that lost the lease leaves it to the process that took over.
    const text = resultJson(result); // written once, for the task and the idempotency record
    const done: NewTaskEvent = { kind: 'done', data: JSON.stringify({ task_id: id, status: 'done' }), at: services.now() };
    if (await services.store.completeTask(id, OWNER, text, services.now(), done)) {
      if (req.idempotency) await settleIdempotency(services, req.caller.workspaceId, req.idempotency, result.status, text);
    }
  } catch (err) {
    // A stopping service kills its fits; the task was handed back, not failed (another process runs it).
    if (held.abandoned) return;
    await writer.close().catch(() => undefined);
    await failWith(services, id, req, storeProblem(err), err);
  } finally {
    held.done();
  }
}

/** `final`: a task given up after repeated crashes; its key keeps the problem (running it again would crash again). */
async function failWith(
  services: Services,
  id: string,
  req: TaskRequest | null,
  problem: StoredProblem,
  err?: unknown,
  final = false,
): Promise<void> {
  if (problem.code === 'internal') services.log.error({ err, task_id: id }, 'task failed');
  const error: NewTaskEvent = { kind: 'error', data: JSON.stringify(errorEventData(services, id, problem)), at: services.now() };
  const failed = await services.store.failTask(id, OWNER, JSON.stringify(problem), services.now(), error).catch(() => false);
  if (failed && req?.idempotency) {
    const status = reviveProblem(problem).status;
    await settleIdempotency(services, req.caller.workspaceId, req.idempotency, status, JSON.stringify({ problem }), { final }).catch(
      () => undefined,
    );
  }
}

function parseRequest(task: TaskRecord): TaskRequest | null {
  try {
    const req = JSON.parse(task.request) as TaskRequest;
    return req && typeof req.operation === 'string' && req.caller ? req : null;
  } catch {
    return null;
  }
}
