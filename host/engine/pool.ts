// A small pool of fit workers (default: one per core). A fit runs in one worker (its coordinator); the
// tasks of each of its phases (one per bag) are shared with workers that are idle meanwhile, so one fit
// uses every core the pool has. Fits queue when all workers are busy; a worker that dies is replaced and
// its fit fails with a clear error (a helper that dies costs only time: the coordinator redoes its task).
import { Worker } from 'node:worker_threads';
import os from 'node:os';
import { inputBuffers, type FitInput, type RawFitOutput } from './fit-core.ts';
import type { ProgressListener } from './wasm.ts';
import { EngineError } from './errors.ts';
import type { FromWorker, ToWorker, WorkerData } from './worker.ts';
import { RUNNING_BUILT } from '../lib/built.ts';

/** Runs one fit somewhere: a FitPool, or (in a task thread) the request thread's pool through messages. */
export interface FitRunner {
  /** `give`: the caller hands the input over; its buffers (inputBuffers) move to the worker, not copied. */
  run(input: FitInput, onProgress?: ProgressListener, opts?: { give?: boolean }): Promise<RawFitOutput>;
}

interface Job {
  id: number;
  input: FitInput;
  give: boolean;
  onProgress?: ProgressListener;
  resolve: (out: RawFitOutput) => void;
  reject: (err: Error) => void;
}

/** A phase of a running fit whose tasks idle workers may take (claimed through the shared counter). */
interface Phase {
  jobId: number;
  seq: number;
  block: Uint8Array;
  claim: Int32Array;
  count: number;
  coordinator: Worker;
  helpers: number;
  /** The coordinator has claimed its last task and waits for the helpers' outputs. */
  waiting: boolean;
}

type Busy = { kind: 'fit'; job: Job } | { kind: 'help'; phase: Phase };

/** Built (dist/), the compiled worker body; from source, an entry that first registers the TypeScript loader. */
const WORKER_URL = RUNNING_BUILT ? new URL('./worker.js', import.meta.url) : new URL('./worker-entry.mjs', import.meta.url);

export class FitPool implements FitRunner {
  private readonly size: number;
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Busy>();
  private readonly queue: Job[] = [];
  private readonly phases = new Map<string, Phase>();
  private nextId = 1;
  /** Workers warm() started that have not yet compiled the engine: each one's resolve. */
  private readonly warming = new Map<Worker, () => void>();
  private closed = false;
  private live = 0;

  /**
   * `nice`: how much nicer than the calling thread each worker runs (the service passes BACKGROUND_NICE; 0, the
   * default for benches and tests, leaves it alone). host/lib/thread-priority.ts.
   */
  constructor(
    size = Math.max(1, Math.min(os.availableParallelism?.() ?? 2, 4)),
    private readonly nice = 0,
  ) {
    this.size = size;
  }

  /** Runs one fit; `onProgress` hears the engine's progress reports as the coordinating worker posts them. */
  /** Sees each fit's time from queued to done, in seconds (main.ts gives it to GET /metrics). */
  onFit?: (seconds: number, outcome: 'done' | 'failed') => void;

  run(input: FitInput, onProgress?: ProgressListener, opts: { give?: boolean } = {}): Promise<RawFitOutput> {
    if (this.closed) return Promise.reject(new EngineError('pool_closed', 'the fit pool is closed (the server is shutting down)'));
    const started = performance.now();
    const fitted = new Promise<RawFitOutput>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, input, give: opts.give === true, onProgress, resolve, reject });
      this.pump();
    });
    const seen = this.onFit;
    if (!seen) return fitted;
    return fitted.then(
      (out) => (seen((performance.now() - started) / 1000, 'done'), out),
      (err: unknown) => (seen((performance.now() - started) / 1000, 'failed'), Promise.reject(err)),
    );
  }

  /** Workers alive now (started and not ended). */
  get workers(): number {
    return this.live;
  }

  /**
   * Starts every worker the pool may have and has each compile the engine now, so the first fit does not
   * wait for them (main.ts, WARM_THREADS). They wait idle, as after a fit. Resolves once each has compiled
   * it (or ended).
   */
  warm(): Promise<void> {
    const ready: Promise<void>[] = [];
    while (!this.closed && this.live < this.size) {
      const w = this.spawn();
      this.idle.push(w);
      ready.push(new Promise<void>((resolve) => this.warming.set(w, resolve)));
      this.send(w, { type: 'warm' });
    }
    for (const w of this.idle) w.unref();
    return Promise.all(ready).then(() => undefined);
  }

  private warmed(w: Worker): void {
    this.warming.get(w)?.();
    this.warming.delete(w);
  }

  private send(w: Worker, msg: ToWorker, transfer: ArrayBuffer[] = []): void {
    w.postMessage(msg, transfer);
  }

  private spawn(): Worker {
    const w = new Worker(WORKER_URL, { workerData: { nice: this.nice } satisfies WorkerData });
    this.live++;
    w.on('message', (msg: FromWorker) => this.onMessage(w, msg));
    w.on('error', (err) => this.onDeath(w, new EngineError('worker_died', `a fit worker failed: ${err.message}`)));
    w.on('exit', (code) => this.onDeath(w, new EngineError('worker_died', `a fit worker exited with code ${code}`)));
    w.unref();
    return w;
  }

  private onMessage(w: Worker, msg: FromWorker): void {
    const b = this.busy.get(w);
    switch (msg.type) {
      case 'done':
      case 'failed': {
        if (!b || b.kind !== 'fit' || b.job.id !== msg.id) return;
        this.dropPhases(msg.id);
        this.setIdle(w);
        if (msg.type === 'done') b.job.resolve(msg.out);
        else b.job.reject(new EngineError(msg.failure ?? 'trap', msg.error ?? 'fit failed'));
        this.pump();
        return;
      }
      case 'progress':
        if (b?.kind === 'fit' && b.job.id === msg.id) {
          try {
            b.job.onProgress?.(msg.stage, msg.done, msg.total);
          } catch {
            // a listener's fault is not the fit's
          }
        }
        return;
      case 'phase': {
        if (!b || b.kind !== 'fit' || b.job.id !== msg.id) return;
        const phase: Phase = {
          jobId: msg.id,
          seq: msg.seq,
          block: msg.block,
          claim: new Int32Array(msg.claim),
          count: msg.count,
          coordinator: w,
          helpers: 0,
          waiting: false,
        };
        this.phases.set(`${msg.id}:${msg.seq}`, phase);
        this.enlist(phase);
        return;
      }
      case 'waiting': {
        const phase = this.phases.get(`${msg.id}:${msg.seq}`);
        if (!phase) return;
        phase.waiting = true;
        this.maybeClose(phase);
        return;
      }
      case 'result': {
        const phase = this.phases.get(`${msg.id}:${msg.seq}`);
        if (phase) this.send(phase.coordinator, { type: 'result', seq: msg.seq, k: msg.k, out: msg.out }, [msg.out.buffer as ArrayBuffer]);
        return;
      }
      case 'warmed':
        this.warmed(w);
        return;
      case 'helped': {
        if (!b || b.kind !== 'help') return;
        this.setIdle(w);
        b.phase.helpers--;
        this.maybeClose(b.phase);
        this.pump();
        return;
      }
    }
  }

  /** Idle workers (spawning up to the pool's size) join a phase while it has tasks nobody claimed. */
  private enlist(phase: Phase): void {
    while (!this.closed && this.queue.length === 0 && phase.helpers < phase.count - 1 && this.unclaimed(phase)) {
      let w = this.idle.pop();
      if (!w) {
        if (this.live >= this.size) return;
        w = this.spawn();
      }
      this.busy.set(w, { kind: 'help', phase });
      phase.helpers++;
      w.ref();
      this.send(w, {
        type: 'help',
        id: phase.jobId,
        seq: phase.seq,
        block: phase.block,
        claim: phase.claim.buffer as SharedArrayBuffer,
        count: phase.count,
      });
    }
  }

  private unclaimed(phase: Phase): boolean {
    return !phase.waiting && Atomics.load(phase.claim, 0) < phase.count;
  }

  /** Tells the coordinator no more helper outputs will come, once it waits and no helper is left. */
  private maybeClose(phase: Phase): void {
    const key = `${phase.jobId}:${phase.seq}`;
    if (!phase.waiting || phase.helpers > 0 || this.phases.get(key) !== phase) return;
    this.phases.delete(key);
    this.send(phase.coordinator, { type: 'helpersDone', seq: phase.seq });
  }

  private dropPhases(jobId: number): void {
    for (const [key, phase] of this.phases) if (phase.jobId === jobId) this.phases.delete(key);
  }

  private setIdle(w: Worker): void {
    this.busy.delete(w);
    this.idle.push(w);
  }

  private onDeath(w: Worker, err: Error): void {
    this.warmed(w);
    const b = this.busy.get(w);
    const wasKnown = b !== undefined || this.idle.includes(w);
    this.busy.delete(w);
    const i = this.idle.indexOf(w);
    if (i >= 0) this.idle.splice(i, 1);
    if (wasKnown) this.live--;
    if (b?.kind === 'fit') {
      this.dropPhases(b.job.id);
      b.job.reject(err);
    } else if (b?.kind === 'help') {
      b.phase.helpers--;
      this.maybeClose(b.phase);
    }
    if (!this.closed) this.pump();
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let w = this.idle.pop();
      if (!w) {
        if (this.live >= this.size) return;
        w = this.spawn();
      }
      const job = this.queue.shift()!;
      this.busy.set(w, { kind: 'fit', job });
      w.ref();
      this.send(w, { type: 'fit', id: job.id, input: job.input }, job.give ? inputBuffers(job.input) : []);
    }
    for (const phase of this.phases.values()) this.enlist(phase);
    for (const w of this.idle) w.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.idle, ...this.busy.keys()];
    this.idle.length = 0;
    await Promise.all(all.map((w) => w.terminate()));
  }
}
