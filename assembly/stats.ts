// Held-out statistics: AUC with DeLong variance, log loss, Brier, lifts, and a two-parameter
// logistic fit for the calibration check (docs/design/engine.md#steps). All f64, AS Math only.
import { ldf, stf, ldi, sti, allocI32, allocF64, release } from './mem';
import { sortIndicesByF64 } from './sort';

export const P_CLIP: f64 = 1e-15;

@inline export function sigmoid(s: f64): f64 {
  if (s >= 0) { const e = Math.exp(-s); return 1.0 / (1.0 + e); }
  const e = Math.exp(s);
  return e / (1.0 + e);
}

/** Log loss of one row from its logit (numerically stable). */
@inline export function rowLogLoss(s: f64, y: f64): f64 {
  // log(1 + e^s) - y s
  const softplus = s > 0 ? s + Math.log1p(Math.exp(-s)) : Math.log1p(Math.exp(s));
  return softplus - y * s;
}

// Rows per product in logLossSum: each factor lies in (1, 2], so a product of 64 is at most 2^64 (no overflow)
// and its rounding error at most about 64 ulps (7e-15 of the log).
const LOSS_CHUNK: i32 = 64;

/**
 * Sum of rowLogLoss over the rows start, start + step, ... below n of logits `s` and outcomes `ys`, with one log
 * per LOSS_CHUNK rows instead of a log1p per row: softplus(x) = max(x, 0) + log(1 + e^-|x|), and the logs of a
 * chunk's factors 1 + e^-|x| are summed as the log of their product. Deterministic (AS Math only), and equal to
 * summing rowLogLoss to about 1e-16 of the mean; a factor 1 + e^-|x| rounds away e^-|x| below 1e-16 (|x| > 37).
 * Readable version: for each row, sum += rowLogLoss(s[i], ys[i]).
 */
export function logLossSum(s: usize, ys: usize, start: i32, step: i32, n: i32): f64 {
  let lin = 0.0, logs = 0.0, prod = 1.0, k = 0;
  for (let i = start; i < n; i += step) {
    const x = ldf(s, i);
    prod *= 1.0 + Math.exp(-Math.abs(x));
    lin += (x > 0 ? x : 0.0) - ldf(ys, i) * x;
    if (++k == LOSS_CHUNK) {
      logs += Math.log(prod);
      prod = 1.0;
      k = 0;
    }
  }
  return logs + Math.log(prod) + lin;
}

/** Log loss of a constant probability p. */
@inline export function constLogLoss(p: f64, y: f64): f64 {
  const q = p < P_CLIP ? P_CLIP : (p > 1 - P_CLIP ? 1 - P_CLIP : p);
  return -(y * Math.log(q) + (1 - y) * Math.log(1 - q));
}

let gScores: usize = 0;
function byScore(a: i32, b: i32): i32 {
  const x = ldf(gScores, a), y = ldf(gScores, b);
  return x < y ? -1 : (x > y ? 1 : 0);
}

export class AucResult {
  auc: f64 = 0.5;
  se: f64 = 0;
}

/**
 * AUC of `scores` against 0/1 `ys` over n rows, with the DeLong standard error. With `cluster` (i32 per
 * row: the case it belongs to, 0..nClusters-1) and some case holding several rows, the error is the larger
 * of DeLong's and its cluster-robust form (clusteredSe): rows of one case are not independent evidence.
 */
export function aucDeLong(scores: usize, ys: usize, n: i32, cluster: usize = 0, nClusters: i32 = 0): AucResult {
  const r = new AucResult();
  let nPos = 0;
  for (let i = 0; i < n; i++) if (ldf(ys, i) > 0.5) nPos++;
  const nNeg = n - nPos;
  if (nPos == 0 || nNeg == 0) return r;
  const idx = allocI32(n);
  for (let i = 0; i < n; i++) sti(idx, i, i);
  gScores = scores;
  sortIndicesByF64(idx, n, scores, false, byScore);
  const v = allocF64(n); // V10 for positives, V01 for negatives
  let posBelow = 0, negBelow = 0;
  let g = 0;
  while (g < n) {
    let h = g;
    const s = ldf(scores, ldi(idx, g));
    let posIn = 0, negIn = 0;
    while (h < n && ldf(scores, ldi(idx, h)) == s) {
      if (ldf(ys, ldi(idx, h)) > 0.5) posIn++; else negIn++;
      h++;
    }
    for (let t = g; t < h; t++) {
      const i = ldi(idx, t);
      if (ldf(ys, i) > 0.5) {
        store<f64>(v + (<usize>i << 3), (<f64>negBelow + 0.5 * <f64>negIn) / <f64>nNeg);
      } else {
        const posAbove = nPos - posBelow - posIn;
        store<f64>(v + (<usize>i << 3), (<f64>posAbove + 0.5 * <f64>posIn) / <f64>nPos);
      }
    }
    posBelow += posIn; negBelow += negIn;
    g = h;
  }
  let sum10 = 0.0, sum01 = 0.0;
  for (let i = 0; i < n; i++) { if (ldf(ys, i) > 0.5) sum10 += ldf(v, i); else sum01 += ldf(v, i); }
  const m10 = sum10 / <f64>nPos, m01 = sum01 / <f64>nNeg;
  let ss10 = 0.0, ss01 = 0.0;
  for (let i = 0; i < n; i++) {
    if (ldf(ys, i) > 0.5) { const d = ldf(v, i) - m10; ss10 += d * d; } else { const d = ldf(v, i) - m01; ss01 += d * d; }
  }
  const var10 = nPos > 1 ? ss10 / <f64>(nPos - 1) : 0.0;
  const var01 = nNeg > 1 ? ss01 / <f64>(nNeg - 1) : 0.0;
  r.auc = m10;
  r.se = Math.sqrt(var10 / <f64>nPos + var01 / <f64>nNeg);
  if (cluster != 0 && nClusters < n) {
    const seC = clusteredSe(v, ys, n, cluster, nClusters, m10, nPos, nNeg);
    if (seC > r.se) r.se = seC;
  }
  release(v);
  release(idx);
  return r;
}

/**
 * Cluster-robust standard error of the AUC (Obuchowski 1997): DeLong's placement values summed per case,
 * positives' (S10) and negatives' (S01), their spread over the K cases and their covariance:
 * var = K / (K - 1) * [ sum (S10 - m_k A)^2 / m^2 + sum (S01 - n_k A)^2 / n^2 + 2 sum (S10 - m_k A)(S01 - n_k A) / (m n) ].
 * With one row per case it is a little below DeLong's (K / (K - 1) against m / (m - 1)); with a case's
 * rows alike, it grows as the number of cases, not rows, says it should.
 */
function clusteredSe(v: usize, ys: usize, n: i32, cluster: usize, k: i32, auc: f64, nPos: i32, nNeg: i32): f64 {
  if (k < 2) return 0;
  const s10 = allocF64(k), s01 = allocF64(k), mk = allocF64(k), nk = allocF64(k);
  for (let i = 0; i < n; i++) {
    const c = ldi(cluster, i);
    if (ldf(ys, i) > 0.5) { stf(s10, c, ldf(s10, c) + ldf(v, i)); stf(mk, c, ldf(mk, c) + 1); }
    else { stf(s01, c, ldf(s01, c) + ldf(v, i)); stf(nk, c, ldf(nk, c) + 1); }
  }
  let a = 0.0, b = 0.0, ab = 0.0;
  for (let c = 0; c < k; c++) {
    const d10 = ldf(s10, c) - ldf(mk, c) * auc, d01 = ldf(s01, c) - ldf(nk, c) * auc;
    a += d10 * d10; b += d01 * d01; ab += d10 * d01;
  }
  const m = <f64>nPos, nn = <f64>nNeg;
  const vr = (<f64>k / <f64>(k - 1)) * (a / (m * m) + b / (nn * nn) + 2 * ab / (m * nn));
  release(s10); release(s01); release(mk); release(nk);
  return vr > 0 ? Math.sqrt(vr) : 0;
}

/**
 * Cluster-robust standard error of a mean of per-row values `d` (mean `mean`) over n rows in k cases:
 * sqrt(K / (K - 1) * sum over cases (sum of d - n_c mean)^2) / n.
 */
export function clusteredMeanSe(d: usize, n: i32, cluster: usize, k: i32, mean: f64): f64 {
  if (k < 2) return 0;
  const sum = allocF64(k), cnt = allocF64(k);
  for (let i = 0; i < n; i++) { const c = ldi(cluster, i); stf(sum, c, ldf(sum, c) + ldf(d, i)); stf(cnt, c, ldf(cnt, c) + 1); }
  let ss = 0.0;
  for (let c = 0; c < k; c++) { const e = ldf(sum, c) - ldf(cnt, c) * mean; ss += e * e; }
  release(sum); release(cnt);
  return Math.sqrt((<f64>k / <f64>(k - 1)) * ss) / <f64>n;
}

/**
 * z of "the AUC beats 0.5" (docs/design/engine.md#step-9): (auc - 0.5) over the larger of DeLong's standard
 * error and the AUC's exact spread when scores and labels are independent (the Mann-Whitney null,
 * Hanley-McNeil at 0.5, no tie correction). DeLong's estimate comes from the sample and on a small
 * held-out part can come out small just when chance has lifted the AUC; the null spread cannot.
 */
export function aucZ(auc: f64, seDeLong: f64, ys: usize, n: i32): f64 {
  let nPos = 0;
  for (let i = 0; i < n; i++) if (ldf(ys, i) > 0.5) nPos++;
  const nNeg = n - nPos;
  if (nPos == 0 || nNeg == 0) return 0;
  const seNull = Math.sqrt(<f64>(n + 1) / (12.0 * <f64>nPos * <f64>nNeg));
  return (auc - 0.5) / (seDeLong > seNull ? seDeLong : seNull);
}

/** Positive rate among the top `frac` of rows by score (ties by row index) over the overall rate. */
export function topLift(scores: usize, ys: usize, n: i32, frac: f64): f64 {
  if (n == 0) return 0;
  let nPos = 0;
  for (let i = 0; i < n; i++) if (ldf(ys, i) > 0.5) nPos++;
  if (nPos == 0) return 0;
  const idx = allocI32(n);
  for (let i = 0; i < n; i++) sti(idx, i, i);
  gScores = scores;
  sortIndicesByF64(idx, n, scores, true, byScoreDesc);
  let k = <i32>Math.ceil(<f64>n * frac);
  if (k < 1) k = 1;
  let hits = 0;
  for (let t = 0; t < k; t++) if (ldf(ys, ldi(idx, t)) > 0.5) hits++;
  release(idx);
  return (<f64>hits / <f64>k) / (<f64>nPos / <f64>n);
}
function byScoreDesc(a: i32, b: i32): i32 {
  const x = ldf(gScores, a), y = ldf(gScores, b);
  return x > y ? -1 : (x < y ? 1 : 0);
}

export class LogisticFit {
  a: f64 = 0;
  b: f64 = 1;
  ok: bool = false;
}

/**
 * Fits y ~ sigmoid(a + b x) by Newton's method over rows with weight w > 0, to Platt's targets (N+ + 1) / (N+ + 2)
 * and 1 / (N- + 2) instead of 1 and 0, so a separable x cannot drive the slope to infinity (the recalibration of
 * a single split's chances, bags.ts calibrate).
 */
export function fitPlatt(x: usize, ys: usize, w: usize, n: i32): LogisticFit {
  const r = new LogisticFit();
  let a = 0.0, b = 1.0;
  let nPos = 0.0, nNeg = 0.0;
  for (let i = 0; i < n; i++) {
    if (ldf(w, i) <= 0) continue;
    if (ldf(ys, i) > 0.5) nPos += 1; else nNeg += 1;
  }
  const tPos = (nPos + 1) / (nPos + 2), tNeg = 1 / (nNeg + 2);
  for (let it = 0; it < 50; it++) {
    let ga = 0.0, gb = 0.0, haa = 0.0, hab = 0.0, hbb = 0.0;
    for (let i = 0; i < n; i++) {
      if (ldf(w, i) <= 0) continue;
      const xi = ldf(x, i);
      const p = sigmoid(a + b * xi);
      const g = p - (ldf(ys, i) > 0.5 ? tPos : tNeg);
      const h = p * (1 - p) + 1e-12;
      ga += g; gb += g * xi;
      haa += h; hab += h * xi; hbb += h * xi * xi;
    }
    const det = haa * hbb - hab * hab;
    if (!(det > 1e-300)) return r;
    const da = (hbb * ga - hab * gb) / det;
    const db = (haa * gb - hab * ga) / det;
    a -= da; b -= db;
    if (Math.abs(da) < 1e-10 && Math.abs(db) < 1e-10) break;
  }
  if (!isFinite(a) || !isFinite(b)) return r;
  r.a = a; r.b = b; r.ok = true;
  return r;
}
