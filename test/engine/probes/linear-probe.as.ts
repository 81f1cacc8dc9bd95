// Test-only AssemblyScript entry, compiled by test/engine/linear-newton.test.ts into its own small module: it
// runs the engine's own linearStart (assembly/linear.ts) on bins the test lays out, so the test can check the
// ridge fit it returns against the fit's optimality conditions. Not part of build/engine.wasm.
import { linearStart, linearIntercept } from '../../../assembly/linear';

export function alloc(bytes: i32): usize {
  const p = heap.alloc(<usize>bytes);
  memory.fill(p, 0, <usize>bytes);
  return p;
}

export function run(
  u: i32,
  kinds: usize,
  nBins: usize,
  binCounts: usize,
  binsT: usize,
  yT: usize,
  nT: i32,
  binsV: usize,
  yV: usize,
  nV: i32,
  b0: f64,
  work: usize,
  eT: usize,
  sV: usize,
): i32 {
  return linearStart(u, kinds, nBins, binCounts, binsT, yT, nT, binsV, yV, nV, b0, work, eT, sV) ? 1 : 0;
}

export function intercept(): f64 {
  return linearIntercept;
}
