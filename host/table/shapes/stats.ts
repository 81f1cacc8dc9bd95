// Small exact statistics the shapes need (docs/reference/ask.md#shapes panel trend test, per-case slopes): + - * / and sqrt only.

/** One-sided standard normal critical values for the docs/reference/ask.md#shapes `alpha` choices. */
export const Z_ONE_SIDED: Readonly<Record<number, number>> = { 0.05: 1.6448536269514722, 0.1: 1.2815515655446004 };

/**
 * Mann-Kendall trend statistic Z of a series in time order (no missing values): S is the sum of
 * sign(x_j - x_i) over i < j; its variance is corrected for ties, (n(n-1)(2n+5) - sum t(t-1)(2t+5)) / 18;
 * Z = (S - 1)/sd when S > 0, (S + 1)/sd when S < 0, else 0 (also 0 when every value ties).
 */
export function mannKendallZ(xs: readonly number[]): number {
  const n = xs.length;
  let s = 0;
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) s += Math.sign(xs[j] - xs[i]);
  const groups = new Map<number, number>();
  for (const x of xs) groups.set(x, (groups.get(x) ?? 0) + 1);
  let ties = 0;
  for (const t of groups.values()) ties += t * (t - 1) * (2 * t + 5);
  const variance = (n * (n - 1) * (2 * n + 5) - ties) / 18;
  if (variance <= 0 || s === 0) return 0;
  const sd = Math.sqrt(variance);
  return s > 0 ? (s - 1) / sd : (s + 1) / sd;
}

/** Least-squares slope of the non-missing values against their period index 0..n-1; null with fewer than two. */
export function slope(values: readonly (number | null)[]): number | null {
  let n = 0;
  let sx = 0;
  let sy = 0;
  values.forEach((y, x) => {
    if (y === null) return;
    n++;
    sx += x;
    sy += y;
  });
  if (n < 2) return null;
  const mx = sx / n;
  const my = sy / n;
  let sxy = 0;
  let sxx = 0;
  values.forEach((y, x) => {
    if (y === null) return;
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) * (x - mx);
  });
  return sxx === 0 ? null : sxy / sxx;
}
