// Seeded integer PRNG (splitmix32 seeding xoshiro128**) so sample bytes are identical on every JS engine.

/** splitmix32 step: turns one 32-bit seed into a well-mixed stream for seeding. */
function splitmix32(seed: number): () => number {
  let state = seed | 0;
  return () => {
    state = (state + 0x9e3779b9) | 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

/**
 * xoshiro128** on 32-bit halves. Only integer ops, exact divisions by powers of two and
 * + - * / on doubles are used, all of which IEEE 754 fixes bit for bit (no Math.exp/log).
 */
export class Prng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(seed: number) {
    const next = splitmix32(seed);
    this.s0 = next();
    this.s1 = next();
    this.s2 = next();
    this.s3 = next();
  }

  /** Next unsigned 32-bit integer. */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5) >>> 0, 7), 9) >>> 0;
    const t = (this.s1 << 9) >>> 0;
    this.s2 = (this.s2 ^ this.s0) >>> 0;
    this.s3 = (this.s3 ^ this.s1) >>> 0;
    this.s1 = (this.s1 ^ this.s2) >>> 0;
    this.s0 = (this.s0 ^ this.s3) >>> 0;
    this.s2 = (this.s2 ^ t) >>> 0;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /** Uniform float in [0, 1) with 53 random bits (exact: integer arithmetic then one power-of-two division). */
  float(): number {
    const hi = this.nextU32() >>> 5;
    const lo = this.nextU32() >>> 6;
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** Uniform integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.float() * (hi - lo + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.float() < p;
  }

  /** Roughly standard normal noise: Irwin-Hall sum of 12 uniforms minus 6 (mean 0, sd 1). */
  normal(): number {
    let sum = 0;
    for (let i = 0; i < 12; i++) sum += this.float();
    return sum - 6;
  }

  /** Number of successes in n trials of probability p (small n only). */
  binomial(n: number, p: number): number {
    let k = 0;
    for (let i = 0; i < n; i++) if (this.float() < p) k++;
    return k;
  }

  /** One of items, picked with the given non-negative weights. */
  choice<T>(items: readonly T[], weights?: readonly number[]): T {
    if (!weights) return items[this.int(0, items.length - 1)];
    let total = 0;
    for (const w of weights) total += w;
    let r = this.float() * total;
    for (let i = 0; i < items.length; i++) {
      r -= weights[i];
      if (r < 0) return items[i];
    }
    return items[items.length - 1];
  }

  /** Fisher-Yates shuffle of a copy. */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      const tmp = out[i];
      out[i] = out[j];
      out[j] = tmp;
    }
    return out;
  }
}

/** exp(z) as (1 + z/1024)^1024 by ten squarings: only + * /, so the same bits everywhere. */
export function expApprox(z: number): number {
  const clamped = z < -40 ? -40 : z > 40 ? 40 : z;
  let x = 1 + clamped / 1024;
  for (let i = 0; i < 10; i++) x *= x;
  return x;
}

/** Logistic function built on expApprox: the chance for a log-odds z. */
export function logistic(z: number): number {
  return 1 / (1 + expApprox(-z));
}

export function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x;
}
