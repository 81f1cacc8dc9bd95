// Loads the engine in the page: fetches /engine.wasm once and compiles it (core_hash from WebCrypto);
// every fit then runs on a fresh instance of this module (host/engine/fit-core.ts).
import { compileEngine, type EngineModule } from '../../engine/wasm.ts';

export async function loadEngineFrom(url: string): Promise<EngineModule> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return compileEngine(new Uint8Array(await res.arrayBuffer()));
}
