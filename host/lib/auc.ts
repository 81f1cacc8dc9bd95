// AUC with DeLong's structural components (DeLong, DeLong & Clarke-Pearson 1988): one model's AUC
// and its standard error, and the paired test of two models scored on the same rows. Used by drift
// (docs/reference/outcomes.md#drift) and preflight (a column's own AUC). O(n log n) by sorting, not O(positives x negatives).

export interface AucComponents {
  auc: number;
  /** Per positive row (input order): share of negatives it outranks (ties count a half). */
  v10: Float64Array;
  /** Per negative row (input order): share of positives that outrank it. */
  v01: Float64Array;
}

/** Rows of the sorted array `a` strictly below `x`, and equal to it. */
function rankIn(a: Float64Array, x: number): { below: number; equal: number } {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  const below = lo;
  hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return { below, equal: lo - below };
}

/** Components of the AUC of `scores` for labels 1/0 (other labels are skipped); null without both classes. */
export function aucComponents(scores: ArrayLike<number>, labels: ArrayLike<number>): AucComponents | null {
  const pos: number[] = [];
  const neg: number[] = [];
  for (let i = 0; i < scores.length; i++) {
    if (labels[i] === 1) pos.push(scores[i]);
    else if (labels[i] === 0) neg.push(scores[i]);
  }
  if (pos.length === 0 || neg.length === 0) return null;
  const sortedNeg = Float64Array.from(neg).sort();
  const sortedPos = Float64Array.from(pos).sort();
  const v10 = new Float64Array(pos.length);
  const v01 = new Float64Array(neg.length);
  let sum = 0;
  for (let i = 0; i < pos.length; i++) {
    const { below, equal } = rankIn(sortedNeg, pos[i]);
    v10[i] = (below + equal / 2) / neg.length;
    sum += v10[i];
  }
  for (let j = 0; j < neg.length; j++) {
    const { below, equal } = rankIn(sortedPos, neg[j]);
    v01[j] = (pos.length - below - equal + equal / 2) / pos.length;
  }
  return { auc: sum / pos.length, v10, v01 };
}

/** The AUC alone, or null without both classes. */
export function auc(scores: ArrayLike<number>, labels: ArrayLike<number>): number | null {
  return aucComponents(scores, labels)?.auc ?? null;
}

function covariance(a: Float64Array, b: Float64Array): number {
  const n = a.length;
  if (n < 2) return 0;
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < n; i++) {
    ma += a[i];
    mb += b[i];
  }
  ma /= n;
  mb /= n;
  let s = 0;
  for (let i = 0; i < n; i++) s += (a[i] - ma) * (b[i] - mb);
  return s / (n - 1);
}

/** DeLong standard error of one AUC. */
export function aucStandardError(c: AucComponents): number {
  return Math.sqrt(covariance(c.v10, c.v10) / c.v10.length + covariance(c.v01, c.v01) / c.v01.length);
}

/**
 * One-sided z of an AUC against chance (0.5), as the engine's held-out test computes it
 * (assembly/stats.ts aucZ): over the larger of DeLong's standard error and the AUC's spread when
 * scores and labels are independent (Mann-Whitney null, (n + 1) / (12 n1 n0)).
 */
export function zAgainstChance(c: AucComponents): number {
  const n1 = c.v10.length;
  const n0 = c.v01.length;
  if (n1 === 0 || n0 === 0) return 0;
  const se = Math.max(aucStandardError(c), Math.sqrt((n1 + n0 + 1) / (12 * n1 * n0)));
  return (c.auc - 0.5) / se;
}

export interface PairedDifference {
  /** AUC of b minus AUC of a. */
  diff: number;
  se: number;
  /** diff / se: positive when b ranks the rows better than a. */
  z: number;
}

/** DeLong's paired test: two models' components computed on the same rows with the same labels. */
export function pairedDifference(a: AucComponents, b: AucComponents): PairedDifference {
  const p = a.v10.length;
  const n = a.v01.length;
  const v10 = covariance(a.v10, a.v10) + covariance(b.v10, b.v10) - 2 * covariance(a.v10, b.v10);
  const v01 = covariance(a.v01, a.v01) + covariance(b.v01, b.v01) - 2 * covariance(a.v01, b.v01);
  const se = Math.sqrt(Math.max(0, v10 / p + v01 / n));
  const diff = b.auc - a.auc;
  const z = se === 0 ? (diff === 0 ? 0 : Math.sign(diff) * Infinity) : diff / se;
  return { diff, se, z };
}
