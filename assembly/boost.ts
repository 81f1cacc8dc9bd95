// Boosting of additive main terms for one bag (engine.md step 6), in two schedules:
// - cyclic (boostMains, records with a single held-out split): round after round, every column gets
//   the single best cut of its per-bin gradient histogram and a shrunken Newton step on each side;
// - stagewise (boostStagewise, small cross-fitted records): a linear start (linear.ts) or a few smoothing
//   rounds, then each round steps only the one column whose best cut gains most.
// Either way the bag's own validation rows stop it early and the best round is kept.
import { ldf, ldi, stf, sti, ldb, zalloc, allocF64, allocI32, allocU8, release } from './mem';
import { rowLogLoss } from './stats';
import { mix64 } from './hash';
import { linearStart, linearIntercept } from './linear';

export const BIN_STRIDE: i32 = 256; // term tables are u x 256 f64, indexed [column * 256 + bin]
export const MIN_CHILD_ROWS: f64 = 10;
const HESS_FLOOR: f64 = 1e-9;
// Categorical bins are ordered by G/(H + CAT_SMOOTH) before a cut: a value seen a few times with a chance-high
// ratio does not set the order (flights' ~200 airports: AUC 0.617 -> 0.619).
export let CAT_SMOOTH: f64 = 10;

/** One bag's rows, gathered into contiguous column-major bins (hot loops read them linearly). */
export class Bag {
  u: i32 = 0; // usable columns
  nT: i32 = 0;
  nV: i32 = 0;
  binsT: usize = 0; // u8 [c * nT + i]
  yT: usize = 0; // f64 [nT]
  binsV: usize = 0; // u8 [c * nV + i]
  yV: usize = 0; // f64 [nV]
  kinds: usize = 0; // i32 [u]: 0 numeric (bins ordered, 0 = missing), 1 categorical
  nBins: usize = 0; // i32 [u]
  intercept: f64 = 0;
  rounds: i32 = 0;
  validLoss: f64 = 0; // mean validation log loss at the kept round
  vIdx: usize = 0; // i32 [nV]: position of each validation row in the bag's pool
  tIdx: usize = 0; // i32 [nT]: position of each training row in the bag's pool
  seed: u64 = 0; // the bag's draw seed, also keying its smoothing cuts
  smoothRounds: i32 = 0; // stagewise: first rounds that take a random valid cut of each numeric column

  free(): void {
    release(this.binsT); release(this.binsV); release(this.yT); release(this.yV); release(this.vIdx); release(this.tIdx);
    this.binsT = 0; this.binsV = 0; this.yT = 0; this.yV = 0; this.vIdx = 0; this.tIdx = 0;
  }
}

// The histogram the split finder reads (one column at a time): HIST holds each bin's gradient and hessian sums
// side by side (f64 [bin][g, h]), CNT its rows (f64 [bin]). They point at a column's sums where they were made
// (loadHist) or at GH1 (foldHist), so nothing is copied for the finder.
let HIST: usize = 0, CNT: usize = 0;
const GH1 = allocF64(BIN_STRIDE * 2);
@inline function gOf(b: i32): f64 { return load<f64>(HIST + (<usize>b << 4)); }
@inline function hOf(b: i32): f64 { return load<f64>(HIST + (<usize>b << 4) + 8); }
@inline function nOf(b: i32): f64 { return load<f64>(CNT + (<usize>b << 3)); }
// Four interleaved copies (row i goes to copy i & 3), summed in a fixed order afterwards: rows that
// hit the same bin no longer wait on each other's store (low-cardinality columns hit few bins). Each bin
// holds its gradient and hessian sums side by side (f64 [copy][bin][g, h]), so one f64x2 add updates both.
const GH4 = allocF64(BIN_STRIDE * 4 * 2);
const SIDE = allocU8(BIN_STRIDE);
const DELTA = allocF64(BIN_STRIDE);
const MULT = allocF64(BIN_STRIDE);
const ORDER = allocI32(BIN_STRIDE);
const ORDER_TMP = allocI32(BIN_STRIDE); // orderByRatio's merge buffer
const RATIO = allocF64(BIN_STRIDE);

// Totals of the histogram (summed in bin order: histTotals, loadHist).
let histG: f64 = 0, histH: f64 = 0, histN: f64 = 0;

/** Sums the histogram's bins in bin order into histG/H/N (findSplit reads them with HIST and CNT). */
@inline function histTotals(nb: i32): void {
  let gt = 0.0, ht = 0.0, nt = 0.0;
  for (let b = 0; b < nb; b++) { gt += gOf(b); ht += hOf(b); nt += nOf(b); }
  histG = gt; histH = ht; histN = nt;
}

// Result of the split finder: the best cut's side sums, and its score2.
let splitGL: f64 = 0, splitHL: f64 = 0, splitGR: f64 = 0, splitHR: f64 = 0;
let splitScore: f64 = 0;

@inline function score2(gl: f64, hl: f64, gr: f64, hr: f64): f64 {
  return gl * gl / hl + gr * gr / hr;
}

/**
 * Best single cut of a column's histogram; marks SIDE[bin] = 0/1 and leaves the side sums in
 * split*. Numeric: a cut between ordered value bins with missing on either side, or missing
 * alone. Categorical: bins ordered by G/H (ties by bin), then a cut. Returns false when no cut
 * leaves MIN_CHILD_ROWS on both sides. With `mark` false only splitScore is set (the stagewise rounds compare
 * every column's best score and mark only the winner's cut): no SIDE, no split* sums.
 */
export function findSplit(kind: i32, nBins: i32, mark: bool = true): bool {
  const gt = histG, ht = histH, nt = histN;
  let best = -1.0;
  let found = false;
  if (kind == 0) {
    const gm = gOf(0), hm = hOf(0), nm = nOf(0);
    // missing alone
    if (nm >= MIN_CHILD_ROWS && nt - nm >= MIN_CHILD_ROWS && hm > HESS_FLOOR && ht - hm > HESS_FLOOR) {
      best = score2(gm, hm, gt - gm, ht - hm);
      found = true;
      if (mark) {
        for (let b = 0; b < nBins; b++) store<u8>(SIDE + <usize>b, b == 0 ? 0 : 1);
        splitGL = gm; splitHL = hm; splitGR = gt - gm; splitHR = ht - hm;
      }
    }
    let gl = 0.0, hl = 0.0, nl = 0.0;
    let bestCut = -1, bestMissLeft = false;
    if (nm == 0) {
      // no missing rows: the "missing on the left" cut of the loop below, with gm = hm = nm = 0 (the same
      // scores: gl + 0.0 differs from gl only in the sign of a zero, which score2 squares), and no other
      for (let t = 1; t < nBins - 1; t++) {
        const n1 = nOf(t);
        gl += gOf(t); hl += hOf(t); nl += n1;
        if (nt - nl < MIN_CHILD_ROWS) break; // nl only grows: no later cut leaves enough on the right
        if (n1 == 0 || nl < MIN_CHILD_ROWS || !(hl > HESS_FLOOR && ht - hl > HESS_FLOOR)) continue;
        const s = score2(gl, hl, gt - gl, ht - hl);
        if (s > best) { best = s; bestCut = t; found = true; }
      }
      bestMissLeft = true;
    } else for (let t = 1; t < nBins - 1; t++) {
      gl += gOf(t); hl += hOf(t); nl += nOf(t);
      if (nOf(t) == 0) continue; // same split as the previous non-empty cut
      // missing on the left
      let nL = nl + nm, hL = hl + hm, gL = gl + gm;
      if (nL >= MIN_CHILD_ROWS && nt - nL >= MIN_CHILD_ROWS && hL > HESS_FLOOR && ht - hL > HESS_FLOOR) {
        const s = score2(gL, hL, gt - gL, ht - hL);
        if (s > best) { best = s; bestCut = t; bestMissLeft = true; found = true; }
      }
      if (nm > 0) {
        nL = nl; hL = hl; gL = gl;
        if (nL >= MIN_CHILD_ROWS && nt - nL >= MIN_CHILD_ROWS && hL > HESS_FLOOR && ht - hL > HESS_FLOOR) {
          const s = score2(gL, hL, gt - gL, ht - hL);
          if (s > best) { best = s; bestCut = t; bestMissLeft = false; found = true; }
        }
      }
    }
    splitScore = best;
    if (bestCut >= 0 && mark) {
      let g2 = 0.0, h2 = 0.0;
      store<u8>(SIDE, bestMissLeft ? 0 : 1);
      if (bestMissLeft) { g2 += gm; h2 += hm; }
      for (let b = 1; b < nBins; b++) {
        const left = b <= bestCut;
        store<u8>(SIDE + <usize>b, left ? 0 : 1);
        if (left) { g2 += gOf(b); h2 += hOf(b); }
      }
      splitGL = g2; splitHL = h2; splitGR = gt - g2; splitHR = ht - h2;
    }
    return found;
  }
  // categorical: order non-empty bins by G/H ratio
  let k = 0;
  for (let b = 0; b < nBins; b++) {
    store<u8>(SIDE + <usize>b, 2); // empty bins take no step
    if (nOf(b) > 0) {
      stf(RATIO, b, gOf(b) / (hOf(b) + CAT_SMOOTH));
      store<i32>(ORDER + (<usize>k << 2), b);
      k++;
    }
  }
  orderByRatio(k);
  let gl = 0.0, hl = 0.0, nl = 0.0;
  let bestAt = -1;
  for (let i = 0; i < k - 1; i++) {
    const b = ldi(ORDER, i);
    gl += gOf(b); hl += hOf(b); nl += nOf(b);
    if (nl >= MIN_CHILD_ROWS && nt - nl >= MIN_CHILD_ROWS && hl > HESS_FLOOR && ht - hl > HESS_FLOOR) {
      const s = score2(gl, hl, gt - gl, ht - hl);
      if (s > best) { best = s; bestAt = i; found = true; splitGL = gl; splitHL = hl; }
    }
  }
  splitScore = best;
  if (bestAt >= 0 && mark) {
    for (let i = 0; i < k; i++) store<u8>(SIDE + <usize>ldi(ORDER, i), i <= bestAt ? 0 : 1);
    splitGR = gt - splitGL; splitHR = ht - splitHL;
  }
  return found;
}

/** Whether bin a comes before bin b: by RATIO, ties by bin (a total order: bins are distinct). */
@inline function before(a: i32, b: i32): bool {
  const ra = ldf(RATIO, a), rb = ldf(RATIO, b);
  return ra < rb || (ra == rb && a < b);
}

/**
 * Sorts ORDER[0..k) by (RATIO, bin). Readable version: an insertion sort. A few bins are sorted so; past 32
 * (a full-resolution pair has up to 256 cells), a bottom-up merge sort through ORDER_TMP. Both give the one
 * order of that total order, so the cut is the same bits either way.
 */
function orderByRatio(k: i32): void {
  if (k <= 32) {
    for (let i = 1; i < k; i++) {
      const b = ldi(ORDER, i);
      let j = i - 1;
      while (j >= 0 && before(b, ldi(ORDER, j))) { sti(ORDER, j + 1, ldi(ORDER, j)); j--; }
      sti(ORDER, j + 1, b);
    }
    return;
  }
  let src = ORDER, dst = ORDER_TMP;
  for (let width = 1; width < k; width <<= 1) {
    for (let lo = 0; lo < k; lo += width << 1) {
      const mid = min(lo + width, k), hi = min(lo + (width << 1), k);
      let i = lo, j = mid, o = lo;
      while (i < mid && j < hi) {
        const a = ldi(src, i), b = ldi(src, j);
        if (before(b, a)) { sti(dst, o++, b); j++; } else { sti(dst, o++, a); i++; }
      }
      while (i < mid) sti(dst, o++, ldi(src, i++));
      while (j < hi) sti(dst, o++, ldi(src, j++));
    }
    const t = src; src = dst; dst = t;
  }
  if (src != ORDER) memory.copy(ORDER, src, <usize>k << 2);
}

/**
 * The best cut of a full-resolution pair's cells (pairs.ts) as one categorical column: cells ordered by
 * G/(H + CAT_SMOOTH), cut in two with MIN_CHILD_ROWS a side. `gh` holds each cell's (g, h) side by side,
 * `counts` its rows. Writes each cell's side (0 left, 1 right, 2 empty) to `side` and the two Newton steps to
 * `steps` (f64 [2]); returns the cut's gain, or -1 when no cut is valid.
 */
export function cellCut(gh: usize, counts: usize, cells: i32, side: usize, steps: usize): f64 {
  loadHist(gh, cells, counts);
  if (!findSplit(1, cells)) return -1;
  memory.copy(side, SIDE, <usize>cells);
  stf(steps, 0, -splitGL / splitHL);
  stf(steps, 1, -splitGR / splitHR);
  return score2(splitGL, splitHL, splitGR, splitHR) - histG * histG / histH;
}

/**
 * The best cut of one column's histogram over some rows (a residual tree's node, residual-trees.ts), by the same
 * finder as the main terms: `gh` holds each bin's (g, h) side by side, `counts` its rows. Returns the cut's gain
 * over no cut (-1 when no cut leaves MIN_CHILD_ROWS a side); with `side` non-zero, writes each bin's side there
 * (0 left, 1 right, 2 no rows: a categorical bin absent from these rows).
 */
export function columnCut(kind: i32, gh: usize, counts: usize, nBins: i32, side: usize): f64 {
  loadHist(gh, nBins, counts);
  if (!findSplit(kind, nBins, side != 0)) return -1;
  if (side != 0) memory.copy(side, SIDE, <usize>nBins);
  return splitScore - histG * histG / histH;
}

/** A seeded random valid cut of a numeric column (missing rows join the left side): smoothing rounds. */
function randomSplit(nBins: i32, r: u64): bool {
  let nt = 0.0, ht = 0.0;
  for (let b = 0; b < nBins; b++) { nt += nOf(b); ht += hOf(b); }
  let count = 0;
  let nl = nOf(0), hl = hOf(0);
  for (let t = 1; t < nBins - 1; t++) {
    nl += nOf(t); hl += hOf(t);
    if (nOf(t) == 0) continue;
    if (nl >= MIN_CHILD_ROWS && nt - nl >= MIN_CHILD_ROWS && hl > HESS_FLOOR && ht - hl > HESS_FLOOR) count++;
  }
  if (count == 0) return false;
  let pick = <i32>(r % <u64>count);
  nl = nOf(0); hl = hOf(0);
  let gl = gOf(0);
  let cut = -1;
  for (let t = 1; t < nBins - 1; t++) {
    nl += nOf(t); hl += hOf(t); gl += gOf(t);
    if (nOf(t) == 0) continue;
    if (nl >= MIN_CHILD_ROWS && nt - nl >= MIN_CHILD_ROWS && hl > HESS_FLOOR && ht - hl > HESS_FLOOR) {
      if (pick == 0) { cut = t; break; }
      pick--;
    }
  }
  let gt = 0.0;
  for (let b = 0; b < nBins; b++) gt += gOf(b);
  store<u8>(SIDE, 0);
  for (let b = 1; b < nBins; b++) store<u8>(SIDE + <usize>b, b <= cut ? 0 : 1);
  splitGL = gl; splitHL = hl; splitGR = gt - gl; splitHR = ht - hl;
  return true;
}

/** Clears the 4-way histograms of a column and points CNT at its (round-invariant) bin counts. */
@inline function clearHist(nb: i32, counts: usize): void {
  for (let k = 0; k < 4; k++) memory.fill(GH4 + (<usize>(k * BIN_STRIDE) << 4), 0, <usize>nb << 4);
  CNT = counts;
}

/** Sums the four copies into GH1, copy 0 first (a fixed order: deterministic), for the split finder. */
function foldHist(nb: i32): void {
  for (let b = 0; b < nb; b++) {
    let g = 0.0, h = 0.0;
    for (let k = 0; k < 4; k++) {
      const o = GH4 + (<usize>(k * BIN_STRIDE + b) << 4);
      g += load<f64>(o);
      h += load<f64>(o + 8);
    }
    const o = GH1 + (<usize>b << 4);
    store<f64>(o, g);
    store<f64>(o + 8, h);
  }
  HIST = GH1;
  histTotals(nb);
}

/** Adds one row (odds e = exp(logit), outcome y) to bin b of copy k of the histogram at `hist`. */
@inline function addToHist(hist: usize, k: usize, b: usize, e: f64, y: f64): void {
  const p = e / (1.0 + e);
  const o = hist + (((k << 8) + b) << 4);
  store<f64>(o, load<f64>(o) + (p - y));
  store<f64>(o + 8, load<f64>(o + 8) + p * (1.0 - p));
}

const ONE2 = f64x2(1.0, 1.0);

/**
 * One pass over a bag's training rows: when `stepped` (the bins of the term just stepped; 0: none) each
 * row's odds take that term's factor mult[bin], then every row is added to copy i & copyMask of its bin in
 * `next` of the histogram at `hist` (f64 [copy][256 bins][g, h]). The main terms keep four interleaved copies
 * (copyMask 3: rows that hit the same bin no longer wait on each other's store), pair terms one (copyMask 0).
 * Two rows at a time in wasm SIMD (f64x2): the lanes do the same IEEE operations in the same order as the
 * one-row form (addToHist), and the rows still reach each copy in row order, so the sums are the same bits;
 * the two divisions of a pair cost about one.
 */
export function histPass(stepped: usize, next: usize, eT: usize, yT: usize, nT: i32, mult: usize, hist: usize, copyMask: usize): void {
  let i = 0;
  for (; i + 1 < nT; i += 2) {
    const ep = eT + (<usize>i << 3);
    let e = v128.load(ep);
    if (stepped != 0) {
      const m0 = load<f64>(mult + (<usize>load<u8>(stepped + <usize>i) << 3));
      const m1 = load<f64>(mult + (<usize>load<u8>(stepped + <usize>i + 1) << 3));
      e = f64x2.mul(e, f64x2.replace_lane(f64x2.splat(m0), 1, m1));
      v128.store(ep, e);
    }
    const p = f64x2.div(e, f64x2.add(ONE2, e));
    const g = f64x2.sub(p, v128.load(yT + (<usize>i << 3)));
    const h = f64x2.mul(p, f64x2.sub(ONE2, p));
    const o0 = hist + ((((<usize>i & copyMask) << 8) + <usize>load<u8>(next + <usize>i)) << 4);
    v128.store(o0, f64x2.add(v128.load(o0), v128.shuffle<f64>(g, h, 0, 2)));
    const o1 = hist + (((((<usize>i + 1) & copyMask) << 8) + <usize>load<u8>(next + <usize>i + 1)) << 4);
    v128.store(o1, f64x2.add(v128.load(o1), v128.shuffle<f64>(g, h, 1, 3)));
  }
  for (; i < nT; i++) {
    const ep = eT + (<usize>i << 3);
    let e = load<f64>(ep);
    if (stepped != 0) {
      e *= load<f64>(mult + (<usize>load<u8>(stepped + <usize>i) << 3));
      store<f64>(ep, e);
    }
    addToHist(hist, <usize>i & copyMask, <usize>load<u8>(next + <usize>i), e, load<f64>(yT + (<usize>i << 3)));
  }
}

/** Mean log loss of the bag's validation rows from their current logits. */
function validLoss(sV: usize, yV: usize, nV: i32): f64 {
  let s = 0.0;
  for (let i = 0; i < nV; i++) s += rowLogLoss(ldf(sV, i), ldf(yV, i));
  return nV > 0 ? s / <f64>nV : 0;
}

/**
 * Boosts the bag's main terms; writes the best round's tables to `terms` (u x 256, zeroed by the
 * caller) and the bag's intercept, rounds and validation loss into `bag`.
 */
export function boostMains(bag: Bag, terms: usize, lr: f64, patience: i32, maxRounds: i32): void {
  const u = bag.u, nT = bag.nT, nV = bag.nV;
  const start = startRows(bag);
  const eT = start.eT, sV = start.sV;
  const work = allocF64(u * BIN_STRIDE);
  const binCounts = trainingBinCounts(bag);
  let bestLoss = validLoss(sV, bag.yV, nV);
  let bestRound = 0;
  let round = 0;
  const yT = bag.yT;
  while (round < maxRounds) {
    round++;
    // Each pass over the rows applies column c's step and builds column c+1's histogram at once
    // (readable version: one histogram pass and one update pass per column; same numbers).
    clearHist(ldi(bag.nBins, 0), binCounts);
    histPass(0, bag.binsT, eT, yT, nT, MULT, GH4, 3);
    foldHist(ldi(bag.nBins, 0));
    for (let c = 0; c < u; c++) {
      const nb = ldi(bag.nBins, c);
      const col = bag.binsT + <usize>c * <usize>nT;
      let moved = false;
      if (findSplit(ldi(bag.kinds, c), nb)) {
        moved = true;
        const dL = -lr * splitGL / splitHL;
        const dR = -lr * splitGR / splitHR;
        const mL = Math.exp(dL), mR = Math.exp(dR);
        for (let b = 0; b < nb; b++) {
          const side = ldb(SIDE, b);
          const d = side == 0 ? dL : (side == 1 ? dR : 0.0);
          stf(DELTA, b, d);
          stf(MULT, b, side == 0 ? mL : (side == 1 ? mR : 1.0));
          const tp = work + ((<usize>(c * BIN_STRIDE + b)) << 3);
          store<f64>(tp, load<f64>(tp) + d);
        }
        const colV = bag.binsV + <usize>c * <usize>nV;
        for (let i = 0; i < nV; i++) {
          const b = <usize>load<u8>(colV + <usize>i) << 3;
          const sp = sV + (<usize>i << 3);
          store<f64>(sp, load<f64>(sp) + load<f64>(DELTA + b));
        }
      }
      if (c + 1 < u) {
        const nbNext = ldi(bag.nBins, c + 1);
        clearHist(nbNext, binCounts + (<usize>((c + 1) * BIN_STRIDE) << 3));
        const next = col + <usize>nT;
        histPass(moved ? col : 0, next, eT, yT, nT, MULT, GH4, 3);
        foldHist(nbNext);
      } else if (moved) {
        for (let i = 0; i < nT; i++) {
          const ep = eT + (<usize>i << 3);
          store<f64>(ep, load<f64>(ep) * load<f64>(MULT + (<usize>load<u8>(col + <usize>i) << 3)));
        }
      }
    }
    const loss = validLoss(sV, bag.yV, nV);
    if (loss < bestLoss) {
      bestLoss = loss;
      bestRound = round;
      memory.copy(terms, work, <usize>(u * BIN_STRIDE) << 3);
    } else if (round - bestRound >= patience) break;
  }
  bag.rounds = bestRound;
  bag.validLoss = bestLoss;
  release(work); release(binCounts); release(eT); release(sV);
}

/** Training rows' odds and validation rows' logits of a bag being boosted. */
class RowState {
  eT: usize = 0; // f64 [nT]
  sV: usize = 0; // f64 [nV]
}

/**
 * Starts a bag at its training rows' smoothed log odds (set as its intercept). Training rows carry
 * only their odds e = exp(logit): a step multiplies e by exp(delta) of the row's side, so no exp per
 * row. (Products of exact per-step factors drift by ~1 ulp per step, deterministically; validation
 * rows keep exact logits.)
 */
function startRows(bag: Bag): RowState {
  let pos = 0.0;
  for (let i = 0; i < bag.nT; i++) pos += ldf(bag.yT, i);
  const base = (pos + 0.5) / (<f64>bag.nT + 1.0);
  const b0 = Math.log(base / (1 - base));
  bag.intercept = b0;
  const st = new RowState();
  st.eT = allocF64(bag.nT); st.sV = allocF64(bag.nV);
  const e0 = Math.exp(b0);
  for (let i = 0; i < bag.nT; i++) stf(st.eT, i, e0);
  for (let i = 0; i < bag.nV; i++) stf(st.sV, i, b0);
  return st;
}

/** Rows per bin of each column of the bag's training rows ([c * 256 + bin]); they never change within a bag. */
function trainingBinCounts(bag: Bag): usize {
  const counts = allocF64(bag.u * BIN_STRIDE);
  for (let c = 0; c < bag.u; c++) {
    const col = bag.binsT + <usize>c * <usize>bag.nT;
    const cnt = counts + (<usize>(c * BIN_STRIDE) << 3);
    for (let i = 0; i < bag.nT; i++) {
      const o = cnt + (<usize>load<u8>(col + <usize>i) << 3);
      store<f64>(o, load<f64>(o) + 1.0);
    }
  }
  return counts;
}

// Per-row gradient and hessian of the stagewise schedule, side by side (f64 [row][g, h]; recomputed once per round).
let ghRow: usize = 0;

/** Fills ghRow from the training rows' odds. */
function gradients(eT: usize, yT: usize, nT: i32): void {
  for (let i = 0; i < nT; i++) {
    const e = load<f64>(eT + (<usize>i << 3));
    const p = e / (1.0 + e);
    const o = ghRow + (<usize>i << 4);
    store<f64>(o, p - load<f64>(yT + (<usize>i << 3)));
    store<f64>(o + 8, p * (1.0 - p));
  }
}

/**
 * Column c's histogram from ghRow, loaded for the split finder: each row's (g, h) is added to its bin's pair of
 * sums by one f64x2 add, in row order, so each sum is the same bits as adding g and h one row at a time.
 */
function columnHist(bag: Bag, c: i32, binCounts: usize): void {
  const nb = ldi(bag.nBins, c), nT = bag.nT;
  memory.fill(GH4, 0, <usize>nb << 4);
  const col = bag.binsT + <usize>c * <usize>nT;
  for (let i = 0; i < nT; i++) {
    const o = GH4 + (<usize>load<u8>(col + <usize>i) << 4);
    v128.store(o, f64x2.add(v128.load(o), v128.load(ghRow + (<usize>i << 4))));
  }
  loadHist(GH4, nb, binCounts + (<usize>(c * BIN_STRIDE) << 3));
}

/**
 * Every column's histogram at once into ghAll (column c's bins of side-by-side (g, h) at c * GH_COLUMN bytes):
 * rows outside, columns inside, so a row's (g, h) is read once and the adds of one row go to different columns'
 * sums, never waiting on each other. Each bin still takes its rows in row order: the same bits as columnHist, column by column.
 */
function allColumnHists(bag: Bag): void {
  const u = bag.u, nT = bag.nT;
  for (let c = 0; c < u; c++) memory.fill(ghAll + <usize>c * GH_COLUMN, 0, <usize>ldi(bag.nBins, c) << 4);
  for (let i = 0; i < nT; i++) {
    const gh = v128.load(ghRow + (<usize>i << 4));
    let col = bag.binsT + <usize>i;
    let hist = ghAll;
    for (let c = 0; c < u; c++) {
      const o = hist + (<usize>load<u8>(col) << 4);
      v128.store(o, f64x2.add(v128.load(o), gh));
      col += <usize>nT;
      hist += GH_COLUMN;
    }
  }
}

/** Points the split finder at a histogram of side-by-side (g, h) sums and its bin counts, and sums its totals. */
function loadHist(gh: usize, nb: i32, counts: usize): void {
  HIST = gh; CNT = counts;
  histTotals(nb);
}

// Every column's histogram of a stagewise bag's greedy round (allColumnHists), and each column's totals:
// (g, h) summed by allColumnTotals (f64 [column][g, h]) and rows (nTot, f64 [column]: summed once a bag, as
// they never change within it).
let ghAll: usize = 0, ghTot: usize = 0, nTot: usize = 0;
// Bytes between two columns' histograms in ghAll: 256 bins of (g, h) and one cache line more. At exactly 4 KB
// apart, the same bin of every column maps to the same L1 cache set, and a row's adds to a record's columns of
// few bins (0/1 indicators: bins 0-2) evicted each other: DNA's 600-row cut (180 such columns) took 3.4 s of
// CPU, 0.6 ms a stagewise round.
const GH_COLUMN: usize = (<usize>BIN_STRIDE << 4) + 64;

/**
 * Each column's (g, h) totals of ghAll, in bin order as histTotals sums them, four columns side by side: their
 * four chains of adds do not wait on each other (histTotals, one column after another, waits on each add).
 * Bins at or past a column's own count hold zeros, which add nothing.
 */
function allColumnTotals(u: i32, nBins: usize): void {
  const stride = GH_COLUMN;
  let c = 0;
  for (; c + 3 < u; c += 4) {
    const nb = max(max(ldi(nBins, c), ldi(nBins, c + 1)), max(ldi(nBins, c + 2), ldi(nBins, c + 3)));
    const h0 = ghAll + <usize>c * stride;
    let a0 = f64x2.splat(0), a1 = f64x2.splat(0), a2 = f64x2.splat(0), a3 = f64x2.splat(0);
    for (let b = 0; b < nb; b++) {
      const o = h0 + (<usize>b << 4);
      a0 = f64x2.add(a0, v128.load(o));
      a1 = f64x2.add(a1, v128.load(o + stride));
      a2 = f64x2.add(a2, v128.load(o + 2 * stride));
      a3 = f64x2.add(a3, v128.load(o + 3 * stride));
    }
    const t = ghTot + (<usize>c << 4);
    v128.store(t, a0); v128.store(t + 16, a1); v128.store(t + 32, a2); v128.store(t + 48, a3);
  }
  for (; c < u; c++) {
    const nb = ldi(nBins, c), h0 = ghAll + <usize>c * stride;
    let a = f64x2.splat(0);
    for (let b = 0; b < nb; b++) a = f64x2.add(a, v128.load(h0 + (<usize>b << 4)));
    v128.store(ghTot + (<usize>c << 4), a);
  }
}

/** Points the split finder at column c's histogram of the greedy round, with the totals summed beforehand. */
@inline function useColumnHist(c: i32, binCounts: usize): void {
  HIST = ghAll + <usize>c * GH_COLUMN;
  CNT = binCounts + (<usize>(c * BIN_STRIDE) << 3);
  histG = load<f64>(ghTot + (<usize>c << 4));
  histH = load<f64>(ghTot + (<usize>c << 4) + 8);
  histN = ldf(nTot, c);
}

/**
 * Applies the cut in `side` (0 left, 1 right, 2 no step) to column c: a shrunken Newton step on
 * each side, added to the column's table in `work`, the training rows' odds and the validation logits.
 */
function stepColumn(bag: Bag, c: i32, side: usize, dL: f64, dR: f64, work: usize, eT: usize, sV: usize): void {
  const nb = ldi(bag.nBins, c);
  const mL = Math.exp(dL), mR = Math.exp(dR);
  for (let b = 0; b < nb; b++) {
    const sd = ldb(side, b);
    stf(DELTA, b, sd == 0 ? dL : (sd == 1 ? dR : 0.0));
    stf(MULT, b, sd == 0 ? mL : (sd == 1 ? mR : 1.0));
    const tp = work + ((<usize>(c * BIN_STRIDE + b)) << 3);
    store<f64>(tp, load<f64>(tp) + ldf(DELTA, b));
  }
  const col = bag.binsT + <usize>c * <usize>bag.nT;
  for (let i = 0; i < bag.nT; i++) {
    const ep = eT + (<usize>i << 3);
    store<f64>(ep, load<f64>(ep) * load<f64>(MULT + (<usize>load<u8>(col + <usize>i) << 3)));
  }
  const colV = bag.binsV + <usize>c * <usize>bag.nV;
  for (let i = 0; i < bag.nV; i++) {
    const sp = sV + (<usize>i << 3);
    store<f64>(sp, load<f64>(sp) + load<f64>(DELTA + (<usize>load<u8>(colV + <usize>i) << 3)));
  }
}

/**
 * Stagewise boosting for small (cross-fitted) records. The bag starts from a ridge logistic regression on
 * its numeric columns' ranks when its validation rows prefer that to the base rate (linear.ts); otherwise
 * the first `bag.smoothRounds` rounds are cyclic smoothing rounds: every numeric column in turn takes a
 * seeded random valid cut (randomSplit), so terms start as gentle ramps. After them, each round finds
 * every column's best cut on the same gradients and steps only the column whose cut gains most (ties: the
 * lower column index). A column that carries nothing beyond the others is then rarely stepped at all,
 * where the cyclic schedule fits every column's noise every round; on a few hundred rows that noise
 * stopped cyclic bags early.
 * Validation, early stopping and the kept round work as in boostMains; a round is one column's step.
 */
export function boostStagewise(bag: Bag, terms: usize, lr: f64, patience: i32, maxRounds: i32): void {
  const u = bag.u, nT = bag.nT, nV = bag.nV;
  const start = startRows(bag);
  const eT = start.eT, sV = start.sV;
  const work = allocF64(u * BIN_STRIDE);
  const binCounts = trainingBinCounts(bag);
  // a linear start the bag's validation rows prefer replaces the smoothing rounds: its terms are ramps already
  if (linearStart(u, bag.kinds, bag.nBins, binCounts, bag.binsT, bag.yT, nT, bag.binsV, bag.yV, nV, bag.intercept, work, eT, sV)) {
    bag.intercept = linearIntercept;
    memory.copy(terms, work, <usize>(u * BIN_STRIDE) << 3);
    bag.smoothRounds = 0;
  }
  ghRow = allocF64(2 * nT);
  ghAll = zalloc(<i32>(<usize>u * GH_COLUMN));
  ghTot = allocF64(2 * u);
  nTot = allocF64(u);
  for (let c = 0; c < u; c++) {
    const nb = ldi(bag.nBins, c), cnt = binCounts + (<usize>(c * BIN_STRIDE) << 3);
    let nt = 0.0;
    for (let b = 0; b < nb; b++) nt += ldf(cnt, b);
    stf(nTot, c, nt);
  }
  let bestLoss = validLoss(sV, bag.yV, nV);
  let bestRound = 0, round = 0;
  while (round < maxRounds) {
    round++;
    if (round <= bag.smoothRounds) {
      for (let c = 0; c < u; c++) {
        if (ldi(bag.kinds, c) != 0) continue;
        gradients(eT, bag.yT, nT); // the previous column's step moved every row
        columnHist(bag, c, binCounts);
        if (!randomSplit(ldi(bag.nBins, c), mix64(bag.seed ^ (<u64>round * 1000003 + <u64>c)))) continue;
        stepColumn(bag, c, SIDE, -lr * splitGL / splitHL, -lr * splitGR / splitHR, work, eT, sV);
      }
    } else {
      gradients(eT, bag.yT, nT);
      allColumnHists(bag);
      allColumnTotals(u, bag.nBins);
      let bestGain = 0.0, bestC = -1;
      for (let c = 0; c < u; c++) {
        useColumnHist(c, binCounts);
        if (!findSplit(ldi(bag.kinds, c), ldi(bag.nBins, c), false)) continue;
        const gain = splitScore - histG * histG / histH;
        if (bestC < 0 || gain > bestGain) { bestGain = gain; bestC = c; }
      }
      if (bestC < 0) break; // no column can be cut: nothing left to learn
      // the winner's cut again, marked this time (the same histogram, so the same cut)
      useColumnHist(bestC, binCounts);
      findSplit(ldi(bag.kinds, bestC), ldi(bag.nBins, bestC));
      stepColumn(bag, bestC, SIDE, -lr * splitGL / splitHL, -lr * splitGR / splitHR, work, eT, sV);
    }
    const loss = validLoss(sV, bag.yV, nV);
    if (loss < bestLoss) {
      bestLoss = loss;
      bestRound = round;
      memory.copy(terms, work, <usize>(u * BIN_STRIDE) << 3);
    } else if (round - bestRound >= patience) break;
  }
  bag.rounds = bestRound;
  bag.validLoss = bestLoss;
  release(work); release(binCounts); release(eT); release(sV); release(ghRow); release(ghAll); release(ghTot); release(nTot);
  ghRow = 0; ghAll = 0; ghTot = 0; nTot = 0;
}

/** Logits of the bag's validation rows under given main terms (for out-of-bag calibration). */
export function scoreBinned(bins: usize, nRows: i32, u: i32, terms: usize, intercept: f64, out: usize): void {
  for (let i = 0; i < nRows; i++) stf(out, i, intercept);
  for (let c = 0; c < u; c++) {
    const col = bins + <usize>c * <usize>nRows;
    const tbl = terms + (<usize>(c * BIN_STRIDE) << 3);
    for (let i = 0; i < nRows; i++) {
      const op = out + (<usize>i << 3);
      store<f64>(op, load<f64>(op) + load<f64>(tbl + (<usize>load<u8>(col + <usize>i) << 3)));
    }
  }
}
