// Held-out quality metrics for the side-by-side bench: rank AUC (ties averaged), log loss, Brier.

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
