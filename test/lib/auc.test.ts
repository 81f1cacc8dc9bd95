// The statistics drift and evidence rest on (host/lib/auc.ts, operations/outcomes/evidence.ts), checked against
// brute force and against the published worked example of Newcombe (1998).
import { describe, expect, it } from 'vitest';
import { Prng } from '../../samples/prng.ts';
import { aucComponents, aucStandardError, pairedDifference } from '../../host/lib/auc.ts';
import { newcombe, wilson } from '../../host/operations/outcomes/evidence.ts';

function bruteAuc(s: number[], y: number[]): number {
  let sum = 0,
    n = 0;
  for (let i = 0; i < s.length; i++)
    for (let j = 0; j < s.length; j++) {
      if (y[i] !== 1 || y[j] !== 0) continue;
      sum += s[i] > s[j] ? 1 : s[i] === s[j] ? 0.5 : 0;
      n++;
    }
  return sum / n;
}

function data(seed: number, n: number) {
  const rng = new Prng(seed);
  const y = Array.from({ length: n }, () => (rng.chance(0.3) ? 1 : 0));
  // coarse scores so ties happen
  const a = y.map((v) => Math.round((v + rng.normal()) * 4) / 4);
  const b = y.map((v, i) => Math.round((0.5 * v + a[i] * 0.3 + rng.normal()) * 4) / 4);
  return { y, a, b };
}

describe('AUC with DeLong components', () => {
  it('equals the brute-force AUC, ties counting a half', () => {
    for (const seed of [1, 2, 3]) {
      const { y, a } = data(seed, 400);
      expect(aucComponents(a, y)!.auc).toBeCloseTo(bruteAuc(a, y), 12);
    }
  });

  it('skips unlabeled rows and needs both classes', () => {
    expect(aucComponents([3, 0, 1], [1, NaN, 0])!.auc).toBe(1);
    expect(aucComponents([1, 2], [1, 1])).toBeNull();
  });

  it("matches DeLong's variance written out as sums over pairs", () => {
    const { y, a } = data(4, 120);
    const pos = a.filter((_, i) => y[i] === 1),
      neg = a.filter((_, i) => y[i] === 0);
    const psi = (x: number, z: number) => (x > z ? 1 : x === z ? 0.5 : 0);
    const v10 = pos.map((x) => neg.reduce((s, z) => s + psi(x, z), 0) / neg.length);
    const v01 = neg.map((z) => pos.reduce((s, x) => s + psi(x, z), 0) / pos.length);
    const auc = v10.reduce((s, v) => s + v, 0) / v10.length;
    const varOf = (v: number[]) => v.reduce((s, x) => s + (x - auc) ** 2, 0) / (v.length - 1);
    const se = Math.sqrt(varOf(v10) / pos.length + varOf(v01) / neg.length);
    expect(aucStandardError(aucComponents(a, y)!)).toBeCloseTo(se, 12);
  });

  it('a paired difference is antisymmetric and zero for a model against itself', () => {
    const { y, a, b } = data(5, 300);
    const ca = aucComponents(a, y)!,
      cb = aucComponents(b, y)!;
    const ab = pairedDifference(ca, cb),
      ba = pairedDifference(cb, ca);
    expect(ab.diff).toBeCloseTo(-ba.diff, 12);
    expect(ab.z).toBeCloseTo(-ba.z, 12);
    expect(pairedDifference(ca, ca)).toEqual({ diff: 0, se: 0, z: 0 });
  });
});

describe('intervals of the evidence', () => {
  it("Wilson's interval of 81/263 is 0.2553 to 0.3662 (Newcombe 1998, Table I)", () => {
    const [lo, hi] = wilson(81, 263);
    expect(lo).toBeCloseTo(0.2553, 4);
    expect(hi).toBeCloseTo(0.3662, 4);
  });

  it("Newcombe's method 10 for 56/70 - 48/80 is 0.0524 to 0.3339 (Newcombe 1998, Table II)", () => {
    const [lo, hi] = newcombe(56, 70, 48, 80);
    expect(lo).toBeCloseTo(0.0524, 4);
    expect(hi).toBeCloseTo(0.3339, 4);
  });
});
