// The engine bridge's public surface: the only way the rest of the host reaches the wasm.
import { loadEngine } from './load-node.ts';
import { encodeTable, type EncodeOptions, type EncodedTable } from './encode.ts';
import { runFitSync, toFitInput } from './fit-core.ts';
import type { FitRunner } from './pool.ts';
import { emptyRecordResult, interpretFit, type FitResult } from './result.ts';
import { OK } from './abi.ts';
import { EngineError } from './errors.ts';
import type { ProgressListener } from './wasm.ts';
import type { RawTable } from '../table/types.ts';

export { encodeTable } from './encode.ts';
export { EngineError, type EngineFailure } from './errors.ts';
export type { EncodedTable, EncodedColumn, EncodeOptions, ExclusionWhy } from './encode.ts';
export { Model } from './model.ts';
export type { ModelColumn, ModelHeader } from './model.ts';
export { scoreCases, scoreEncoded, encodeCases, reasonsOf, NotScoreable, unreadableRows } from './scorer.ts';
export type { ScoreOutput, ReasonOut, CaseProblem } from './scorer.ts';
export type { FitResult, Quality } from './result.ts';
export { FitPool, type FitRunner } from './pool.ts';
export { inputBuffers, outputBuffers, type FitInput, type RawFitOutput } from './fit-core.ts';
export { loadEngine } from './load-node.ts';
export type { EngineModule, ProgressListener } from './wasm.ts';

/**
 * Fits an encoded table in a worker of `pool` (or in this thread when no pool is given); `onProgress` hears
 * the engine's own progress reports (P_ codes of abi.ts) as the fit makes them. `give`: the caller reads
 * the table's typed arrays no more (names, kinds and dictionaries stay), so a pool may move them to its
 * worker instead of copying them; the outcome array is never moved.
 */
export async function fitEncoded(
  table: EncodedTable,
  pool?: FitRunner,
  onProgress?: ProgressListener,
  opts: { give?: boolean } = {},
): Promise<FitResult> {
  const mod = await loadEngine();
  if (table.nRows === 0) return emptyRecordResult(mod.crossFolds);
  const input = toFitInput(table);
  const raw = pool ? await pool.run(input, onProgress, opts) : runFitSync(mod, input, onProgress);
  if (raw.status !== OK) throw new EngineError('bad_input', `the engine refused the fit input (status ${raw.status})`);
  return interpretFit(raw, table, mod.coreHash);
}

/** Convenience for tests and benchmarks: encode and fit a raw table. */
export async function fitTable(table: RawTable, opts: EncodeOptions, pool?: FitRunner): Promise<FitResult> {
  return fitEncoded(encodeTable(table, opts), pool);
}
