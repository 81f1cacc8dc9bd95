// Peer: ml-logistic-regression (batch gradient descent) on standardised one-hot inputs plus a ones column.
import { performance } from 'node:perf_hooks';
// @ts-expect-error the package ships no types
import LogisticRegression from 'ml-logistic-regression';
import { Matrix } from 'ml-matrix';
import type { PeerInput, PeerResult } from './types.ts';

/**
 * The package has no intercept and steps along the summed (not mean) gradient, so the step is scaled
 * by 1/n: learningRate = LR_STEP / nTrain. Its default (50,000 steps) is far too slow: one step on
 * Telco costs ~8 ms, twice over (it fits one-vs-all for both classes). 600 steps at LR_STEP 1 reached
 * sklearn's held-out log loss on Telco split 0 (0.4227 vs 0.4226) and WDBC.
 */
export const LR_STEP = 1;
export const LR_STEPS = 600;

function standardiser(x: number[][]): (row: number[]) => number[] {
  const d = x[0]?.length ?? 0;
  const mean = new Float64Array(d);
  const sd = new Float64Array(d);
  for (const r of x) for (let j = 0; j < d; j++) mean[j] += r[j] / x.length;
  for (const r of x) for (let j = 0; j < d; j++) sd[j] += (r[j] - mean[j]) ** 2 / x.length;
  for (let j = 0; j < d; j++) sd[j] = Math.sqrt(sd[j]) || 1;
  return (row) => [1, ...row.map((v, j) => (v - mean[j]) / sd[j])];
}

/** Fits on train, returns P(y = 1) on test and the fit time. */
export function fitMlLogisticRegression(input: PeerInput, step = LR_STEP, steps = LR_STEPS): PeerResult {
  const scale = standardiser(input.xTrain);
  const xTrain = new Matrix(input.xTrain.map(scale));
  const xTest = new Matrix(input.xTest.map(scale));
  const model = new LogisticRegression({ numSteps: steps, learningRate: step / input.xTrain.length });
  const t0 = performance.now();
  model.train(xTrain, Matrix.columnVector(Array.from(input.yTrain)));
  const fitMs = performance.now() - t0;
  // One-vs-all relabels class k as 0 and the rest as 1, so classifiers[k] scores P(y != k):
  // classifiers[0] gives P(y = 1). predict() only returns labels (argmin of those scores).
  const p = Float64Array.from(model.classifiers[0].testScores(xTest) as number[]);
  return { p, fitMs };
}
