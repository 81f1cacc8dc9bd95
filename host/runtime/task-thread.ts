// The body of one task thread (host/runtime/task-threads.ts): its own services over the same store and config, and
// the operation table's task executors; runs each stored request it is sent and posts back the reply as
// JSON text (or the problem). Its fits run in the request thread's fit pool (FitRunner through messages),
// its task events go to the request thread (which holds the task's lease and writes them), and its log
// lines go to the request thread's logger.
import { parentPort, workerData } from 'node:worker_threads';
import { pino } from 'pino';
import type { Config } from '../config.ts';
import { openServices, type OpenServices } from './services-open.ts';
import { NO_THREADS, type TaskExecutor, type TaskOutcome, type TaskRequest } from './tasks.ts';
import { TaskProgress } from './events/progress.ts';
import type { AnswerData, StageData } from './events/types.ts';
import {
  EngineError,
  type EngineFailure,
  type FitInput,
  inputBuffers,
  type FitRunner,
  type ProgressListener,
  type RawFitOutput,
} from '../engine/index.ts';
import { serviceErrorOf, storeProblem } from '../errors.ts';
import { resultJson, type OpContext } from './services.ts';
import { lowerThreadPriority } from '../lib/thread-priority.ts';

export interface ThreadData {
  config: Config;
  index: number;
  /**
   * The service runs on an injected clock (tests): a task sees the instant its job was sent, as that clock
   * moves only when its owner moves it. Otherwise the thread's clock runs on from it in real time.
   */
  heldClock: boolean;
}

/** What a thread posts back: a log line, an event of the task it runs, a fit to run, or how that task ended. */
export type ThreadMessage =
  | { type: 'log'; line: string }
  | { type: 'stage'; id: string; data: StageData }
  | { type: 'answer'; id: string; data: AnswerData }
  | { type: 'fit'; id: string; fit: number; input: FitInput }
  | { type: 'done'; id: string; outcome: TaskOutcome }
  | { type: 'warmed' };

/** What the request thread sends a thread: a task to run, and the progress and end of the fits it asked for. */
export type ToThread =
  | { type: 'run'; id: string; request: string; now: number; startedAt: number }
  | { type: 'warm' }
  | { type: 'fitProgress'; fit: number; stage: number; done: number; total: number }
  | { type: 'fitDone'; fit: number; out: RawFitOutput }
  | { type: 'fitFailed'; fit: number; error: string; failure: string };

/** Cells of sealed datasets a thread keeps parsed: about a quarter of its heap at ~100 bytes a cell. */
export function threadRecordCacheCells(taskMemoryMb: number): number {
  return Math.floor((taskMemoryMb * 1024 * 1024) / 4 / 100);
}

if (!parentPort) throw new Error('task-thread.ts runs in a worker thread (host/runtime/task-threads.ts)');
const port = parentPort;
const { config, heldClock } = workerData as ThreadData;
// Below the request thread, so cached asks are served while this thread reads and fits (host/lib/thread-priority.ts).
lowerThreadPriority(config.backgroundNice);
const post = (m: ThreadMessage, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);
const log = pino({ level: config.logLevel }, { write: (line: string) => post({ type: 'log', line }) });
/** The operation table's task executors, by operation name (serveTaskThread). */
let executors: ReadonlyMap<string, TaskExecutor> = new Map();
let opening: Promise<OpenServices> | null = null;
/** The service's clock minus this thread's, as of the last job (so an injected clock reaches the thread). */
let clockOffset = 0;
let jobNow = 0;
const now = heldClock ? () => jobNow : () => Date.now() + clockOffset;

/** Fits this thread asked the request thread's pool for, by number. */
const fits = new Map<number, { onProgress?: ProgressListener; resolve: (o: RawFitOutput) => void; reject: (e: Error) => void }>();
let fitSeq = 0;
/** The task this thread runs now (its fits are sent under its id). */
let currentTask = '';

/** The request thread's fit pool, reached through messages. */
const remotePool: FitRunner = {
  run(input: FitInput, onProgress?: ProgressListener, opts: { give?: boolean } = {}): Promise<RawFitOutput> {
    const fit = ++fitSeq;
    return new Promise((resolve, reject) => {
      fits.set(fit, { onProgress, resolve, reject });
      // A given input's buffers move to the request thread rather than being copied (a 1,000,000-row
      // table is about 100 MB); there the pool moves them on to its worker (runtime/task-threads.ts fitFor).
      post({ type: 'fit', id: currentTask, fit, input }, opts.give ? inputBuffers(input) : []);
    });
  },
};

/**
 * Starts taking the request thread's jobs, run with `given` (the operation table's task executors, handed
 * over by the thread's entry, host/task-thread-entry.mjs).
 */
export function serveTaskThread(given: ReadonlyMap<string, TaskExecutor>): void {
  executors = given;
  port.on('message', onMessage);
}

function onMessage(msg: ToThread): void {
  if (msg.type === 'warm') {
    // opened now (the engine compiled with them) rather than by the first task (runtime/task-threads.ts warm); when
    // that fails (the store not reachable yet), the first task tries again and reports what it finds
    const warming = openOnce();
    warming.then(
      () => post({ type: 'warmed' }),
      () => {
        if (opening === warming) opening = null;
        post({ type: 'warmed' });
      },
    );
    return;
  }
  if (msg.type === 'run') {
    clockOffset = msg.now - Date.now();
    jobNow = msg.now;
    currentTask = msg.id;
    void runTask(msg.id, msg.request, msg.startedAt);
    return;
  }
  const f = fits.get(msg.fit);
  if (!f) return;
  if (msg.type === 'fitProgress') {
    try {
      f.onProgress?.(msg.stage, msg.done, msg.total);
    } catch {
      // a listener's fault is not the fit's
    }
    return;
  }
  fits.delete(msg.fit);
  if (msg.type === 'fitDone') f.resolve(msg.out);
  else f.reject(new EngineError(msg.failure as EngineFailure, msg.error));
}

/** This thread's services over the store, opened by its first task (or at once when warmed). */
function openOnce(): Promise<OpenServices> {
  opening ??= openServices(config, {
    log,
    now,
    pool: remotePool,
    taskHost: NO_THREADS,
    recordCacheCells: threadRecordCacheCells(config.taskMemoryMb),
    // Counted here, written by the request thread's meter (a thread may end at any time).
    usageFlushMs: 0,
  });
  return opening;
}

async function runTask(id: string, request: string, startedAt: number): Promise<void> {
  let outcome: TaskOutcome;
  try {
    const { services } = await openOnce();
    const req = JSON.parse(request) as TaskRequest;
    const run = executors.get(req.operation);
    if (!run) throw new Error(`no task executor for ${req.operation}`);
    const ctx: OpContext = { services, caller: req.caller, requestId: `task-${id}`, clientAddress: 'task' };
    // docs/reference/tasks.md#events: the task's events go to the request thread, which holds its lease and stores them.
    const progress = new TaskProgress(
      { stage: (data) => post({ type: 'stage', id, data }), answer: (data) => post({ type: 'answer', id, data }) },
      now,
      startedAt,
    );
    const result = await run(ctx, req.body, progress);
    // docs/reference/outcomes.md#track-record: what the task's answers told is stored before its reply goes out (a thread may end)
    await services.keptAnswers.flush();
    outcome = { ok: true, status: result.status, text: resultJson(result) };
  } catch (err) {
    // Unexpected failures keep their stack in the log; the caller gets `internal` without internals.
    if (!serviceErrorOf(err)) log.error({ err, task_id: id }, 'task failed unexpectedly');
    outcome = { ok: false, problem: storeProblem(err) };
  }
  const opened = opening ? await opening.catch(() => null) : null;
  post({ type: 'done', id, outcome: { ...outcome, usage: opened?.services.usage.drain() ?? [] } });
}
