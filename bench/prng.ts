// Seeded integer PRNG (mulberry32) for the bench: splits and synthetic tables never use Math.random.

/** Returns a generator of uint32 values; the same seed always gives the same stream. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** Uniform in [0, 1) with 32 bits of resolution. */
export function uniform(next: () => number): number {
  return next() / 4294967296;
}

/** Integer in [0, n) by multiply-shift (no modulo), deterministic for a given stream. */
export function below(next: () => number, n: number): number {
  return Math.floor((next() / 4294967296) * n);
}

/** Fisher-Yates shuffle in place, driven by the integer stream. */
export function shuffleInPlace<T>(items: T[], next: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = below(next, i + 1);
    const tmp = items[i];
    items[i] = items[j];
    items[j] = tmp;
  }
  return items;
}
