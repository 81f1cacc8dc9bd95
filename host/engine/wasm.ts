// Loads build/engine.wasm once (compiled module + core_hash) and makes fresh instances from it.
// Works in Node and in the browser: the bytes are handed in by the platform-specific loader.
import { METRIC_COUNT, type EngineExports } from './abi.ts';
import { EngineError } from './errors.ts';

export interface EngineModule {
  module: WebAssembly.Module;
  /** docs/reference/README.md#conventions / docs/design/engine.md: SHA-256 of the .wasm bytes, part of every fit key and model_ref. */
  coreHash: string;
  /** Folds of a cross-fitted held-out check, as the engine counts them (for records that get no fit). */
  crossFolds: number;
}

/** Thrown when the engine traps (an `abort` in the module); the instance must be discarded. */
export class EngineTrap extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EngineTrap';
  }
}

export async function compileEngine(bytes: Uint8Array): Promise<EngineModule> {
  const digest = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  const coreHash = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
  const module = await WebAssembly.compile(bytes as Uint8Array<ArrayBuffer>);
  // Every fit result is read as METRIC_COUNT f64 slots (fit-core.ts): an engine that writes another
  // number of them would be misread silently, so it is refused here, once, before any fit.
  const ex = instantiate({ module, coreHash, crossFolds: 0 });
  if (typeof ex.metricCount !== 'function' || typeof ex.crossFolds !== 'function') {
    throw abiMismatch('the engine module does not export metricCount and crossFolds');
  }
  const metricCount = ex.metricCount();
  if (metricCount !== METRIC_COUNT) {
    throw abiMismatch(`the engine writes ${metricCount} fit metrics, this host reads ${METRIC_COUNT}`);
  }
  return { module, coreHash, crossFolds: ex.crossFolds() };
}

/**
 * Runs a call into an instance and turns a trap (an `abort`, an out-of-bounds access, memory that cannot
 * grow) into the engine's typed error at once; the instance that trapped must then be discarded.
 */
export function callEngine<T>(what: string, call: () => T): T {
  try {
    return call();
  } catch (err) {
    if (err instanceof EngineTrap || err instanceof WebAssembly.RuntimeError) {
      throw new EngineError('trap', `the engine trapped during ${what} (${(err as Error).message})`);
    }
    throw err;
  }
}

/** The module is not an engine this host can read (another ABI): both must come from one checkout. */
function abiMismatch(what: string): EngineError {
  return new EngineError('abi_mismatch', `${what}; build the engine and the host from the same checkout (npm run build)`);
}

/**
 * How far a fit has got, as the engine reports it from inside (assembly/progress.ts; P_ codes in abi.ts):
 * `done` of `total` units of step `stage`. Called synchronously during `fit`; it must not throw.
 */
export type ProgressListener = (stage: number, done: number, total: number) => void;

const ignoreProgress: ProgressListener = () => undefined;

/** A fresh instance: its own memory, so one fit never sees another's allocations. */
export function instantiate(mod: EngineModule, onProgress: ProgressListener = ignoreProgress): EngineExports {
  const instance = new WebAssembly.Instance(mod.module, {
    env: {
      abort(_msg: number, _file: number, line: number, col: number) {
        throw new EngineTrap(`engine aborted at ${line}:${col}`);
      },
      // docs/reference/tasks.md#events: progress is real, reported by the fit itself; a listener's fault never reaches the fit.
      reportProgress(stage: number, done: number, total: number) {
        try {
          onProgress(stage, done, total);
        } catch {
          // the fit's numbers do not depend on who listens
        }
      },
    },
  });
  return instance.exports as unknown as EngineExports;
}
