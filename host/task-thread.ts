// The body of one task thread (host/task-threads.ts): its own services over the same store and config, and
// the operation table's task executors; runs each stored request it is sent and posts back the reply as
// JSON text (or the problem). Its log lines go to the request thread's logger.
import { parentPort, workerData } from 'node:worker_threads';
import { pino } from 'pino';
import type { Config } from './config.ts';
import { openServices, type OpenServices } from './services-open.ts';
import { NO_THREADS, type Stage, type TaskOutcome, type TaskRequest } from './operations/tasks.ts';
import { OPERATIONS, taskExecutorsOf } from './operations/index.ts';
import { serviceErrorOf, storeProblem } from './errors.ts';
import { resultJson, type OpContext } from './services.ts';

export interface ThreadData {
  config: Config;
  index: number;
}

/** What a thread posts back: a log line, a stage of the task it runs, or how that task ended. */
export type ThreadMessage =
  { type: 'log'; line: string } | { type: 'stage'; id: string; stage: Stage } | { type: 'done'; id: string; outcome: TaskOutcome };

/** Cells of sealed datasets a thread keeps parsed: about a quarter of its heap at ~100 bytes a cell. */
export function threadRecordCacheCells(taskMemoryMb: number): number {
  return Math.floor((taskMemoryMb * 1024 * 1024) / 4 / 100);
}

if (!parentPort) throw new Error('task-thread.ts runs in a worker thread (host/task-threads.ts)');
const port = parentPort;
const { config } = workerData as ThreadData;
const post = (m: ThreadMessage) => port.postMessage(m);
const log = pino({ level: config.logLevel }, { write: (line: string) => post({ type: 'log', line }) });
const executors = taskExecutorsOf(OPERATIONS);
let opening: Promise<OpenServices> | null = null;
/** The service's clock minus this thread's, as of the last job (so an injected clock reaches the thread). */
let clockOffset = 0;
const now = () => Date.now() + clockOffset;

port.on('message', (msg: { type: 'run'; id: string; request: string; now: number }) => {
  if (msg.type !== 'run') return;
  clockOffset = msg.now - Date.now();
  void runTask(msg.id, msg.request);
});

async function runTask(id: string, request: string): Promise<void> {
  let outcome: TaskOutcome;
  try {
    opening ??= openServices(config, {
      log,
      now,
      taskHost: NO_THREADS,
      recordCacheCells: threadRecordCacheCells(config.taskMemoryMb),
      // Counted here, written by the request thread's meter (a thread may end at any time).
      usageFlushMs: 0,
    });
    const { services } = await opening;
    const req = JSON.parse(request) as TaskRequest;
    const run = executors.get(req.operation);
    if (!run) throw new Error(`no task executor for ${req.operation}`);
    const ctx: OpContext = { services, caller: req.caller, requestId: `task-${id}`, clientAddress: 'task' };
    const result = await run(ctx, req.body, (stage) => post({ type: 'stage', id, stage }));
    outcome = { ok: true, status: result.status, text: resultJson(result) };
  } catch (err) {
    // Unexpected failures keep their stack in the log; the caller gets `internal` without internals.
    if (!serviceErrorOf(err)) log.error({ err, task_id: id }, 'task failed unexpectedly');
    outcome = { ok: false, problem: storeProblem(err) };
  }
  const opened = opening ? await opening.catch(() => null) : null;
  post({ type: 'done', id, outcome: { ...outcome, usage: opened?.services.usage.drain() ?? [] } });
}
