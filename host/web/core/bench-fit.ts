// One timed fit of a CSV, the same code in the page and in Node (bench/browser.ts runs both side by
// side): parse, hash, resolve the outcome, then encode and fit on a fresh engine instance.
import type { EngineModule } from '../../engine/wasm.ts';
import { parseCsv } from '../../table/csv.ts';
import { sha256Hex } from '../../signing/sha256.ts';
import { resolveOutcome } from '../../core/outcome.ts';
import { fitPreview } from './fit.ts';

export interface TimedFit {
  parseMs: number;
  encodeMs: number;
  fitMs: number;
  totalMs: number;
  state: string;
  auc: number | null;
  modelRef: string;
}

export function timeFit(engine: EngineModule, csv: string, entityColumn: string, outcomeColumn: string): TimedFit {
  const t0 = performance.now();
  const table = parseCsv(csv);
  const recordHash = sha256Hex(csv);
  const outcome = resolveOutcome(table, outcomeColumn, undefined, 'questions.q');
  const t1 = performance.now();
  const { outcome: fit, timings } = fitPreview(engine, { table, recordHash, entityColumn, outcome, desirable: null });
  const t2 = performance.now();
  return {
    parseMs: t1 - t0,
    encodeMs: timings.encodeMs,
    fitMs: timings.fitMs,
    totalMs: t2 - t0,
    state: fit.state,
    auc: fit.quality.auc,
    modelRef: fit.modelRef,
  };
}
