// Pending work (spec 3.2, wire.md "Ask: timing and pending"): a call that is not done after a short
// wait becomes a durable task with a lease. This process renews the lease while it works; a task
// whose owner died is claimed again by any process's runner and executed from its stored request.
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import { reviveProblem, ServiceError, storeProblem, type StoredProblem } from '../errors.ts';
import { PollRequestSchema, parseBody } from '../schemas/index.ts';
import type { TaskRecord } from '../store/index.ts';
import { resultJson, type Caller, type OpContext, type OpResult, type Services } from '../services.ts';
import { newId } from './ids.ts';

/** How long a task stays claimed without renewal (renewed every third of it). */
export const leaseOf = (services: Services) => services.config.taskLeaseMs;
const renewOf = (services: Services) => Math.max(50, Math.floor(leaseOf(services) / 3));
const RETRY_AFTER_MS = 1_000;
export const OWNER = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
/**
 * Starts of one task whose process died each time before it finished (a fit that runs out of memory
 * kills the process, not just the call). The next claim fails it instead of running it again.
 */
export const MAX_TASK_ATTEMPTS = 3;

export type Stage = 'reading_data' | 'fitting' | 'answering';

/** What a task stores to be re-run by any process: the operation, its body and who asked. */
export interface TaskRequest {
  operation: string;
  body: unknown;
  caller: Caller;
  idempotency?: { operation: string; key: string };
}

export type TaskExecutor = (ctx: OpContext, body: unknown, onStage: (s: Stage) => void) => Promise<OpResult>;
const executors = new Map<string, TaskExecutor>();
/** Operations that may go pending register how to run their stored request. */
export function registerTaskExecutor(operation: string, run: TaskExecutor): void {
  executors.set(operation, run);
}

/** Work this process holds a lease on (a task, an in-flight idempotent call) until `done()`. */
export interface HeldLease {
  /** Set when the service stopped and handed the work back: its end must write nothing. */
  readonly abandoned: boolean;
  done(): void;
}

interface Held extends HeldLease {
  abandoned: boolean;
  timer: NodeJS.Timeout;
  release: () => Promise<unknown>;
}

// Per service (tests run several in one process): what it holds, and whether it is stopping.
const heldBy = new WeakMap<Services, { stopped: boolean; held: Set<Held> }>();
function heldOf(services: Services) {
  let h = heldBy.get(services);
  if (!h) heldBy.set(services, (h = { stopped: false, held: new Set() }));
  return h;
}

/**
 * Renews a lease every third of its length until done(). When the service stops first, the lease is
 * released (not failed), so another process takes the work over at once and this one writes nothing.
 */
export function holdLease(services: Services, renew: () => Promise<unknown>, release: () => Promise<unknown>): HeldLease {
  const state = heldOf(services);
  const held: Held = {
    abandoned: false,
    timer: setInterval(() => void renew().catch(() => undefined), renewOf(services)),
    release,
    done() {
      clearInterval(held.timer);
      state.held.delete(held);
    },
  };
  held.timer.unref();
  state.held.add(held);
  if (state.stopped) void abandon(services, held);
  return held;
}

async function abandon(services: Services, held: Held): Promise<void> {
  held.abandoned = true;
  held.done();
  await held.release().catch((err: unknown) => services.log.warn({ err }, 'releasing a lease on shutdown'));
}

/**
 * Hook run when a task finishes: its idempotency record takes the final reply (`text`, the reply's
 * JSON), except a 5xx that says "retry": the record is forgotten so the next retry runs the call
 * again (as idempotency.ts does for a call that fails before it goes pending). A task given up after
 * repeated crashes is final for that body (running it again would crash again), so it is kept.
 */
async function settleIdempotency(services: Services, req: TaskRequest, status: number, text: string, final = false): Promise<void> {
  if (!req.idempotency) return;
  const { operation, key } = req.idempotency;
  if (status >= 500 && !final) await services.store.deleteIdempotency(req.caller.workspaceId, operation, key);
  else await services.store.updateIdempotencyResponse(req.caller.workspaceId, operation, key, status, text);
}

function holdTask(services: Services, id: string, stageOf: () => Stage): HeldLease {
  return holdLease(
    services,
    () => services.store.renewTaskLease(id, { owner: OWNER, now: services.now(), lease_ms: leaseOf(services), stage: stageOf() }),
    () => services.store.releaseTask(id, OWNER, services.now()),
  );
}

/**
 * Runs `work`; if it is not done within config.pendingWaitMs, answers 202 with a task that this
 * process keeps leased until the work ends, then stores the result (or the problem) on the task.
 */
export async function runWithPending(
  ctx: OpContext,
  req: TaskRequest,
  work: (onStage: (s: Stage) => void) => Promise<OpResult>,
): Promise<OpResult> {
  const { services } = ctx;
  let stage: Stage = 'reading_data';
  const running = work((s) => (stage = s));
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
  const pending = { status: 'pending', task_id: id, retry_after_ms: RETRY_AFTER_MS };
  // One transaction: the task is born running under this process's lease (no other runner can claim
  // it first), and the call's idempotency record points at it (wire.md: a retry with the same key
  // gets this task, never a second fit, until the final reply replaces it).
  await services.store.createTask({
    id,
    workspace_id: req.caller.workspaceId,
    request: JSON.stringify(req),
    stage,
    created_at: now,
    lease: { owner: OWNER, lease_until: now + leaseOf(services) },
    idempotency: req.idempotency && { ...req.idempotency, status_code: 202, response: JSON.stringify(pending) },
  });
  void finishTask(
    services,
    id,
    req,
    running,
    holdTask(services, id, () => stage),
  );
  return { status: 202, body: pending };
}

async function finishTask(services: Services, id: string, req: TaskRequest, running: Promise<OpResult>, held: HeldLease): Promise<void> {
  try {
    const result = await running;
    if (held.abandoned) return;
    // Only the lease holder settles: one that lost the lease leaves it to the process that took over.
    const text = resultJson(result); // written once, for the task and the idempotency record
    if (await services.store.completeTask(id, OWNER, text, services.now())) {
      await settleIdempotency(services, req, result.status, text);
    }
  } catch (err) {
    // A stopping service kills its fits; the task was handed back, not failed (another process runs it).
    if (held.abandoned) return;
    await failWith(services, id, req, storeProblem(err), err);
  } finally {
    held.done();
  }
}

async function failWith(
  services: Services,
  id: string,
  req: TaskRequest | null,
  problem: StoredProblem,
  err?: unknown,
  final = false,
): Promise<void> {
  if (problem.code === 'internal') services.log.error({ err, task_id: id }, 'task failed');
  const failed = await services.store.failTask(id, OWNER, JSON.stringify(problem), services.now()).catch(() => false);
  if (failed && req)
    await settleIdempotency(services, req, reviveProblem(problem).status, JSON.stringify({ problem }), final).catch(() => undefined);
}

/** svc_poll (spec 4.3): 202 while running, then exactly the original reply. */
export async function pollOperation(ctx: OpContext, raw: unknown): Promise<OpResult> {
  const { task_id } = parseBody(PollRequestSchema, raw);
  const task = await ctx.services.store.getTask(ctx.caller!.workspaceId, task_id);
  if (!task) throw new ServiceError('unknown_task', `no task ${task_id} in this workspace (tasks are kept 24 hours)`, { field: 'task_id' });
  if (task.status === 'done') return { status: 200, body: JSON.parse(task.result!) };
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

/**
 * Picks up tasks whose owner stopped renewing (a crash or restart) and runs them from their stored
 * request, one at a time. Returns the service's stop: no more claims, and every task and in-flight
 * idempotent call this service still holds is handed back (released, not failed).
 */
export function startTaskRunner(services: Services, intervalMs = renewOf(services)): () => Promise<void> {
  let busy = false;
  const state = heldOf(services);
  state.stopped = false;
  const tick = async () => {
    if (busy || state.stopped) return;
    busy = true;
    try {
      while (!state.stopped) {
        const task = await services.store.claimNextTask({ owner: OWNER, now: services.now(), lease_ms: leaseOf(services) });
        if (!task) break;
        if (state.stopped) {
          await services.store.releaseTask(task.id, OWNER, services.now());
          break;
        }
        await resumeTask(services, task);
      }
    } catch (err) {
      services.log.error({ err }, 'task runner');
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  void tick();
  return async () => {
    state.stopped = true;
    clearInterval(timer);
    await Promise.all([...state.held].map((h) => abandon(services, h)));
  };
}

function parseRequest(task: TaskRecord): TaskRequest | null {
  try {
    const req = JSON.parse(task.request) as TaskRequest;
    return req && typeof req.operation === 'string' && req.caller ? req : null;
  } catch {
    return null;
  }
}

async function resumeTask(services: Services, task: TaskRecord): Promise<void> {
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
  const run = executors.get(req.operation);
  const ctx: OpContext = { services, caller: req.caller, requestId: `task-${id}`, clientAddress: 'task' };
  let stage: Stage = 'reading_data';
  const held = holdTask(services, id, () => stage);
  // Through a promise, so a request the executor refuses at once (a throw) fails the task like any error.
  const running = run
    ? Promise.resolve().then(() => run(ctx, req.body, (s) => (stage = s)))
    : Promise.reject(new ServiceError('internal', `no executor for ${req.operation}`));
  await finishTask(services, id, req, running, held);
}
