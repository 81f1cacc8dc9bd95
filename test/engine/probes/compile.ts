// Compiles a probe module (a small AssemblyScript entry that imports the engine's own source) into a temporary
// directory and instantiates it. asc reads asconfig.json from the working directory unless told otherwise, and
// its release target names build/engine.wat as the text file: a probe compiled from the repository root would
// overwrite the engine's text with its own. Each probe therefore gets an empty config of its own.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import asc from 'assemblyscript/asc';

export interface CompiledProbe<T> {
  exports: T;
  /** Removes the temporary directory. */
  remove(): void;
}

/** Compiles test/engine/probes/<name>.as.ts with the engine's release flags and returns its exports. */
export async function compileProbe<T>(name: string): Promise<CompiledProbe<T>> {
  const dir = mkdtempSync(join(tmpdir(), `oq-${name}-`));
  const entry = fileURLToPath(new URL(`./${name}.as.ts`, import.meta.url));
  const out = join(dir, 'probe.wasm');
  const config = join(dir, 'asconfig.json');
  writeFileSync(config, '{}');
  const flags = ['--optimizeLevel', '3', '--runtime', 'stub', '--noAssert', '--enable', 'simd', '--initialMemory', '16'];
  const { error, stderr } = await asc.main([entry, '--config', config, '--outFile', out, ...flags], {});
  if (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`probe ${name} did not compile: ${error.message}\n${stderr.toString()}`);
  }
  const { instance } = await WebAssembly.instantiate(readFileSync(out), {
    env: {
      abort: () => {
        throw new Error(`probe ${name} aborted`);
      },
      reportProgress: () => {}, // imported by engine modules the probe draws in; probes report nothing
    },
  });
  return { exports: instance.exports as unknown as T, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
