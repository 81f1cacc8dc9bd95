// Test-only AssemblyScript entry, compiled by test/engine/residual-trees.test.ts into its own small module: it runs
// the engine's own residual-tree code (assembly/residual-trees.ts) on raw trees the test lays out, so the test can
// check each tree's served Shapley values against an independent TreeSHAP. Not part of build/engine.wasm.
import { serveTree, rawTreeValue, rawTreeMean } from '../../../assembly/residual-trees';

export function alloc(bytes: i32): usize {
  const p = heap.alloc(<usize>bytes);
  memory.fill(p, 0, <usize>bytes);
  return p;
}

/** serveTree of the raw tree at `tree` (usable column c served as model column colOf[c]) into `out`. */
export function serve(tree: usize, colOf: usize, scale: f64, out: usize): void {
  serveTree(tree, colOf, scale, out);
}

/** The raw tree's value for row r of column-major bins (bins [c * n + r]). */
export function value(tree: usize, bins: usize, n: i32, r: i32): f64 {
  return rawTreeValue(tree, bins, n, r);
}

export function mean(tree: usize): f64 {
  return rawTreeMean(tree);
}
