// Pending work (spec 3.2, wire.md "Ask: timing and pending"): a call that is not done after a short
// wait becomes a durable task with a lease. This process renews the lease while it works; a task
// whose owner died is claimed again by any process's runner and executed from its stored request.
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import { ServiceError } from '../http/problem.ts';
import { PollRequestSchema, parseBody } from '../schemas/index.ts';
import type { Caller, OpContext, OpResult, Services } from '../services.ts';
import { newId } from './ids.ts';
import { reviveProblem, storeProblem, type StoredProblem } from './problems.ts';

/** How long a task stays claimed without renewal (config.taskLeaseMs overrides; renewed every third). */
export const LEASE_MS = 15_000;
const leaseOf = (services: Services) => services.config.taskLeaseMs ?? LEASE_MS;
const renewOf = (services: Services) => Math.max(50, Math.floor(leaseOf(services) / 3));
const RETRY_AFTER_MS = 1_000;
export const OWNER = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

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

/** Hook run when a task finishes (idempotency records take the final reply). */
async function settleIdempotency(services: Services, req: TaskRequest, status: number, body: unknown): Promise<void> {
  if (!req.idempotency) return;
  await services.store.updateIdempotencyResponse(req.caller.workspaceId, req.idempotency.operation, req.idempotency.key, status, JSON.stringify(body));
}

/**
 * Runs `work`; if it is not done within config.pendingWaitMs, answers 202 with a task that this
 * process keeps leased until the work ends, then stores the result (or the problem) on the task.
 */
export async function runWithPending(ctx: OpContext, req: TaskRequest, work: (onStage: (s: Stage) => void) => Promise<OpResult>): Promise<OpResult> {
  const { services } = ctx;
  let stage: Stage = 'reading_data';
  const running = work((s) => (stage = s));
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), services.config.pendingWaitMs)));
  const first = await Promise.race([running.then((r) => ({ r }), (e: unknown) => ({ e })), waited]);
  clearTimeout(timer);
  if (first && 'r' in first) return first.r;
  if (first && 'e' in first) throw first.e;

  const id = newId('tk_');
  const now = services.now();
  await services.store.createTask({ id, workspace_id: req.caller.workspaceId, request: JSON.stringify(req), stage, created_at: now });
  await services.store.claimTask(id, { owner: OWNER, now, lease_ms: leaseOf(services) });
  const renew = setInterval(() => {
    void services.store.renewTaskLease(id, { owner: OWNER, now: services.now(), lease_ms: leaseOf(services), stage }).catch(() => undefined);
  }, renewOf(services));
  renew.unref();
  const pending = { status: 'pending', task_id: id, retry_after_ms: RETRY_AFTER_MS };
  // A retry with the same idempotency_key gets this task until the final reply replaces it.
  await settleIdempotency(services, req, 202, pending);
  void finishTask(services, id, req, running).finally(() => clearInterval(renew));
  return { status: 202, body: pending };
}

async function finishTask(services: Services, id: string, req: TaskRequest, running: Promise<OpResult>): Promise<void> {
  try {
    const result = await running;
    await services.store.completeTask(id, OWNER, JSON.stringify(result.body), services.now());
    await settleIdempotency(services, req, result.status, result.body);
  } catch (err) {
    const problem = storeProblem(err);
    if (problem.code === 'internal') services.log.error({ err, task_id: id }, 'task failed');
    await services.store.failTask(id, OWNER, JSON.stringify(problem), services.now()).catch(() => undefined);
    await settleIdempotency(services, req, reviveProblem(problem).status, { problem }).catch(() => undefined);
  }
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
 * request, one at a time. Returns a stop function.
 */
export function startTaskRunner(services: Services, intervalMs = renewOf(services)): () => void {
  let busy = false;
  let stopped = false;
  const tick = async () => {
    if (busy || stopped) return;
    busy = true;
    try {
      for (;;) {
        const task = await services.store.claimNextTask({ owner: OWNER, now: services.now(), lease_ms: leaseOf(services) });
        if (!task || stopped) break;
        await resumeTask(services, task.id, JSON.parse(task.request) as TaskRequest);
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
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

async function resumeTask(services: Services, id: string, req: TaskRequest): Promise<void> {
  services.log.info({ task_id: id, operation: req.operation }, 'resuming task');
  const run = executors.get(req.operation);
  const ctx: OpContext = { services, caller: req.caller, requestId: `task-${id}`, clientAddress: 'task' };
  let stage: Stage = 'reading_data';
  const renew = setInterval(() => {
    void services.store.renewTaskLease(id, { owner: OWNER, now: services.now(), lease_ms: leaseOf(services), stage }).catch(() => undefined);
  }, renewOf(services));
  renew.unref();
  const running = run
    ? run(ctx, req.body, (s) => (stage = s))
    : Promise.reject(new ServiceError('internal', `no executor for ${req.operation}`));
  await finishTask(services, id, req, running).finally(() => clearInterval(renew));
}
