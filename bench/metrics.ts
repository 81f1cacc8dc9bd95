// Held-out quality metrics for the side-by-side bench: rank AUC (ties averaged), log loss, Brier, calibration error.

/** Mann-Whitney AUC with average ranks for tied scores; NaN when a class is absent. */
export function auc(y: ArrayLike<number>, p: ArrayLike<number>): number {
  const n = y.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => p[a] - p[b] || a - b);
  let rankSumPos = 0;
  let nPos = 0;
  for (let i = 0; i < n;) {
    let j = i;
    while (j + 1 < n && p[order[j + 1]] === p[order[i]]) j++;
    const avgRank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) if (y[order[k]] === 1) ((rankSumPos += avgRank), nPos++);
    i = j + 1;
  }
  const nNeg = n - nPos;
  if (nPos === 0 || nNeg === 0) return NaN;
  return (rankSumPos - (nPos * (nPos + 1)) / 2) / (nPos * nNeg);
}

/** Mean negative log-likelihood with p clipped to [1e-15, 1 - 1e-15]. */
export function logLoss(y: ArrayLike<number>, p: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < y.length; i++) {
    const q = Math.min(Math.max(p[i], 1e-15), 1 - 1e-15);
    sum -= y[i] === 1 ? Math.log(q) : Math.log(1 - q);
  }
  return sum / y.length;
}

/** Mean squared error of the probability against the 0/1 outcome. */
export function brier(y: ArrayLike<number>, p: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < y.length; i++) sum += (p[i] - y[i]) ** 2;
  return sum / y.length;
}

/**
 * Expected calibration error over `bins` equal-count bins of the held-out chances: rows sorted by p (ties
 * by row order, so the binning is deterministic), bin b holds rows floor(b n / bins) to floor((b+1) n / bins) - 1,
 * and ECE = sum over bins of (bin rows / n) x |mean outcome - mean p| in the bin. 0 is perfectly calibrated.
 */
export function ece(y: ArrayLike<number>, p: ArrayLike<number>, bins = 10): number {
  const n = y.length;
  if (n === 0) return NaN;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => p[a] - p[b] || a - b);
  let sum = 0;
  for (let b = 0; b < bins; b++) {
    const from = Math.floor((b * n) / bins);
    const to = Math.floor(((b + 1) * n) / bins);
    if (to <= from) continue;
    let ys = 0;
    let ps = 0;
    for (let k = from; k < to; k++) ((ys += y[order[k]]), (ps += p[order[k]]));
    sum += Math.abs(ys - ps);
  }
  return sum / n;
}

/** Logistic intercept and slope of y on x (Newton). */
export function logisticFit(y: ArrayLike<number>, x: ArrayLike<number>): [number, number] {
  let a = 0,
    b = 1;
  for (let it = 0; it < 50; it++) {
    let ga = 0,
      gb = 0,
      haa = 0,
      hab = 0,
      hbb = 0;
    for (let i = 0; i < y.length; i++) {
      const p = 1 / (1 + Math.exp(-(a + b * x[i])));
      const w = p * (1 - p);
      ga += p - y[i];
      gb += (p - y[i]) * x[i];
      haa += w;
      hab += w * x[i];
      hbb += w * x[i] * x[i];
    }
    const det = haa * hbb - hab * hab;
    if (!(det > 0)) break;
    a -= (hbb * ga - hab * gb) / det;
    b -= (haa * gb - hab * ga) / det;
  }
  return [a, b];
}
