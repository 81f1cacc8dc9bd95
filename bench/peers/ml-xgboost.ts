// Peer: ml-xgboost (XGBoost compiled to wasm), objective binary:logistic on the one-hot encoding.
import { performance } from 'node:perf_hooks';
// @ts-expect-error the package ships no types
import xgboostReady from 'ml-xgboost';
import type { PeerInput, PeerResult } from './types.ts';

/**
 * Fixed parameters (the package's defaults except objective, depth and subsample): depth 5, eta 0.1,
 * 200 rounds, min_child_weight 1, no row subsampling (its default 0.5 samples rows), seed 0.
 */
export const XGB_PARAMS = {
  booster: 'gbtree',
  objective: 'binary:logistic',
  max_depth: 5,
  eta: 0.1,
  min_child_weight: 1,
  subsample: 1,
  colsample_bytree: 1,
  seed: 0,
  silent: 1,
  iterations: 200,
};

/** Fits on train, returns P(y = 1) on test and the fit time (wasm load excluded). */
export async function fitMlXgboost(input: PeerInput): Promise<PeerResult> {
  const XGBoost = await xgboostReady;
  const booster = new XGBoost({ ...XGB_PARAMS });
  try {
    const t0 = performance.now();
    booster.train(input.xTrain, Array.from(input.yTrain));
    const fitMs = performance.now() - t0;
    const p = Float64Array.from(booster.predict(input.xTest) as number[]);
    return { p, fitMs };
  } finally {
    booster.free();
  }
}
