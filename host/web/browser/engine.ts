// Browser stand-in for host/engine/index.ts in the preview bundle: the same pure exports, without
// the Node loader (fs) and the worker-thread pool. The page compiles /engine.wasm itself.
export { encodeTable } from '../../engine/encode.ts';
export { EngineError, type EngineFailure } from '../../engine/errors.ts';
export type { EncodedTable, EncodedColumn, EncodeOptions, ExclusionWhy } from '../../engine/encode.ts';
export { Model } from '../../engine/model.ts';
export type { ModelColumn, ModelHeader } from '../../engine/model.ts';
export { scoreCases, scoreEncoded, encodeCases, reasonsOf, NotScoreable } from '../../engine/scorer.ts';
export type { ScoreOutput, ReasonOut } from '../../engine/scorer.ts';
export type { FitResult, Quality } from '../../engine/result.ts';
export type { EngineModule } from '../../engine/wasm.ts';

const unavailable = (what: string) =>
  new Error(`${what} is Node-only; the browser preview fits with runFitSync on the engine it compiled (host/web/core/fit.ts)`);

export class FitPool {
  constructor() {
    throw unavailable('FitPool');
  }
}

export function loadEngine(): never {
  throw unavailable('loadEngine');
}

export function fitEncoded(): never {
  throw unavailable('fitEncoded');
}

export function fitTable(): never {
  throw unavailable('fitTable');
}
