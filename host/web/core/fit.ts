// One fit in the preview, the way the service runs it (operations/ask/fits.ts runAndStore + fromMeta):
// encode, fit on a fresh engine instance, interpret, and name it with the service's fit key and model_ref.
import { encodeTable } from '../../engine/encode.ts';
import { runFitSync, toFitInput } from '../../engine/fit-core.ts';
import { interpretFit } from '../../engine/result.ts';
import { Model } from '../../engine/model.ts';
import type { EngineModule } from '../../engine/wasm.ts';
import { fitKeyOf, modelRefOf, type FitOutcome, type FitRequest } from '../../operations/ask/fits.ts';

export interface PreviewFit {
  outcome: FitOutcome;
  /** Milliseconds spent encoding the table and in the engine's fit (for the page and the benchmark). */
  timings: { encodeMs: number; fitMs: number };
}

export function fitPreview(engine: EngineModule, req: FitRequest): PreviewFit {
  const fitKey = fitKeyOf(engine.coreHash, req);
  const modelRef = modelRefOf(engine.coreHash, req.recordHash, fitKey);
  const t0 = performance.now();
  const encoded = encodeTable(req.table, {
    entityColumn: req.entityColumn,
    outcomeColumn: req.outcome.column,
    outcome: req.outcome.values,
    timeColumn: req.timeColumn,
  });
  const t1 = performance.now();
  const res = interpretFit(runFitSync(engine, toFitInput(encoded)), encoded, engine.coreHash);
  const t2 = performance.now();
  const d = res.diagnostics;
  const outcome = {
    fitKey,
    modelRef,
    state: res.state,
    reasons: res.reasons,
    needs: res.needs,
    have: res.have,
    quality: res.quality,
    // The service answers from the stored bytes; the same round trip here keeps every bit alike.
    model: res.model ? Model.fromBytes(res.model.toBytes()) : null,
    cache: 'miss',
    ran: true,
    diagnostics: {
      auc_z: d.aucZ,
      log_loss_z: d.logLossZ,
      mean_rounds: d.meanRounds,
      pairs: d.pairs,
      usable_columns: d.usableColumns,
      column_auc: d.columnAuc,
    },
  } as FitOutcome;
  return { outcome, timings: { encodeMs: t1 - t0, fitMs: t2 - t1 } };
}
