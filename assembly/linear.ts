// A linear start for small (cross-fitted) bags: a ridge logistic regression on one rank feature per numeric
// column, written into the bag's term tables before the stagewise rounds (boost.ts boostStagewise). It is
// still an additive model over the same bins (each bin's value is beta times the bin's standardized mid-rank),
// so the stored model, its reasons and its scoring do not change shape. Kept only when the bag's own
// validation rows say it beats the plain start; the boosting that follows adds what is not linear.
import { ldf, stf, ldi, sti, allocF64, allocI32, release } from './mem';
import { rowLogLoss, sigmoid } from './stats';
import { LINEAR_RIDGE, LINEAR_MAX_COLS, LINEAR_NEWTON_STEPS, LINEAR_NEWTON_TOL } from './tunables';
import { BIN_STRIDE } from './binning';

const STRIDE: i32 = BIN_STRIDE; // bins per column in term tables

/** Set by linearStart when it was kept: the intercept of the start. */
export let linearIntercept: f64 = 0;

/**
 * The bin features: for each numeric column with at least two value bins, the standardized mid-rank of
 * each of its bins among the bag's training rows (missing, bin 0, at the mean: 0). Returns the number of
 * feature columns (0 when there are more than LINEAR_MAX_COLS: no column is dropped for its place in the
 * table); `cols` gets their column indices and `z` their per-bin values [k * STRIDE + bin].
 */
function rankFeatures(u: i32, kinds: usize, nBins: usize, binCounts: usize, cols: usize, z: usize): i32 {
  let numeric = 0;
  for (let c = 0; c < u; c++) if (ldi(kinds, c) == 0 && ldi(nBins, c) >= 3) numeric++;
  if (numeric > LINEAR_MAX_COLS) return 0;
  let p = 0;
  for (let c = 0; c < u; c++) {
    const nb = ldi(nBins, c);
    if (ldi(kinds, c) != 0 || nb < 3) continue;
    const cnt = binCounts + (<usize>(c * STRIDE) << 3);
    let total = 0.0, used = 0;
    for (let b = 1; b < nb; b++) { const k = ldf(cnt, b); total += k; if (k > 0) used++; }
    if (used < 2) continue;
    const zc = z + (<usize>(p * STRIDE) << 3);
    let below = 0.0, mean = 0.0;
    for (let b = 1; b < nb; b++) {
      const k = ldf(cnt, b);
      const q = (below + 0.5 * k) / total;
      stf(zc, b, q);
      mean += k * q;
      below += k;
    }
    mean /= total;
    let v = 0.0;
    for (let b = 1; b < nb; b++) { const d = ldf(zc, b) - mean; v += ldf(cnt, b) * d * d; }
    const sd = Math.sqrt(v / total);
    if (!(sd > 1e-12)) continue;
    stf(zc, 0, 0.0);
    for (let b = 1; b < nb; b++) stf(zc, b, (ldf(zc, b) - mean) / sd);
    sti(cols, p, c);
    p++;
  }
  return p;
}

/** Solves the symmetric positive definite system a x = g (a: m x m, overwritten by its Cholesky factor) into x. */
function choleskySolve(a: usize, g: usize, x: usize, m: i32): bool {
  for (let j = 0; j < m; j++) {
    let d = ldf(a, j * m + j);
    for (let k = 0; k < j; k++) d -= ldf(a, j * m + k) * ldf(a, j * m + k);
    if (!(d > 1e-12)) return false;
    const l = Math.sqrt(d);
    stf(a, j * m + j, l);
    for (let i = j + 1; i < m; i++) {
      let s = ldf(a, i * m + j);
      for (let k = 0; k < j; k++) s -= ldf(a, i * m + k) * ldf(a, j * m + k);
      stf(a, i * m + j, s / l);
    }
  }
  for (let i = 0; i < m; i++) {
    let s = ldf(g, i);
    for (let k = 0; k < i; k++) s -= ldf(a, i * m + k) * ldf(x, k);
    stf(x, i, s / ldf(a, i * m + i));
  }
  for (let i = m - 1; i >= 0; i--) {
    let s = ldf(x, i);
    for (let k = i + 1; k < m; k++) s -= ldf(a, k * m + i) * ldf(x, k);
    stf(x, i, s / ldf(a, i * m + i));
  }
  return true;
}

/**
 * Fits the ridge logistic regression on the bag's training rows (bins column-major [c * nT + i]) from the
 * intercept b0 and, when its validation log loss is below the plain start's, writes it into `work` (term
 * tables), the training rows' odds `eT` and the validation logits `sV`, and sets linearIntercept. Returns
 * whether it was kept.
 */
export function linearStart(u: i32, kinds: usize, nBins: usize, binCounts: usize, binsT: usize, yT: usize, nT: i32,
  binsV: usize, yV: usize, nV: i32, b0: f64, work: usize, eT: usize, sV: usize): bool {
  if (nV == 0) return false;
  const cols = allocI32(LINEAR_MAX_COLS);
  const z = allocF64(LINEAR_MAX_COLS * STRIDE);
  const p = rankFeatures(u, kinds, nBins, binCounts, cols, z);
  if (p == 0) { release(cols); release(z); return false; }
  const m = p + 1; // intercept first, then one coefficient per feature
  const x = allocF64(nT * p); // row-major features of the training rows
  for (let k = 0; k < p; k++) {
    const col = binsT + <usize>(ldi(cols, k) * nT);
    const zk = z + (<usize>(k * STRIDE) << 3);
    for (let i = 0; i < nT; i++) stf(x, i * p + k, ldf(zk, <i32>load<u8>(col + <usize>i)));
  }
  const beta = allocF64(m), grad = allocF64(m), hess = allocF64(m * m), step = allocF64(m);
  stf(beta, 0, b0);
  let ok = true;
  for (let it = 0; it < LINEAR_NEWTON_STEPS; it++) {
    memory.fill(grad, 0, <usize>m << 3);
    memory.fill(hess, 0, <usize>(m * m) << 3);
    for (let i = 0; i < nT; i++) {
      const xi = x + (<usize>(i * p) << 3);
      let s = ldf(beta, 0);
      for (let k = 0; k < p; k++) s += ldf(beta, k + 1) * ldf(xi, k);
      const pr = sigmoid(s);
      const r = pr - ldf(yT, i), w = pr * (1.0 - pr);
      stf(grad, 0, ldf(grad, 0) + r);
      stf(hess, 0, ldf(hess, 0) + w);
      for (let k = 0; k < p; k++) {
        const xk = ldf(xi, k), wk = w * xk;
        stf(grad, k + 1, ldf(grad, k + 1) + r * xk);
        stf(hess, (k + 1) * m, ldf(hess, (k + 1) * m) + wk); // row k+1, column 0
        // row k+1, columns 1..k+1 of the lower triangle, two at a time (f64x2: each sum takes the same
        // products in the same order as one at a time, so the same bits)
        const hr = hess + (<usize>((k + 1) * m + 1) << 3);
        const wk2 = f64x2.splat(wk);
        let l = 0;
        for (; l + 1 <= k; l += 2) {
          const o = hr + (<usize>l << 3);
          v128.store(o, f64x2.add(v128.load(o), f64x2.mul(wk2, v128.load(xi + (<usize>l << 3)))));
        }
        if (l == k) stf(hr, l, ldf(hr, l) + wk * ldf(xi, l));
      }
    }
    for (let k = 1; k < m; k++) {
      stf(grad, k, ldf(grad, k) + LINEAR_RIDGE * ldf(beta, k));
      stf(hess, k * m + k, ldf(hess, k * m + k) + LINEAR_RIDGE);
    }
    // the lower triangle was summed; Cholesky reads only it
    if (!choleskySolve(hess, grad, step, m)) { ok = false; break; }
    let biggest = 0.0;
    for (let k = 0; k < m; k++) {
      const d = ldf(step, k);
      stf(beta, k, ldf(beta, k) - d);
      if (Math.abs(d) > biggest) biggest = Math.abs(d);
    }
    if (biggest < LINEAR_NEWTON_TOL) break;
  }
  let kept = false;
  if (ok) {
    // validation: the plain start (b0) against the linear one
    let plain = 0.0, lin = 0.0;
    const b = ldf(beta, 0);
    for (let i = 0; i < nV; i++) {
      let s = b;
      for (let k = 0; k < p; k++) {
        s += ldf(beta, k + 1) * ldf(z + (<usize>(k * STRIDE) << 3), <i32>load<u8>(binsV + <usize>(ldi(cols, k) * nV + i)));
      }
      plain += rowLogLoss(b0, ldf(yV, i));
      lin += rowLogLoss(s, ldf(yV, i));
    }
    if (lin < plain) {
      kept = true;
      linearIntercept = b;
      for (let k = 0; k < p; k++) {
        const c = ldi(cols, k), nb = ldi(nBins, c), bk = ldf(beta, k + 1);
        const zk = z + (<usize>(k * STRIDE) << 3);
        const t = work + (<usize>(c * STRIDE) << 3);
        for (let bb = 0; bb < nb; bb++) stf(t, bb, bk * ldf(zk, bb));
      }
      for (let i = 0; i < nT; i++) {
        let s = b;
        for (let k = 0; k < p; k++) s += ldf(beta, k + 1) * ldf(x, i * p + k);
        stf(eT, i, Math.exp(s));
      }
      for (let i = 0; i < nV; i++) {
        let s = b;
        for (let k = 0; k < p; k++) {
          const c = ldi(cols, k);
          s += ldf(work + (<usize>(c * STRIDE) << 3), <i32>load<u8>(binsV + <usize>(c * nV + i)));
        }
        stf(sV, i, s);
      }
    }
  }
  release(cols); release(z); release(x); release(beta); release(grad); release(hess); release(step);
  return kept;
}
