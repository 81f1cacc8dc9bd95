// Loads build/engine.wasm once (compiled module + core_hash) and makes fresh instances from it.
// Works in Node and in the browser: the bytes are handed in by the platform-specific loader.
import type { EngineExports } from './abi.ts';
import { EngineError } from './errors.ts';

export interface EngineModule {
  module: WebAssembly.Module;
  /** spec 9 / engine.md: SHA-256 of the .wasm bytes, part of every fit key and model_ref. */
  coreHash: string;
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
  return { module, coreHash };
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

/** A fresh instance: its own memory, so one fit never sees another's allocations. */
export function instantiate(mod: EngineModule): EngineExports {
  const instance = new WebAssembly.Instance(mod.module, {
    env: {
      abort(_msg: number, _file: number, line: number, col: number) {
        throw new EngineTrap(`engine aborted at ${line}:${col}`);
      },
    },
  });
  return instance.exports as unknown as EngineExports;
}
