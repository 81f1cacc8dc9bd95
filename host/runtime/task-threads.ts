// The task threads of this process (the TaskHost of host/runtime/tasks.ts, docs/guides/overload.md): up to FIT_WORKERS
// worker threads, each with its own heap (capped at TASK_MEMORY_MB), event loop and services, each running
// one task at a time. A task's record is read, typed and encoded there, and its fits run in this process's
// fit pool (a thread sends the encoded table here; the pool's idle workers share each fit's bags), so the
// request thread keeps answering while it runs, and a task that outgrows its heap ends its thread, not the
// process. The task's events (stage and answer) come back here, where the task's lease is held. Threads
// start when first needed (one at boot with WARM_THREADS); all but one end after a minute idle. Their log lines come back to this
// process's logger.
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { outputBuffers, type FitRunner } from '../engine/index.ts';
import { ThreadLost, type TaskHost, type TaskJob, type TaskOutcome } from './tasks.ts';
import type { EventSink } from './events/types.ts';
import type { ThreadMessage, ThreadData, ToThread } from './task-thread.ts';

/**
 * A task thread's young generation, MiB. Node sizes it from the machine, not from the heap cap (192 MiB on a
 * 24 GB machine, for a 96 MiB cap), and a full GC moves every live young object into the old generation at
 * once. Node gives a thread past its cap 16 MiB of grace while it stops; a GC that ended further past the cap
 * than that aborted the whole process ("Reached heap limit") instead of ending the thread. 12 MiB of young
 * generation (two 4 MiB semi-spaces and 4 MiB for large objects) holds about 8 MiB of live objects.
 */
const TASK_YOUNG_GENERATION_MB = 12;
/** An idle thread ends after this long (its heap goes with it); the next task starts a new one. */
const IDLE_MS = 60_000;
const LEVELS: Record<number, 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal'> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};

interface Job {
  id: string;
  events: EventSink;
  resolve: (o: TaskOutcome) => void;
  reject: (err: Error) => void;
}

interface Thread {
  worker: Worker;
  index: number;
  /** Tasks it started, this one included. */
  runs: number;
  job: Job | null;
  idleTimer: NodeJS.Timeout | null;
  /** Set while warm() waits for this thread to open its services. */
  warmed: (() => void) | null;
  gone: boolean;
}

export class TaskThreads implements TaskHost {
  private readonly idle: Thread[] = [];
  private readonly live = new Set<Thread>();
  private spawned = 0;
  private closed = false;

  constructor(
    private readonly config: Config,
    private readonly log: Logger,
    private readonly pool: FitRunner,
    /**
     * The module each thread runs: it hands the thread body (runtime/task-thread.ts) the operation table's task
     * executors (host/task-thread-entry.mjs), so the runtime never imports the operations.
     */
    private readonly entry: URL,
    /** The service's clock is injected (tests): threads hold each job's instant (ThreadData.heldClock). */
    private readonly heldClock = false,
    readonly size = config.fitWorkers,
  ) {}

  run(job: TaskJob, events: EventSink): Promise<TaskOutcome> {
    if (this.closed) return Promise.reject(new ThreadLost('the service is stopping', false, false));
    const thread = this.idle.pop() ?? this.spawn();
    if (thread.idleTimer) clearTimeout(thread.idleTimer);
    thread.idleTimer = null;
    thread.runs++;
    thread.worker.ref();
    return new Promise<TaskOutcome>((resolve, reject) => {
      thread.job = { id: job.id, events, resolve, reject };
      const run: ToThread = { type: 'run', id: job.id, request: job.request, now: job.now, startedAt: job.startedAt };
      thread.worker.postMessage(run);
    });
  }

  /** Threads started so far, and those alive now. */
  counts(): { started: number; live: number } {
    return { started: this.spawned, live: this.live.size };
  }

  /**
   * Starts the one thread that stays and has it open its services now, so the first ask does not wait for
   * a thread to start (main.ts, WARM_THREADS). It waits idle, as after a task. Resolves once it has opened
   * them (or ended).
   */
  warm(): Promise<void> {
    if (this.closed || this.live.size > 0) return Promise.resolve();
    const thread = this.spawn();
    this.idle.push(thread);
    thread.worker.unref();
    const ready = new Promise<void>((resolve) => (thread.warmed = resolve));
    const warm: ToThread = { type: 'warm' };
    thread.worker.postMessage(warm);
    return ready;
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.live];
    this.idle.length = 0;
    await Promise.all(all.map((t) => this.end(t, new ThreadLost('the service is stopping', false, false))));
  }

  private spawn(): Thread {
    const data: ThreadData = { config: this.config, index: ++this.spawned, heldClock: this.heldClock };
    const worker = new Worker(this.entry, {
      workerData: data,
      // The heap bound of one task: past it V8 ends this thread (ERR_WORKER_OUT_OF_MEMORY), never the process.
      // The young generation is capped too (TASK_YOUNG_GENERATION_MB).
      resourceLimits: { maxOldGenerationSizeMb: this.config.taskMemoryMb, maxYoungGenerationSizeMb: TASK_YOUNG_GENERATION_MB },
    });
    const thread: Thread = { worker, index: data.index, runs: 0, job: null, idleTimer: null, warmed: null, gone: false };
    this.live.add(thread);
    const log = this.log.child({ thread: thread.index });
    worker.on('message', (msg: ThreadMessage) => this.onMessage(thread, log, msg));
    worker.on('error', (err: Error & { code?: string }) => {
      const oom = err.code === 'ERR_WORKER_OUT_OF_MEMORY';
      if (!oom) log.error({ err }, 'task thread failed');
      void this.end(thread, new ThreadLost(oom ? 'the thread ran out of heap' : err.message, oom, thread.runs <= 1));
    });
    worker.on('exit', (code) => void this.end(thread, new ThreadLost(`the thread exited with code ${code}`, false, thread.runs <= 1)));
    return thread;
  }

  private onMessage(thread: Thread, log: Logger, msg: ThreadMessage): void {
    if (msg.type === 'log') return relog(log, msg.line);
    if (msg.type === 'warmed') return this.warmedOnce(thread);
    const job = thread.job;
    if (!job || msg.id !== job.id) return;
    if (msg.type === 'stage') return job.events.stage(msg.data);
    if (msg.type === 'answer') return job.events.answer(msg.data);
    if (msg.type === 'fit') return this.fitFor(thread, msg.fit, msg.input);
    thread.job = null;
    job.resolve(msg.outcome);
    if (this.closed) return void this.end(thread, null);
    thread.worker.unref();
    this.idle.push(thread);
    // One thread stays once started (a cold ask after a quiet minute should not wait for a thread to start);
    // the others end after a minute idle, and their heaps with them.
    if (this.live.size === 1) return;
    thread.idleTimer = setTimeout(() => {
      const at = this.idle.indexOf(thread);
      if (at >= 0) this.idle.splice(at, 1);
      void this.end(thread, null);
    }, IDLE_MS);
    thread.idleTimer.unref();
  }

  /** Runs a thread's fit in the pool; its progress reports and its end go back to the thread. */
  private fitFor(thread: Thread, fit: number, input: Extract<ThreadMessage, { type: 'fit' }>['input']): void {
    const send = (m: ToThread, transfer: ArrayBuffer[] = []) => {
      if (!thread.gone) thread.worker.postMessage(m, transfer);
    };
    this.pool
      // The input is this thread's own copy (it came in a message): its buffers move on to the worker.
      .run(input, (stage, done, total) => send({ type: 'fitProgress', fit, stage, done, total }), { give: true })
      .then(
        (out) => send({ type: 'fitDone', fit, out }, outputBuffers(out)),
        (err: Error & { failure?: string }) => send({ type: 'fitFailed', fit, error: err.message, failure: err.failure ?? 'trap' }),
      );
  }

  private warmedOnce(thread: Thread): void {
    thread.warmed?.();
    thread.warmed = null;
  }

  /** Ends a thread once: its job (if any) is rejected with `lost`. */
  private async end(thread: Thread, lost: ThreadLost | null): Promise<void> {
    if (thread.gone) return;
    thread.gone = true;
    this.warmedOnce(thread);
    this.live.delete(thread);
    const at = this.idle.indexOf(thread);
    if (at >= 0) this.idle.splice(at, 1);
    if (thread.idleTimer) clearTimeout(thread.idleTimer);
    const job = thread.job;
    thread.job = null;
    if (job) job.reject(lost ?? new ThreadLost('the thread ended', false, false));
    await thread.worker.terminate().catch(() => undefined);
  }
}

/** A thread's pino line, written again through this process's logger (so tests and operators see one log). */
function relog(log: Logger, line: string): void {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return;
  }
  const { level, msg, time: _time, pid: _pid, hostname: _host, ...rest } = rec;
  const method = LEVELS[level as number] ?? 'info';
  log[method](rest, typeof msg === 'string' ? msg : '');
}
