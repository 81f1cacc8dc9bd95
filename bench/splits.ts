// Stratified 75/25 splits shared by every model: seed 1337 + s, positives and negatives shuffled apart.
import { mulberry32, shuffleInPlace } from './prng.ts';

export interface Split {
  train: Int32Array;
  test: Int32Array;
}

/**
 * For split s, one mulberry32 stream seeded 1337 + s shuffles the positive row indices, then the
 * negative ones; round(25%) of each class goes to test. Both index arrays come back sorted.
 */
export function stratifiedSplits(y: ArrayLike<number>, count = 3, seed = 1337, testFraction = 0.25): Split[] {
  const pos: number[] = [];
  const neg: number[] = [];
  for (let i = 0; i < y.length; i++) (y[i] === 1 ? pos : neg).push(i);
  return Array.from({ length: count }, (_, s) => {
    const next = mulberry32(seed + s);
    const p = shuffleInPlace(pos.slice(), next);
    const n = shuffleInPlace(neg.slice(), next);
    const nTestPos = Math.round(p.length * testFraction);
    const nTestNeg = Math.round(n.length * testFraction);
    const test = p.slice(0, nTestPos).concat(n.slice(0, nTestNeg));
    const train = p.slice(nTestPos).concat(n.slice(nTestNeg));
    return { train: Int32Array.from(train).sort(), test: Int32Array.from(test).sort() };
  });
}
