// A bag's draw (assembly/tasks.ts drawBag) reads only the first rows of each class in the order of their bag
// keys; on large records it orders only the rows whose key is under a threshold (assembly/sort.ts
// firstByU64Key) instead of all of them (sortByU64Key). Compiled from the engine's own source into a small
// probe module (test/engine/probes/sort-probe.as.ts), the two must give the same first k indices in the same
// order, ties of equal keys (rows of one entity) included, and leave the rest as a set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileProbe } from './probes/compile.ts';
import { mulberry32 } from '../../bench/prng.ts';

interface Probe {
  memory: WebAssembly.Memory;
  alloc(bytes: number): number;
  sortAll(idx: number, n: number, keys: number): void;
  sortHashed(idx: number, n: number, keys: number): void;
  sortFirst(idx: number, n: number, k: number, keys: number): void;
  sortByValue(idx: number, n: number, values: number, desc: boolean, radix: boolean): void;
  sortByHash(idx: number, n: number, keys: number, values: number, radix: boolean): void;
}

let probe: Probe;
let removeProbe = (): void => {};

beforeAll(async () => {
  const compiled = await compileProbe<Probe>('sort-probe');
  probe = compiled.exports;
  removeProbe = compiled.remove;
}, 60_000);
afterAll(() => removeProbe());

/**
 * n ascending indices into a key array of size keysLen (each index draws a random key; `repeat` of them share
 * the key of the index before, as an entity's rows share their hash), laid out in the probe's memory.
 */
function layout(n: number, seed: number, repeat: number) {
  const next = mulberry32(seed);
  const keys = new BigUint64Array(n);
  for (let i = 0; i < n; i++) keys[i] = i > 0 && next() % 1000 < repeat ? keys[i - 1] : (BigInt(next()) << 32n) | BigInt(next());
  const kp = probe.alloc(n * 8);
  new BigUint64Array(probe.memory.buffer, kp, n).set(keys);
  const idx = () => {
    const p = probe.alloc(n * 4);
    new Int32Array(probe.memory.buffer, p, n).set(Int32Array.from({ length: n }, (_, i) => i));
    return p;
  };
  return { kp, idx };
}

describe('firstByU64Key against sortByU64Key', () => {
  for (const [n, repeat] of [
    [200_000, 0],
    [300_000, 200],
  ] as const) {
    it(`gives the same first k of ${n.toLocaleString('en-US')} indices (${repeat / 10}% repeated keys)`, () => {
      const { kp, idx } = layout(n, n + repeat, repeat);
      const all = idx();
      probe.sortAll(all, n, kp);
      const full = Int32Array.from(new Int32Array(probe.memory.buffer, all, n));
      for (const k of [1, 7, 1000, 8000, 33_000, Math.floor(n / 4), Math.floor(n / 4) + 1, n]) {
        const some = idx();
        probe.sortFirst(some, n, k, kp);
        const got = new Int32Array(probe.memory.buffer, some, n);
        let firstDiffers = -1;
        for (let i = 0; i < k && firstDiffers < 0; i++) if (got[i] !== full[i]) firstDiffers = i;
        expect(firstDiffers, `k = ${k}: first position that differs`).toBe(-1);
        // the others are the rest, each once
        const rest = Int32Array.from(got.subarray(k)).sort();
        const want = Int32Array.from(full.subarray(k)).sort();
        let restDiffers = rest.length === want.length ? -1 : 0;
        for (let i = 0; i < rest.length && restDiffers < 0; i++) if (rest[i] !== want[i]) restDiffers = i;
        expect(restDiffers, `k = ${k}: the rest`).toBe(-1);
      }
    });
  }
});

// Both take the draw's keys (64-bit hashes) through sortByHashKey: buckets by the keys' top bits, then insertion
// within each; keys that are not spread (a few top bits, every key in one bucket) fall back to sortByU64Key.
describe('sortByHashKey against sortByU64Key', () => {
  for (const [n, repeat, narrow] of [
    [5, 0, false],
    [3_000, 300, false],
    [60_000, 0, false],
    [60_000, 500, false],
    [20_000, 0, true],
  ] as const) {
    it(`orders ${n.toLocaleString('en-US')} indices the same way (${repeat / 10}% repeated keys${narrow ? ', 256 distinct keys: the fallback' : ''})`, () => {
      const { kp, idx } = layout(n, 7 * n + repeat, repeat);
      if (narrow) {
        const keys = new BigUint64Array(probe.memory.buffer, kp, n);
        for (let i = 0; i < n; i++) keys[i] &= 0xffn;
      }
      const all = idx();
      probe.sortAll(all, n, kp);
      const hashed = idx();
      probe.sortHashed(hashed, n, kp);
      const want = new Int32Array(probe.memory.buffer, all, n);
      const got = new Int32Array(probe.memory.buffer, hashed, n);
      let firstDiffers = -1;
      for (let i = 0; i < n && firstDiffers < 0; i++) if (got[i] !== want[i]) firstDiffers = i;
      expect(firstDiffers, 'first position that differs').toBe(-1);
    });
  }
});

// A held-out AUC and lift (assembly/stats.ts) order rows by score with sortIndicesByF64: on long arrays a radix
// sort of the scores' bits, which must give the comparison sort's order, ties (and -0 against +0) by index.
describe('sortIndicesByF64 against the comparison sort', () => {
  for (const [n, nan] of [
    [300, false],
    [20_000, false],
    [5_000, true],
  ] as const) {
    it(`orders ${n.toLocaleString('en-US')} scores the same way${nan ? ' (with a NaN: the comparison sort itself)' : ''}`, () => {
      const next = mulberry32(n);
      const values = new Float64Array(n);
      // few distinct scores (many ties), negatives, both zeros, and tiny and huge magnitudes
      for (let i = 0; i < n; i++) {
        const u = next() % 1000;
        values[i] = u < 100 ? 0 : u < 200 ? -0 : u < 600 ? (next() % 50) - 25 : (next() / 2 ** 32 - 0.5) * 10 ** ((next() % 40) - 20);
      }
      if (nan) values[n >> 1] = NaN;
      const vp = probe.alloc(n * 8);
      new Float64Array(probe.memory.buffer, vp, n).set(values);
      for (const desc of [false, true]) {
        const order = (radix: boolean) => sortedIndices(n, (p) => probe.sortByValue(p, n, vp, desc, radix));
        expect(order(true)).toEqual(order(false));
      }
    });
  }
});

/** The indices 0..n-1 in the probe's memory, ordered by `sort` (given their address), copied out. */
function sortedIndices(n: number, sort: (p: number) => void): Int32Array {
  const p = probe.alloc(n * 4);
  new Int32Array(probe.memory.buffer, p, n).set(Int32Array.from({ length: n }, (_, i) => i));
  sort(p);
  return Int32Array.from(new Int32Array(probe.memory.buffer, p, n));
}

// The canonical row order (assembly/fit.ts orderRows) sorts by entity hash first with sortIndicesByU64Hash: a radix
// sort by the hashes' high halves, then the comparator within each run of one high half.
describe('sortIndicesByU64Hash against the comparison sort', () => {
  it('orders 50,000 rows the same way, with repeated hashes and hashes that share their high half', () => {
    const n = 50_000;
    const next = mulberry32(99);
    const keys = new BigUint64Array(n);
    const values = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const u = next() % 100;
      // a repeat of an earlier row's hash (an entity's rows), a hash sharing an earlier high half, or a new one
      const high = u < 20 && i > 0 ? keys[next() % i] >> 32n : BigInt(next());
      keys[i] = u < 10 && i > 0 ? keys[next() % i] : (high << 32n) | BigInt(next());
      values[i] = next() % 7;
    }
    const kp = probe.alloc(n * 8);
    new BigUint64Array(probe.memory.buffer, kp, n).set(keys);
    const vp = probe.alloc(n * 8);
    new Float64Array(probe.memory.buffer, vp, n).set(values);
    const order = (radix: boolean) => sortedIndices(n, (p) => probe.sortByHash(p, n, kp, vp, radix));
    expect(order(true)).toEqual(order(false));
  });
});
