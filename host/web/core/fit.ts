// One fit in the preview, the way the service runs it (operations/ask/fits.ts runAndStore): encode, fit on
// a fresh engine instance, interpret, and name and read it back with the service's own fit-outcome.ts.
import { encodeTable } from '../../engine/encode.ts';
import { runFitSync, toFitInput } from '../../engine/fit-core.ts';
import { interpretFit } from '../../engine/result.ts';
import type { EngineModule } from '../../engine/wasm.ts';
import { fitKeyOf, fitOutcomeOf, metaOf, modelRefOf, encodeOptionsOf, type FitOutcome, type FitRequest } from '../../core/fit-outcome.ts';

export interface PreviewFit {
  outcome: FitOutcome;
  /** Milliseconds spent encoding the table and in the engine's fit (for the page and the benchmark). */
  timings: { encodeMs: number; fitMs: number };
}

export function fitPreview(engine: EngineModule, req: FitRequest): PreviewFit {
  const fitKey = fitKeyOf(engine.coreHash, req);
  const modelRef = modelRefOf(engine.coreHash, req.recordHash, fitKey);
  const t0 = performance.now();
  const encoded = encodeTable(req.table, encodeOptionsOf(req));
  const t1 = performance.now();
  const res = interpretFit(runFitSync(engine, toFitInput(encoded)), encoded, engine.coreHash);
  const t2 = performance.now();
  const bytes = res.model ? res.model.toBytes() : new Uint8Array(0);
  const outcome = fitOutcomeOf(fitKey, modelRef, metaOf(res, req), bytes, 'miss', true);
  return { outcome, timings: { encodeMs: t1 - t0, fitMs: t2 - t1 } };
}
