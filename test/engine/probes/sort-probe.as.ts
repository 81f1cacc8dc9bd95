// Test-only AssemblyScript entry, compiled by test/engine/bag-draw.test.ts into its own small module: the
// engine's own sortByU64Key and firstByU64Key (assembly/sort.ts) on indices and keys the test lays out. Not part
// of build/engine.wasm.
import { sortByU64Key, firstByU64Key } from '../../../assembly/sort';

export function alloc(bytes: i32): usize {
  const p = heap.alloc(<usize>bytes);
  memory.fill(p, 0, <usize>bytes);
  return p;
}

export function sortAll(idx: usize, n: i32, keys: usize): void {
  sortByU64Key(idx, n, keys);
}

export function sortFirst(idx: usize, n: i32, k: i32, keys: usize): void {
  firstByU64Key(idx, n, k, keys);
}
