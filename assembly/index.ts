// The engine's exported ABI: memory blocks in, status codes out, results read from memory.
// Every export returns a status (abi.ts); no strings cross; host/engine/abi.ts mirrors this (its
// EngineExports is checked against these exports by test/engine/abi.test.ts).
import * as A from './abi';
import {
  runFit, fitStart, fitPhase, fitTaskCount, fitAdvance, runTask, taskBlock, taskBlockLength, loadTasks, taskOutput,
  taskOutputLength, putTaskOutput, outputs, CROSS_FOLDS,
} from './fit';
import { scoreRows } from './model';

/** Allocates `bytes` of unmanaged memory for the host to fill (free with `release`). */
export function alloc(bytes: i32): usize {
  const p = heap.alloc(<usize>(bytes < 8 ? 8 : bytes));
  memory.fill(p, 0, <usize>(bytes < 8 ? 8 : bytes));
  return p;
}
export function release(ptr: usize): void { if (ptr != 0) heap.free(ptr); }

/**
 * Fits a model. n rows, m columns; entityBytes/entityOffsets: UTF-8 entity ids (offsets i32[n+1]);
 * outcome: f64[n] (1, 0, NaN unlabeled); time: f64[n] epoch ms or 0 for none; kinds: i32[m];
 * data: i32[m] pointers (f64[n] numeric, i32[n] codes categorical, 0 skipped); cards: i32[m].
 * Results: fitMetrics() (f64[METRIC_COUNT]), fitExclusions() (i32[m]), fitColumnAuc() (f64[m]),
 * fitRowSplit() (u8[n]), fitHeldLogits() (f64[n], NaN where not held out), fitModel()/fitModelLength() (f64 array).
 */
export function fit(n: i32, m: i32, entityBytes: usize, entityOffsets: usize, outcome: usize, time: usize,
  kinds: usize, data: usize, cards: usize): i32 {
  return runFit(n, m, entityBytes, entityOffsets, outcome, time, kinds, data, cards);
}

// A fit in phases, so its independent tasks (one per bag: boosting, then pairs) can run on other
// instances in worker threads (fit.ts fitStart): the results are put back by task index, so they do not
// depend on which instance ran which task or in what order they finished.
export {
  fitStart, fitPhase, fitTaskCount, fitAdvance, runTask, taskBlock, taskBlockLength, loadTasks, taskOutput,
  taskOutputLength, putTaskOutput,
};

export function fitMetrics(): usize { return outputs.metrics; }
export function fitExclusions(): usize { return outputs.exclusions; }
export function fitColumnAuc(): usize { return outputs.columnAuc; }
export function fitRowSplit(): usize { return outputs.rowSplit; }
export function fitHeldLogits(): usize { return outputs.heldLogits; }
export function fitModel(): usize { return outputs.model; }
export function fitModelLength(): i32 { return outputs.modelLen; }
/** Slots of fitMetrics(): the host checks it against its own count when it loads the engine. */
export function metricCount(): i32 { return A.METRIC_COUNT; }
/** Folds of a cross-fitted held-out check (a fit reports its own in M_FOLDS; this is for records with no fit). */
export function crossFolds(): i32 { return CROSS_FOLDS; }

/**
 * Scores n rows with a model (f64[len] at `model`). cols: i32[m] pointers per model column.
 * Outputs: p f64[n], contributions f64[n*m] and bins i32[n*m] (either may be 0 to skip),
 * reasons i32[n*4] (column or -1) and strengths i32[n*4] (+-2 strong, +-1 moderate).
 */
export function score(model: usize, len: i32, n: i32, cols: usize, outP: usize, outContrib: usize,
  outBins: usize, outReasons: usize, outStrength: usize): i32 {
  return scoreRows(model, len, n, cols, outP, outContrib, outBins, outReasons, outStrength);
}
