// Worker thread body: compiles the engine once, then either coordinates a fit it is sent (fresh instance,
// its phases' tasks shared through the pool with idle workers) or helps with another fit's phase (its
// helper instance loads the task block and runs the tasks it claims), so the service's event loop never runs a
// fit (docs/design/architecture.md#runtime). Task outputs go back by index: the bits never depend on which
// worker ran which task (docs/design/engine.md#determinism).
import { parentPort, workerData } from 'node:worker_threads';
import { lowerThreadPriority } from '../lib/thread-priority.ts';
import { loadEngine } from './load-node.ts';
import { outputBuffers, runFitShared, runHelperTasks, type FitInput, type PhaseWork, type RawFitOutput } from './fit-core.ts';
import { EngineError, type EngineFailure } from './errors.ts';
import { instantiate } from './wasm.ts';
import type { EngineExports } from './abi.ts';

/** Messages the pool sends a worker. */
export type ToWorker =
  | { type: 'fit'; id: number; input: FitInput }
  | { type: 'help'; id: number; seq: number; block: Uint8Array; claim: SharedArrayBuffer; count: number }
  | { type: 'result'; seq: number; k: number; out: Float64Array }
  | { type: 'helpersDone'; seq: number }
  | { type: 'warm' };

/** What the pool gives a worker when it starts it. */
export interface WorkerData {
  /** How much nicer than its parent this worker runs (host/lib/thread-priority.ts). */
  nice: number;
}

/** Messages a worker sends the pool. */
export type FromWorker =
  | { type: 'done'; id: number; out: RawFitOutput }
  | { type: 'failed'; id: number; error: string; failure: EngineFailure }
  | { type: 'progress'; id: number; stage: number; done: number; total: number }
  | { type: 'phase'; id: number; seq: number; block: Uint8Array; claim: SharedArrayBuffer; count: number }
  | { type: 'waiting'; id: number; seq: number }
  | { type: 'result'; id: number; seq: number; k: number; out: Float64Array }
  | { type: 'helped'; id: number; seq: number }
  | { type: 'warmed' };

if (!parentPort) throw new Error('worker.ts must run in a worker thread');
lowerThreadPriority((workerData as WorkerData | null)?.nice ?? 0);
const port = parentPort;
const post = (msg: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(msg, transfer);

/** The phase this worker coordinates and waits on (helpers' outputs and the pool's all-done come here). */
let waitingOn: { seq: number; onResult: (k: number, out: Float64Array) => void; onDone: () => void } | null = null;
let phaseSeq = 0;

async function coordinate(id: number, held: { input: FitInput | null }): Promise<void> {
  try {
    const mod = await loadEngine();
    // docs/reference/tasks.md#events: the engine's own progress reports cross to the pool as they happen (pool.ts forwards them).
    const out = await runFitShared(
      mod,
      held,
      (work) => runPhase(id, work),
      (stage, done, total) => post({ type: 'progress', id, stage, done, total }),
    );
    post({ type: 'done', id, out }, outputBuffers(out));
  } catch (err) {
    // The failure kind crosses with the message, so the pool rejects with the same typed error.
    const failure = err instanceof EngineError ? err.failure : 'trap';
    post({ type: 'failed', id, error: err instanceof Error ? err.message : String(err), failure });
  } finally {
    waitingOn = null;
  }
}

/**
 * One phase: offers its tasks to idle workers, claims tasks itself from the same counter, then waits for
 * the helpers' outputs; a task whose helper died is run here. Every task is in when it returns.
 */
async function runPhase(id: number, work: PhaseWork): Promise<void> {
  const seq = ++phaseSeq;
  const got = new Uint8Array(work.count);
  let done = 0;
  const note = (k: number) => {
    got[k] = 1;
    done++;
  };
  const claim = new Int32Array(new SharedArrayBuffer(4));
  const shared = work.count > 1;
  let allIn: Promise<void> = Promise.resolve();
  let failed: unknown = null;
  if (shared) {
    allIn = new Promise<void>((resolve) => {
      waitingOn = {
        seq,
        onResult: (k, out) => {
          if (failed || k < 0 || k >= work.count || got[k]) return;
          try {
            work.put(k, out);
            note(k);
          } catch (err) {
            failed = err; // thrown once the phase is over (a message handler must not throw)
          }
        },
        onDone: resolve,
      };
    });
    const block = work.block();
    post({ type: 'phase', id, seq, block, claim: claim.buffer as SharedArrayBuffer, count: work.count });
  }
  for (let k = Atomics.add(claim, 0, 1); k < work.count; k = Atomics.add(claim, 0, 1)) {
    work.runHere(k);
    note(k);
  }
  if (shared) {
    post({ type: 'waiting', id, seq });
    await allIn;
    waitingOn = null;
    if (failed) throw failed;
  }
  for (let k = 0; k < work.count; k++) if (!got[k]) (work.runHere(k), note(k));
}

/** This worker's helper instance, kept while its tasks run cleanly (fit-core.ts runHelperTasks). */
let helper: EngineExports | null = null;

async function help(msg: Extract<ToWorker, { type: 'help' }>): Promise<void> {
  const claim = new Int32Array(msg.claim);
  try {
    helper ??= instantiate(await loadEngine());
    runHelperTasks(
      helper,
      msg.block,
      () => {
        const k = Atomics.add(claim, 0, 1);
        return k < msg.count ? k : -1;
      },
      (k, out) => post({ type: 'result', id: msg.id, seq: msg.seq, k, out }, [out.buffer as ArrayBuffer]),
    );
  } catch {
    // A task that trapped here is redone by the coordinator, which then fails the fit with the engine's error;
    // the next phase gets a fresh instance.
    helper = null;
  }
  post({ type: 'helped', id: msg.id, seq: msg.seq });
}

port.on('message', (msg: ToWorker) => {
  switch (msg.type) {
    case 'fit':
      // held: the fit drops the input once the engine has its copy (fit-core.ts runFitShared)
      void coordinate(msg.id, { input: msg.input });
      return;
    case 'help':
      void help(msg);
      return;
    case 'result':
      if (waitingOn?.seq === msg.seq) waitingOn.onResult(msg.k, msg.out);
      return;
    case 'helpersDone':
      if (waitingOn?.seq === msg.seq) waitingOn.onDone();
      return;
    case 'warm':
      // the engine compiled now rather than on the first fit (pool.ts warm); a failure shows on that fit
      loadEngine().then(
        () => post({ type: 'warmed' }),
        () => post({ type: 'warmed' }),
      );
      return;
  }
});
