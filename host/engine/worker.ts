// Worker thread body: compiles the engine once, then runs each fit it is sent on a fresh instance,
// so the service's event loop never runs a fit (architecture.md "Runtime pieces").
import { parentPort } from 'node:worker_threads';
import { loadEngine } from './load-node.ts';
import { runFitSync, type FitInput } from './fit-core.ts';
import { EngineError } from './errors.ts';

if (!parentPort) throw new Error('worker.ts must run in a worker thread');
const port = parentPort;

port.on('message', async (msg: { id: number; input: FitInput }) => {
  try {
    const mod = await loadEngine();
    // Spec 2.12: the engine's own progress reports cross to the pool as they happen (pool.ts forwards them).
    const out = runFitSync(mod, msg.input, (stage, done, total) => port.postMessage({ id: msg.id, progress: [stage, done, total] }));
    port.postMessage({ id: msg.id, out }, [
      out.metrics.buffer,
      out.exclusions.buffer,
      out.columnAuc.buffer,
      out.rowSplit.buffer,
      out.heldLogits.buffer,
      out.model.buffer,
    ] as ArrayBuffer[]);
  } catch (err) {
    // The failure kind crosses with the message, so the pool rejects with the same typed error.
    const failure = err instanceof EngineError ? err.failure : 'trap';
    port.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err), failure });
  }
});
