// Raw memory helpers: hot loops use these loads/stores on unmanaged blocks (about 8x faster than
// managed typed-array access under the incremental runtime; docs/design/engine.md#speed).

@inline export function ldf(p: usize, i: i32): f64 { return load<f64>(p + (<usize>i << 3)); }
@inline export function stf(p: usize, i: i32, v: f64): void { store<f64>(p + (<usize>i << 3), v); }
@inline export function ldi(p: usize, i: i32): i32 { return load<i32>(p + (<usize>i << 2)); }
@inline export function sti(p: usize, i: i32, v: i32): void { store<i32>(p + (<usize>i << 2), v); }
@inline export function ldb(p: usize, i: i32): i32 { return <i32>load<u8>(p + <usize>i); }
@inline export function stb(p: usize, i: i32, v: i32): void { store<u8>(p + <usize>i, <u8>v); }
@inline export function ldl(p: usize, i: i32): u64 { return load<u64>(p + (<usize>i << 3)); }
@inline export function stl(p: usize, i: i32, v: u64): void { store<u64>(p + (<usize>i << 3), v); }

/** Zeroed unmanaged block of `bytes` bytes (never null, at least 8 bytes). */
export function zalloc(bytes: i32): usize {
  const size = <usize>(bytes < 8 ? 8 : bytes);
  const p = heap.alloc(size);
  memory.fill(p, 0, size);
  return p;
}
export function allocF64(n: i32): usize { return zalloc(n << 3); }
export function allocI32(n: i32): usize { return zalloc(n << 2); }
export function allocU8(n: i32): usize { return zalloc(n); }
export function release(p: usize): void { if (p != 0) heap.free(p); }
