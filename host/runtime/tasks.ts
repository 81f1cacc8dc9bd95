// Tasks (docs/reference/tasks.md#pending, docs/guides/overload.md): every call that needs a fit (or a record
// too large to read on the request thread) is a durable task from the start, run on one of this process's
// task threads (TaskHost, host/runtime/task-threads.ts) so the request thread never stalls on it and its memory is
// bounded per thread. The request waits up to PENDING_WAIT_MS for it: done by then, the reply goes out
// in-line; else 202 pending, and svc_poll reads the stored result. Admission (admission.ts) bounds the
// tasks a workspace and the queue may hold; a task that finds no free thread waits in the store as
// `pending`, not in memory, and any process's runner claims it when a thread frees up. This process renews
// the lease of each task it runs; a task whose owner died is claimed again from its stored request.
//
// States of a task (store column `status`; every move is one conditional UPDATE, so of two processes
// only one makes it):
//
//   from      event                                          to        by
//   (none)    admitted, a thread of this process is free     running   createTask, under this process's lease
//   (none)    admitted, no thread free                       pending   createTask (the queue)
//   running   work finishes within the wait, no idem. key    (gone)    discardTask: the reply went out in-line
//   running   work finishes                                  done      completeTask (only the lease owner)
//   running   work throws                                    failed    failTask (only the lease owner)
//   running   the service stops                              pending   releaseTask (attempt not counted)
//   running   lease lapses (owner killed), runner claims it  running   claimTask (attempts + 1)
//   pending   a runner with a free thread claims it          running   claimTask (attempts + 1)
//   running   claimed with attempts > MAX_TASK_ATTEMPTS      failed    the claimer gives it up
//   done/failed  24 hours without update                     (gone)    the sweeper
//
// A task's idempotency record (if the ask had a key) follows it: host/runtime/idempotency.ts.
import type { TaskRecord, UsageKind } from '../store/index.ts';
import { rawJsonOf } from '../lib/raw-json.ts';
import { ServiceError, storeProblem, reviveProblem, type StoredProblem } from '../errors.ts';
import type { Caller, OpContext, OpResult, Services } from './services.ts';
import { newId } from '../lib/ids.ts';
import { OWNER, type HeldLease } from './leases.ts';
import { settleIdempotency } from './idempotency.ts';
import { progressOf, type TaskProgress } from './events/progress.ts';
import { TaskEventWriter } from './events/writer.ts';
import { errorEventData } from './events/stream.ts';
import { watchUrlOf } from '../signing/watch-token.ts';
import type { NewTaskEvent } from '../store/index.ts';
import { firstStageOf, type EventSink, type StageData } from './events/types.ts';

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

/**
 * The TaskRequest as stored: a body parsed from a request's JSON goes in as that text (lib/raw-json.ts), which
 * JSON.parse reads back into the same value, so the request thread does not write a large inline record
 * back into JSON (docs/guides/overload.md: the request thread's work per cold ask).
 */
export function taskRequestJson(req: TaskRequest): string {
  const raw = rawJsonOf(req.body);
  if (raw === undefined) return JSON.stringify(req);
  const rest = JSON.stringify({ operation: req.operation, caller: req.caller, idempotency: req.idempotency });
  return `${rest.slice(0, -1)},"body":${raw}}`;
}

/**
 * Thrown by an operation's quick attempt on the request thread when the call needs a task instead: a fit
 * to run, or a record too large to read there (host/operations/ask/ask.ts).
 */
export class RunAsTask extends Error {
  constructor(
    reason: string,
    /** What the task will compute, when a like call's task may already be computing it (SubmitOptions.key). */
    readonly key?: string,
  ) {
    super(reason);
    this.name = 'RunAsTask';
  }
}

/**
 * A call that may need a task (docs/reference/tasks.md#pending, docs/guides/overload.md): `quick` is tried on the request thread; when it throws
 * RunAsTask the call is admitted as a task instead (`req`), and the whole waits up to config.pendingWaitMs
 * for a reply before 202. Single flight across threads: when the task would compute what a task of this
 * process is computing now (RunAsTask.key), that one is waited for (within the wait) and `quick` tried
 * again, instead of a second task computing it again.
 */
export async function quickOrTask(ctx: OpContext, req: TaskRequest, quick: () => Promise<OpResult>): Promise<OpResult> {
  const { tasks, config } = ctx.services;
  const deadline = performance.now() + config.pendingWaitMs;
  for (;;) {
    let needs: RunAsTask;
    try {
      return await quick();
    } catch (err) {
      if (!(err instanceof RunAsTask)) throw err;
      needs = err;
    }
    const running = needs.key === undefined ? undefined : tasks.inFlight(needs.key);
    const left = deadline - performance.now();
    if (running && left > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([running, new Promise((resolve) => (timer = setTimeout(resolve, left)))]);
      clearTimeout(timer);
      if (performance.now() < deadline) continue;
    }
    return tasks.submit(ctx, req, { key: needs.key, waitMs: deadline - performance.now() });
  }
}

/**
 * Re-runs a stored request of an operation that went pending (docs/reference/tasks.md#pending), reporting its progress as it goes
 * (docs/reference/tasks.md#events). The operation table declares them (Operation.task); the task threads are handed them.
 */
export type TaskExecutor = (ctx: OpContext, body: unknown, progress: TaskProgress) => Promise<OpResult>;

/** One stored request to run on a thread: the task id, its TaskRequest as JSON, and the service's clock now. */
export interface TaskJob {
  id: string;
  request: string;
  /** services.now() when the job is sent: the thread's clock follows the service's (an injected one too). */
  now: number;
  /** When the task began (elapsed_ms of its events counts from here). */
  startedAt: number;
}

/** What a task counted toward the usage ledger, for this process's meter (usage-meter.ts). */
export interface UsageCount {
  workspace_id: string;
  /** docs/reference/ask.md#namespace: usage is metered per namespace ('' = the workspace's own). */
  namespace?: string;
  kind: UsageKind;
  count: number;
  at: number;
}

/** How a thread's run ended: the reply as JSON text, or the problem it failed with; and what it counted. */
export type TaskOutcome = ({ ok: true; status: number; text: string } | { ok: false; problem: StoredProblem }) & {
  usage?: UsageCount[];
};

/**
 * Where this process runs tasks: `size` threads, each one task at a time (host/runtime/task-threads.ts). `run` is
 * called only while fewer than `size` runs are under way; it rejects when the thread itself is lost.
 */
export interface TaskHost {
  readonly size: number;
  run(job: TaskJob, events: EventSink): Promise<TaskOutcome>;
  close(): Promise<void>;
}

/** A TaskHost with no threads (a task thread's own services): every task it is given waits in the store. */
export const NO_THREADS: TaskHost = {
  size: 0,
  run: () => Promise.reject(new Error('this process runs no tasks')),
  close: async () => undefined,
};

export interface SubmitOptions {
  /**
   * What the task computes that a like call could wait for instead of computing it again (a fit key):
   * while the task runs, inFlight(key) is its end (operations/ask/ask.ts single flight across threads).
   */
  key?: string;
  /** How long the call waits for the task's reply before answering 202; default config.pendingWaitMs. */
  waitMs?: number;
}

/** A reply handed to a waiting call: the result, or the problem to throw. */
type Delivery = { result: OpResult } | { error: unknown };

/** Submits calls as tasks, runs them on the host's threads, and claims queued or orphaned tasks. One per service. */
export class TaskRunner {
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;
  private again = false;
  private stopped = false;
  /** Threads promised to a task (running, or about to be); never more than host.size. */
  private inUse = 0;
  /** Calls of this process waiting for their task's reply, by task id. */
  private readonly waiters = new Map<string, (d: Delivery) => void>();
  /** Tasks of this process by what they compute (SubmitOptions.key): ends when the task settles. */
  private readonly keyed = new Map<string, Promise<void>>();
  private readonly settledTasks = new Map<string, () => void>();
  /** The latest stage of each task this process runs (lease renewals and pending replies). */
  private readonly latest = new Map<string, Partial<StageData>>();
  /** The event writer of each task this process runs (flushed when a call turns pending). */
  private readonly writers = new Map<string, TaskEventWriter>();

  constructor(readonly host: TaskHost) {}

  /** Tasks this process is running now. */
  get running(): number {
    return this.inUse;
  }

  /** The end of this process's task computing `key` (SubmitOptions.key), or undefined when none runs. */
  inFlight(key: string): Promise<void> | undefined {
    return this.keyed.get(key);
  }

  /**
   * Admits `req` as a task (429/503 past the bounds, admission.ts) and runs it on a free thread of this
   * process, or queues it in the store when none is free; then waits up to config.pendingWaitMs for its
   * reply (a queued task this process claims in that time counts too). Done by then: the reply; else 202
   * with the task, which the store keeps until a thread finishes it.
   */
  async submit(ctx: OpContext, req: TaskRequest, opts: SubmitOptions = {}): Promise<OpResult> {
    const { services } = ctx;
    const { store, config } = services;
    const id = newId('tk_');
    // docs/reference/tasks.md#pending: where the call is now (its latest stage when the wait ends); a retry with the same
    // idempotency_key replays the reply stored with the task (its first stage).
    const pendingOf = (d: Partial<StageData>) => ({
      status: 'pending',
      task_id: id,
      retry_after_ms: RETRY_AFTER_MS,
      watch_url: watchUrlOf(services, id, req.caller.workspaceId, createdAt),
      ...pendingProgress(d),
    });
    const createdAt = services.now();
    const pending = { status: 202, body: pendingOf(firstStageOf(req.operation)) };
    const request = taskRequestJson(req);
    const startsNow = !this.stopped && this.inUse < this.host.size;
    if (startsNow) this.inUse++;
    try {
      // One transaction: the task is born running under this process's lease (no other runner can claim
      // it first) or pending, and the call's idempotency record points at it (docs/reference/README.md#idempotency: a retry with the
      // same key gets this task, never a second fit, until the final reply replaces it).
      await services.admission.admitTask(req.caller.workspaceId, startsNow, () => {
        return store.createTask({
          id,
          workspace_id: req.caller.workspaceId,
          request,
          stage: 'reading_data',
          created_at: createdAt,
          lease: startsNow ? { owner: OWNER, lease_until: createdAt + config.taskLeaseMs } : undefined,
          idempotency: req.idempotency && { ...req.idempotency, status_code: 202, response: JSON.stringify(pending.body), owner: OWNER },
        });
      });
    } catch (err) {
      if (startsNow) this.inUse--;
      throw err;
    }
    // Only a task this process runs now: one left queued may be claimed by another process, unseen here.
    if (startsNow && opts.key !== undefined && !this.keyed.has(opts.key)) {
      const key = opts.key;
      this.keyed.set(
        key,
        new Promise<void>((resolve) => this.settledTasks.set(id, resolve)).finally(() => this.keyed.delete(key)),
      );
    }
    const waitMs = Math.max(0, opts.waitMs ?? config.pendingWaitMs);
    let timer: NodeJS.Timeout | undefined;
    const delivered = new Promise<Delivery | null>((resolve) => {
      this.waiters.set(id, resolve);
      timer = setTimeout(() => {
        if (this.waiters.delete(id)) resolve(null);
      }, waitMs);
    });
    if (startsNow) void this.runClaimed(services, id, req, request, createdAt);
    else this.kick(services);
    const got = await delivered;
    clearTimeout(timer);
    if (got === null) {
      // The task's events so far are stored before its id is given out (writes are spaced, writer.ts), so a
      // stream opened on this reply starts where the reply says the task is (docs/reference/tasks.md#events).
      await this.writers.get(id)?.flush();
      return { status: 202, body: pendingOf(this.latest.get(id) ?? firstStageOf(req.operation)) };
    }
    if ('error' in got) throw got.error;
    return got.result;
  }

  /** Starts claiming queued tasks and tasks whose owner stopped renewing (a crash or restart). */
  start(services: Services, intervalMs = services.leases.renewMs): void {
    this.stopped = false;
    this.timer = setInterval(() => this.kick(services), intervalMs);
    this.timer.unref();
    this.kick(services);
  }

  /** No more claims or new runs; the tasks this process holds are handed back by the LeaseKeeper's stop. */
  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  /** Looks for work now (a thread freed up, or a task was queued). */
  kick(services: Services): void {
    void this.tick(services);
  }

  private async tick(services: Services): Promise<void> {
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = true;
    try {
      do {
        this.again = false;
        while (!this.stopped && this.inUse < this.host.size) {
          this.inUse++;
          let task: TaskRecord | null;
          try {
            task = await services.store.claimNextTask({ owner: OWNER, now: services.now(), lease_ms: services.config.taskLeaseMs });
          } catch (err) {
            this.inUse--;
            throw err;
          }
          if (!task) {
            this.inUse--;
            break;
          }
          // A claim counts an attempt; more than one: the task's last holder stopped renewing (a crash).
          services.metrics.tasksClaimed.inc({ from: task.attempts > 1 ? 'lapsed_lease' : 'pending' });
          if (this.stopped) {
            this.inUse--;
            await services.store.releaseTask(task.id, OWNER, services.now());
            break;
          }
          void this.resume(services, task);
        }
      } while (this.again && !this.stopped);
    } catch (err) {
      services.log.error({ err }, 'task runner');
    } finally {
      this.ticking = false;
    }
  }

  /** A claimed task (queued, or left by a stopped process), on the thread this tick promised it. */
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
      this.release(services);
      await failWith(services, id, req, storeProblem(new ServiceError('internal', detail)), undefined, true);
      this.settled(id);
      return;
    }
    if (!req) {
      this.release(services);
      await failWith(services, id, null, storeProblem(new ServiceError('internal', `task ${id} has no readable request; ask again`)));
      this.settled(id);
      return;
    }
    services.log.info({ task_id: id, operation: req.operation, attempt: task.attempts }, 'resuming task');
    await this.runClaimed(services, id, req, task.request, task.created_at);
  }

  /**
   * Runs a task this process holds the lease of on its promised thread, then records how it ended. The
   * thread's events are stored here under this process's lease (docs/reference/tasks.md#events), the latest stage kept for
   * the lease renewals and for a pending reply.
   */
  private async runClaimed(services: Services, id: string, req: TaskRequest, request: string, startedAt: number): Promise<void> {
    const writer = new TaskEventWriter(services);
    this.writers.set(id, writer);
    writer.attach(id, OWNER);
    this.latest.set(id, firstStageOf(req.operation));
    const held = holdTask(services, id, () => this.latest.get(id)?.stage ?? 'reading_data');
    const events: EventSink = {
      stage: (d) => {
        this.latest.set(id, d);
        writer.stage(d);
      },
      answer: (d) => writer.answer(d),
    };
    try {
      const outcome = await this.runOnThread(services, id, request, startedAt, events);
      const waiter = this.waiters.get(id);
      this.waiters.delete(id);
      // Every event of the call is stored before the last one, which goes with the status (docs/reference/tasks.md#events done).
      await writer.close().catch(() => undefined);
      await this.finish(services, id, req, outcome, held, waiter);
    } catch (err) {
      services.log.error({ err, task_id: id }, 'recording a task failed');
    } finally {
      held.done();
      this.latest.delete(id);
      this.writers.delete(id);
      this.settled(id);
    }
  }

  private settled(id: string): void {
    this.settledTasks.get(id)?.();
    this.settledTasks.delete(id);
  }

  /**
   * Records how a task ended (only the lease holder writes) and hands the reply to the call waiting for it,
   * if any. A task whose caller is still waiting and gave no idempotency key is dropped once answered:
   * nobody learned its id. With a key, the task stays, as the key's record points at it.
   */
  private async finish(
    services: Services,
    id: string,
    req: TaskRequest,
    outcome: Settled,
    held: HeldLease,
    waiter: ((d: Delivery) => void) | undefined,
  ): Promise<void> {
    const { store } = services;
    const inline = waiter !== undefined;
    if (held.abandoned) {
      waiter?.({ error: new ServiceError('engine_unavailable', 'the service is stopping; send the call again', retryLater) });
      return;
    }
    if ('requeue' in outcome) {
      await store.releaseTask(id, OWNER, services.now());
      waiter?.({ result: { status: 202, body: { status: 'pending', task_id: id, retry_after_ms: RETRY_AFTER_MS } } });
      this.kick(services);
      return;
    }
    try {
      if (!outcome.ok) {
        if (inline && !req.idempotency) await store.discardTask(id, OWNER);
        else await failWith(services, id, req, outcome.problem);
        waiter?.({ error: reviveProblem(outcome.problem) });
        return;
      }
      const { status, text } = outcome;
      if (inline && !req.idempotency) await store.discardTask(id, OWNER);
      else if (await store.completeTask(id, OWNER, text, services.now(), doneEvent(services, id))) {
        if (req.idempotency) await settleIdempotency(services, req.caller.workspaceId, req.idempotency, status, text);
      }
      waiter?.({ result: replyOf(status, text) });
    } catch (err) {
      waiter?.({ error: err });
      throw err;
    }
  }

  /**
   * Runs the stored request on a thread and frees the thread's place when it ends. A lost thread is
   * answered here: one that ran out of heap on this task alone fails it (record_too_large); one that had run
   * other tasks before hands it back to the queue to try on a fresh thread; any other loss is a 503 to retry.
   */
  private async runOnThread(services: Services, id: string, request: string, startedAt: number, events: EventSink): Promise<Settled> {
    try {
      const outcome = await this.host.run({ id, request, now: services.now(), startedAt }, events);
      // The thread counted; this process's meter writes (a thread may end before its own would).
      for (const u of outcome.usage ?? []) services.usage.add(u.workspace_id, u.kind, u.count, u.at, u.namespace ?? '');
      return outcome;
    } catch (err) {
      if (err instanceof ThreadLost) {
        services.log.warn({ task_id: id, reason: err.message, fresh: err.freshThread }, 'task thread lost');
        if (err.outOfMemory && !err.freshThread) return { requeue: true };
        const error = err.outOfMemory
          ? new ServiceError(
              'record_too_large',
              `the ask needed more than the ${services.config.taskMemoryMb} MiB of memory one task may use here, and was stopped`,
              { cause: err },
            )
          : new ServiceError('engine_unavailable', `the thread running task ${id} stopped (${err.message}); send the call again`, {
              extra: { retry_after_ms: 2000 },
              headers: { 'Retry-After': '2' },
              cause: err,
            });
        return { ok: false, problem: storeProblem(error) };
      }
      return { ok: false, problem: storeProblem(err) };
    } finally {
      this.release(services);
    }
  }

  /** Frees a thread's place and looks for the next task. */
  private release(services: Services): void {
    this.inUse = Math.max(0, this.inUse - 1);
    this.kick(services);
  }
}

/** A thread that died under a task: out of heap (ERR_WORKER_OUT_OF_MEMORY) or otherwise. */
export class ThreadLost extends Error {
  constructor(
    message: string,
    readonly outOfMemory: boolean,
    /** The thread had run no task before this one (so the memory it ran out of was this task's own). */
    readonly freshThread: boolean,
  ) {
    super(message);
    this.name = 'ThreadLost';
  }
}

type Settled = TaskOutcome | { requeue: true };

function holdTask(services: Services, id: string, stageOf: () => string): HeldLease {
  const { store, now, config } = services;
  return services.leases.hold(
    () => store.renewTaskLease(id, { owner: OWNER, now: now(), lease_ms: config.taskLeaseMs, stage: stageOf() }),
    () => store.releaseTask(id, OWNER, now()),
  );
}

const retryLater = { extra: { retry_after_ms: 1000 }, headers: { 'Retry-After': '1' } };

/** A reply from its JSON text: REST sends the text as it is; the object is parsed only if asked for (MCP). */
function replyOf(status: number, text: string): OpResult {
  let body: unknown;
  return {
    status,
    get body() {
      return (body ??= JSON.parse(text));
    },
    bodyJson: () => text,
  };
}

/** docs/reference/tasks.md#pending: what a pending reply adds, from the call's progress (or a task's latest stage event). */
export function pendingProgress(d: Partial<StageData>): Record<string, unknown> {
  return { stage: d.stage ?? 'reading_data', elapsed_ms: d.elapsed_ms ?? 0, progress: progressOf(d) };
}

/** docs/reference/tasks.md#events: the stream's last event, stored with the task's final status. */
function doneEvent(services: Services, id: string): NewTaskEvent {
  return { kind: 'done', data: JSON.stringify({ task_id: id, status: 'done' }), at: services.now() };
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
