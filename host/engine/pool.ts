// A small pool of fit workers (default: one per core). Fits queue when all are busy; a worker that
// dies is replaced and its fit fails with a clear error.
import { Worker } from 'node:worker_threads';
import os from 'node:os';
import type { FitInput, RawFitOutput } from './fit-core.ts';
import { EngineError, type EngineFailure } from './errors.ts';
import type { ProgressListener } from './wasm.ts';

interface Job {
  id: number;
  input: FitInput;
  onProgress?: ProgressListener;
  resolve: (out: RawFitOutput) => void;
  reject: (err: Error) => void;
}

const WORKER_URL = new URL('./worker-entry.mjs', import.meta.url);

export class FitPool {
  private readonly size: number;
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Job>();
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private live = 0;

  constructor(size = Math.max(1, Math.min(os.availableParallelism?.() ?? 2, 4))) {
    this.size = size;
  }

  /** Runs a fit in a worker; `onProgress` hears the engine's progress reports as the worker posts them. */
  run(input: FitInput, onProgress?: ProgressListener): Promise<RawFitOutput> {
    if (this.closed) return Promise.reject(new EngineError('pool_closed', 'the fit pool is closed (the server is shutting down)'));
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, input, onProgress, resolve, reject });
      this.pump();
    });
  }

  private spawn(): Worker {
    // Workers run TypeScript through tsx's loader, like the main process.
    const w = new Worker(WORKER_URL);
    this.live++;
    w.on(
      'message',
      (msg: { id: number; out?: RawFitOutput; error?: string; failure?: EngineFailure; progress?: [number, number, number] }) => {
        const job = this.busy.get(w);
        if (!job || job.id !== msg.id) return;
        if (msg.progress) {
          try {
            job.onProgress?.(...msg.progress);
          } catch {
            // a listener's fault is not the fit's
          }
          return;
        }
        this.busy.delete(w);
        if (msg.out) job.resolve(msg.out);
        else job.reject(new EngineError(msg.failure ?? 'trap', msg.error ?? 'fit failed'));
        this.idle.push(w);
        this.pump();
      },
    );
    w.on('error', (err) => this.onDeath(w, new EngineError('worker_died', `a fit worker failed: ${err.message}`)));
    w.on('exit', (code) => this.onDeath(w, new EngineError('worker_died', `a fit worker exited with code ${code}`)));
    w.unref();
    return w;
  }

  private onDeath(w: Worker, err: Error): void {
    const job = this.busy.get(w);
    const wasKnown = job !== undefined || this.idle.includes(w);
    this.busy.delete(w);
    const i = this.idle.indexOf(w);
    if (i >= 0) this.idle.splice(i, 1);
    if (wasKnown) this.live--;
    if (job) job.reject(err);
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
      this.busy.set(w, job);
      w.ref();
      w.postMessage({ id: job.id, input: job.input });
    }
    for (const w of this.idle) w.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.idle, ...this.busy.keys()];
    this.idle.length = 0;
    await Promise.all(all.map((w) => w.terminate()));
  }
}
