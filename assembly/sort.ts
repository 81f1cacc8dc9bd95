// Stable bottom-up merge sort of i32 index arrays with a comparator; every tie is broken by the
// index itself so the order never depends on anything but the keys (docs/design/engine.md#determinism).
import { ldi, sti, ldf, allocI32, allocF64, release } from './mem';

/** Sorts `n` indices at `idx` by `cmp(a, b)` (negative: a first); equal keys keep ascending index. */
export function sortIndices(idx: usize, n: i32, cmp: (a: i32, b: i32) => i32): void {
  if (n < 2) return;
  let src = idx;
  let dst = allocI32(n);
  const scratch = dst;
  for (let width = 1; width < n; width <<= 1) {
    for (let lo = 0; lo < n; lo += width << 1) {
      const mid = min(lo + width, n);
      const hi = min(lo + (width << 1), n);
      let i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        const a = ldi(src, i), b = ldi(src, j);
        let c = cmp(a, b);
        if (c == 0) c = a < b ? -1 : 1;
        if (c <= 0) { sti(dst, k++, a); i++; } else { sti(dst, k++, b); j++; }
      }
      while (i < mid) sti(dst, k++, ldi(src, i++));
      while (j < hi) sti(dst, k++, ldi(src, j++));
    }
    const t = src; src = dst; dst = t;
  }
  if (src != idx) memory.copy(idx, src, <usize>n << 2);
  release(scratch);
}

/**
 * Sorts `n` f64 values in place ascending (NaN must not be present). Short arrays by merge sort
 * (sortF64Merge, the readable version); longer ones by an LSD radix sort of their order-preserving bit
 * patterns, which gives the same values in the same order (-0 before +0, which compare equal).
 */
export function sortF64(p: usize, n: i32): void {
  if (n < RADIX_MIN) sortF64Merge(p, n);
  else sortF64Radix(p, n);
}

const RADIX_MIN: i32 = 512;
const DIGIT_BITS: u64 = 11;
const DIGITS: i32 = 1 << <i32>DIGIT_BITS;

/** Order-preserving u64 of a non-NaN f64: negative values have every bit flipped, others the sign bit set. */
@inline function orderKey(v: f64): u64 {
  const b = reinterpret<u64>(v);
  return (b >> 63) != 0 ? ~b : b | 0x8000000000000000;
}

@inline function keyValue(k: u64): f64 {
  return reinterpret<f64>((k >> 63) != 0 ? k & 0x7fffffffffffffff : ~k);
}

export function sortF64Radix(p: usize, n: i32): void {
  let src = heap.alloc(<usize>n << 3), dst = heap.alloc(<usize>n << 3);
  const a = src, b = dst;
  for (let i = 0; i < n; i++) store<u64>(src + (<usize>i << 3), orderKey(load<f64>(p + (<usize>i << 3))));
  const count = allocI32(DIGITS);
  for (let shift: u64 = 0; shift < 64; shift += DIGIT_BITS) {
    memory.fill(count, 0, <usize>DIGITS << 2);
    const mask: u64 = <u64>(DIGITS - 1);
    for (let i = 0; i < n; i++) {
      const d = <i32>((load<u64>(src + (<usize>i << 3)) >> shift) & mask);
      sti(count, d, ldi(count, d) + 1);
    }
    // a digit every key shares (the exponent's high bits, mostly) leaves the order as it is
    if (ldi(count, <i32>((load<u64>(src) >> shift) & mask)) == n) continue;
    let sum = 0;
    for (let d = 0; d < DIGITS; d++) { const c = ldi(count, d); sti(count, d, sum); sum += c; }
    for (let i = 0; i < n; i++) {
      const k = load<u64>(src + (<usize>i << 3));
      const d = <i32>((k >> shift) & mask);
      const at = ldi(count, d);
      store<u64>(dst + (<usize>at << 3), k);
      sti(count, d, at + 1);
    }
    const t = src; src = dst; dst = t;
  }
  for (let i = 0; i < n; i++) store<f64>(p + (<usize>i << 3), keyValue(load<u64>(src + (<usize>i << 3))));
  release(count); heap.free(a); heap.free(b);
}

/** Stable bottom-up merge sort of `n` f64 values in place ascending. */
export function sortF64Merge(p: usize, n: i32): void {
  if (n < 2) return;
  let src = p;
  let dst = heap.alloc(<usize>n << 3);
  const scratch = dst;
  for (let width = 1; width < n; width <<= 1) {
    for (let lo = 0; lo < n; lo += width << 1) {
      const mid = min(lo + width, n);
      const hi = min(lo + (width << 1), n);
      let i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        const a = load<f64>(src + (<usize>i << 3)), b = load<f64>(src + (<usize>j << 3));
        if (a <= b) { store<f64>(dst + (<usize>k << 3), a); i++; } else { store<f64>(dst + (<usize>k << 3), b); j++; }
        k++;
      }
      while (i < mid) { store<f64>(dst + (<usize>k << 3), load<f64>(src + (<usize>i << 3))); i++; k++; }
      while (j < hi) { store<f64>(dst + (<usize>k << 3), load<f64>(src + (<usize>j << 3))); j++; k++; }
    }
    const t = src; src = dst; dst = t;
  }
  if (src != p) memory.copy(p, src, <usize>n << 3);
  heap.free(scratch);
}

/**
 * Sorts `n` indices at `idx` by their u64 key `keys[index]` ascending, equal keys by ascending index:
 * the order sortIndices gives with that comparator, by a stable least-significant-digit radix sort
 * (the indices must come in ascending order). Large arrays take four 16-bit digits; short ones eight
 * 8-bit digits, whose 256 counters cost less to clear than 65,536 (a small bag's draw: a few hundred rows).
 * Any digit width gives the same order.
 */
export function sortByU64Key(idx: usize, n: i32, keys: usize): void {
  if (n < 2) return;
  const bits: u64 = n < 8192 ? 8 : 16;
  const buckets = 1 << <i32>bits;
  const mask: u64 = <u64>(buckets - 1);
  const count = allocI32(buckets);
  let src = idx;
  let dst = allocI32(n);
  const scratch = dst;
  for (let shift: u64 = 0; shift < 64; shift += bits) {
    memory.fill(count, 0, <usize>buckets << 2);
    for (let i = 0; i < n; i++) {
      const d = <i32>((load<u64>(keys + (<usize>ldi(src, i) << 3)) >> shift) & mask);
      sti(count, d, ldi(count, d) + 1);
    }
    let sum = 0;
    for (let d = 0; d < buckets; d++) { const c = ldi(count, d); sti(count, d, sum); sum += c; }
    for (let i = 0; i < n; i++) {
      const v = ldi(src, i);
      const d = <i32>((load<u64>(keys + (<usize>v << 3)) >> shift) & mask);
      const at = ldi(count, d);
      sti(dst, at, v);
      sti(count, d, at + 1);
    }
    const t = src; src = dst; dst = t;
  }
  if (src != idx) memory.copy(idx, src, <usize>n << 2);
  release(scratch); release(count);
}

// Most keys a bucket of sortByHashKey may hold before it hands the whole sort to sortByU64Key.
const HASH_BUCKET_MAX: i32 = 48;

/**
 * The order sortByU64Key gives (by key, equal keys in their order at `idx`), for keys that are spread evenly over
 * their range, as hashes are: the indices are dealt stably into about n buckets by their keys' top bits (one
 * counting pass instead of four 16-bit ones, each reading the keys at random), then each bucket is sorted by
 * insertion on the whole key, which moves an index only past a strictly greater key. Any bucket of more than
 * HASH_BUCKET_MAX keys (keys not spread) hands the sort to sortByU64Key: the same order either way.
 */
export function sortByHashKey(idx: usize, n: i32, keys: usize): void {
  if (n < 2) return;
  let top: u64 = 0;
  for (let i = 0; i < n; i++) top |= load<u64>(keys + (<usize>ldi(idx, i) << 3));
  let bits = 32 - clz<i32>(n); // about n buckets
  if (bits < 8) bits = 8; else if (bits > 16) bits = 16;
  const used = 64 - <i32>clz<u64>(top); // bits the keys span
  const shift: u64 = used > bits ? <u64>(used - bits) : 0;
  const buckets = 1 << bits;
  const start = allocI32(buckets + 1);
  const kIdx = allocI32(n);
  let worst = 0;
  for (let i = 0; i < n; i++) {
    const d = <i32>(load<u64>(keys + (<usize>ldi(idx, i) << 3)) >> shift) + 1;
    const c = ldi(start, d) + 1;
    sti(start, d, c);
    if (c > worst) worst = c;
  }
  if (worst > HASH_BUCKET_MAX) {
    release(kIdx); release(start);
    sortByU64Key(idx, n, keys);
    return;
  }
  for (let d = 0; d < buckets; d++) sti(start, d + 1, ldi(start, d + 1) + ldi(start, d));
  // kIdx: the indices dealt into their buckets (stable); start[d] ends at bucket d's end
  for (let i = 0; i < n; i++) {
    const v = ldi(idx, i);
    const d = <i32>(load<u64>(keys + (<usize>v << 3)) >> shift);
    const at = ldi(start, d);
    sti(kIdx, at, v);
    sti(start, d, at + 1);
  }
  let lo = 0;
  for (let d = 0; d < buckets; d++) {
    const hi = ldi(start, d);
    for (let i = lo + 1; i < hi; i++) {
      const v = ldi(kIdx, i), key = load<u64>(keys + (<usize>v << 3));
      let j = i;
      while (j > lo && load<u64>(keys + (<usize>ldi(kIdx, j - 1) << 3)) > key) { sti(kIdx, j, ldi(kIdx, j - 1)); j--; }
      sti(kIdx, j, v);
    }
    lo = hi;
  }
  memory.copy(idx, kIdx, <usize>n << 2);
  release(kIdx); release(start);
}

/**
 * Puts at idx[0..k) the k indices of the n at `idx` that sortByU64Key would put first, in that order; the other
 * n - k are left after them in no particular order. Readable version: sortByU64Key(idx, n, keys), then read the
 * first k. Where k is a small part of n (a bag of 33,000 rows drawn from 750,000), only the indices whose key is
 * at most a threshold are sorted: keys are 64-bit hashes, so about k / n of them lie under (k / n) 2^64; the
 * threshold starts a little above that and doubles until at least k indices lie at or under it. Every one of the
 * first k of the full order has a key at or under the k-th smallest, which is at most the threshold, so all are
 * among those sorted; sorted stably from index order, they keep the full order's ties, so the first k are the same.
 */
export function firstByU64Key(idx: usize, n: i32, k: i32, keys: usize): void {
  if (k <= 0) return;
  if (n < 65536 || <f64>k > <f64>n * 0.25) { sortByHashKey(idx, n, keys); return; }
  const picked = allocI32(n);
  let share = (<f64>k * 1.05 + 64.0) / <f64>n;
  let m = 0;
  for (;;) {
    const limit: u64 = share >= 1.0 ? 0xffffffffffffffff : <u64>(share * 18446744073709551616.0);
    m = 0;
    for (let i = 0; i < n; i++) {
      const v = ldi(idx, i);
      if (load<u64>(keys + (<usize>v << 3)) <= limit) { sti(picked, m, v); m++; }
    }
    if (m >= k) break;
    share *= 2;
  }
  sortByHashKey(picked, m, keys);
  // the picked ones first in key order, then the others in their own order (not read for their order)
  const rest = allocI32(n - k > 0 ? n - k : 1);
  let r = 0;
  for (let i = k; i < m; i++) sti(rest, r++, ldi(picked, i));
  // mark the picked: an index is picked when its key is at or under the last limit; the unpicked are the others
  const firstLimitKey = m > 0 ? load<u64>(keys + (<usize>ldi(picked, m - 1) << 3)) : 0;
  for (let i = 0; i < n; i++) {
    const v = ldi(idx, i);
    if (load<u64>(keys + (<usize>v << 3)) > firstLimitKey) sti(rest, r++, v);
  }
  memory.copy(idx, picked, <usize>k << 2);
  memory.copy(idx + (<usize>k << 2), rest, <usize>(n - k) << 2);
  release(picked); release(rest);
}

/**
 * Sorts the indices 0..n-1 at `idx` (ascending on entry) by `values[index]`, ascending or descending, equal
 * values (-0 and +0 too) by ascending index: the order sortIndices(idx, n, cmp) gives with `cmp` comparing
 * the values so (the readable version, and the one taken for short arrays and for any NaN, which such a
 * comparator treats as equal to everything). Longer ones by sortByU64Key on the values' order-preserving
 * bits (a held-out AUC or lift over 250,000 rows: a radix sort, not a comparison sort).
 */
export function sortIndicesByF64(idx: usize, n: i32, values: usize, descending: bool, cmp: (a: i32, b: i32) => i32): void {
  let finite = true;
  for (let i = 0; i < n; i++) {
    const v = ldf(values, i);
    if (v != v) { finite = false; break; }
  }
  if (!finite || n < RADIX_MIN) { sortIndices(idx, n, cmp); return; }
  const keys = allocF64(n);
  for (let i = 0; i < n; i++) {
    const v = ldf(values, i);
    const k = orderKey(v == 0 ? 0.0 : v);
    store<u64>(keys + (<usize>i << 3), descending ? ~k : k);
  }
  sortByU64Key(idx, n, keys);
  release(keys);
}

/**
 * Sorts the indices 0..n-1 at `idx` (ascending on entry) as sortIndices(idx, n, cmp) does (the readable
 * version, taken for short arrays), where `cmp` orders first by the u64 `keys[index]` ascending (a hash:
 * the canonical row order's entity hash). A stable radix sort by the keys' high 32 bits, in three passes of
 * 11 bits over (key, index) pairs read in order, then `cmp` within each run of one high half (rows of one
 * entity, or hashes that share their high half: about a hundred pairs in a million rows). A million rows:
 * about 0.1 s against the comparison sort's 0.4 s.
 */
export function sortIndicesByU64Hash(idx: usize, n: i32, keys: usize, cmp: (a: i32, b: i32) => i32): void {
  if (n < RADIX_MIN) { sortIndices(idx, n, cmp); return; }
  const kA = allocI32(n), kB = allocI32(n), iB = allocI32(n);
  for (let i = 0; i < n; i++) store<u32>(kA + (<usize>i << 2), <u32>(load<u64>(keys + (<usize>ldi(idx, i) << 3)) >> 32));
  const count = allocI32(2048);
  let sk = kA, si = idx, dk = kB, di = iB;
  for (let shift: u32 = 0; shift < 32; shift += 11) {
    memory.fill(count, 0, 2048 << 2);
    for (let i = 0; i < n; i++) {
      const d = <i32>((load<u32>(sk + (<usize>i << 2)) >> shift) & 2047);
      sti(count, d, ldi(count, d) + 1);
    }
    let sum = 0;
    for (let d = 0; d < 2048; d++) { const c = ldi(count, d); sti(count, d, sum); sum += c; }
    for (let i = 0; i < n; i++) {
      const k = load<u32>(sk + (<usize>i << 2));
      const d = <i32>((k >> shift) & 2047);
      const at = ldi(count, d);
      store<u32>(dk + (<usize>at << 2), k);
      sti(di, at, ldi(si, i));
      sti(count, d, at + 1);
    }
    let t = sk; sk = dk; dk = t;
    t = si; si = di; di = t;
  }
  if (si != idx) memory.copy(idx, si, <usize>n << 2);
  for (let q = 0; q < n; ) {
    const h = load<u32>(sk + (<usize>q << 2));
    let end = q + 1;
    while (end < n && load<u32>(sk + (<usize>end << 2)) == h) end++;
    if (end - q > 1) sortIndices(idx + (<usize>q << 2), end - q, cmp);
    q = end;
  }
  release(kA); release(kB); release(iB); release(count);
}
