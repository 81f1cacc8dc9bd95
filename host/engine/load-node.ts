// Node loader for the engine: reads build/engine.wasm next to the repository root, once.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compileEngine, type EngineModule } from './wasm.ts';
import { EngineError } from './errors.ts';

export const ENGINE_WASM_PATH = fileURLToPath(new URL('../../build/engine.wasm', import.meta.url));

let cached: Promise<EngineModule> | null = null;

export function loadEngine(): Promise<EngineModule> {
  if (!cached) {
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(ENGINE_WASM_PATH);
    } catch {
      return Promise.reject(new EngineError('not_built', `engine not built: ${ENGINE_WASM_PATH} is missing (run npm run build)`));
    }
    cached = compileEngine(bytes);
  }
  return cached;
}
