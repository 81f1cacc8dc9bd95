// Test-only AssemblyScript entry, compiled by test/engine/bag-draw.test.ts into its own small module: the
// engine's own sortByU64Key, sortByHashKey, firstByU64Key, sortIndicesByF64 and sortIndicesByU64Hash (assembly/sort.ts) on indices and keys the test
// lays out. Not part of build/engine.wasm.
import { sortByU64Key, sortByHashKey, firstByU64Key, sortIndices, sortIndicesByF64, sortIndicesByU64Hash } from '../../../assembly/sort';

export function alloc(bytes: i32): usize {
  const p = heap.alloc(<usize>bytes);
  memory.fill(p, 0, <usize>bytes);
  return p;
}

export function sortAll(idx: usize, n: i32, keys: usize): void {
  sortByU64Key(idx, n, keys);
}

export function sortHashed(idx: usize, n: i32, keys: usize): void {
  sortByHashKey(idx, n, keys);
}

export function sortFirst(idx: usize, n: i32, k: i32, keys: usize): void {
  firstByU64Key(idx, n, k, keys);
}

let gValues: usize = 0;
function ascending(a: i32, b: i32): i32 {
  const x = load<f64>(gValues + ((<usize>a) << 3)),
    y = load<f64>(gValues + ((<usize>b) << 3));
  return x < y ? -1 : x > y ? 1 : 0;
}
function descending(a: i32, b: i32): i32 {
  const x = load<f64>(gValues + ((<usize>a) << 3)),
    y = load<f64>(gValues + ((<usize>b) << 3));
  return x > y ? -1 : x < y ? 1 : 0;
}

/** sortIndicesByF64 (radix: false, the comparison sort it stands for: sortIndices with the same comparator). */
export function sortByValue(idx: usize, n: i32, values: usize, desc: bool, radix: bool): void {
  gValues = values;
  if (radix) sortIndicesByF64(idx, n, values, desc, desc ? descending : ascending);
  else sortIndices(idx, n, desc ? descending : ascending);
}

let gKeys: usize = 0;
/** By the u64 key, then by the f64 value (the canonical order's shape: hash first, then the row's cells). */
function keyThenValue(a: i32, b: i32): i32 {
  const x = load<u64>(gKeys + ((<usize>a) << 3)),
    y = load<u64>(gKeys + ((<usize>b) << 3));
  if (x != y) return x < y ? -1 : 1;
  return ascending(a, b);
}

/** sortIndicesByU64Hash with keyThenValue (radix: false, sortIndices with it). */
export function sortByHash(idx: usize, n: i32, keys: usize, values: usize, radix: bool): void {
  gKeys = keys;
  gValues = values;
  if (radix) sortIndicesByU64Hash(idx, n, keys, keyThenValue);
  else sortIndices(idx, n, keyThenValue);
}
