// Boosting of additive main terms for one bag (docs/design/engine.md#step-6), in two schedules:
// - cyclic (boostMains, records with a single held-out split): round after round, every column gets
//   the single best cut of its per-bin gradient histogram and a shrunken Newton step on each side;
// - stagewise (boostStagewise, small cross-fitted records): a linear start (linear.ts) or a few smoothing
//   rounds, then each round steps only the one column whose best cut gains most.
// Either way the bag's own validation rows stop it early and the best round is kept.
import { ldf, ldi, stf, sti, ldb, zalloc, allocF64, allocI32, allocU8, release } from './mem';
import { logLossSum } from './stats';
import { mix64 } from './hash';
import { linearStart, linearIntercept } from './linear';
import { Momentum } from './momentum';
import { BIN_STRIDE } from './binning';
import { Histogram, Split, findSplit, randomSplit } from './split';

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

// The histogram the split finder reads (one column at a time), pointing at a column's sums where they were made
// (columnHist, useColumnHist) or at GH1 (foldHist), so nothing is copied for the finder; and its answer.
const HIST = new Histogram();
const SPLIT = new Split();
const GH1 = allocF64(BIN_STRIDE * 2);
// Four interleaved copies (row i goes to copy i & 3), summed in a fixed order afterwards: rows that
// hit the same bin no longer wait on each other's store (low-cardinality columns hit few bins). Each bin
// holds its gradient and hessian sums side by side (f64 [copy][bin][g, h]), so one f64x2 add updates both.
const GH4 = allocF64(BIN_STRIDE * 4 * 2);
const DELTA = allocF64(BIN_STRIDE);
const MULT = allocF64(BIN_STRIDE);

/** Clears the 4-way histograms of a column. */
@inline function clearHist(nb: i32): void {
  for (let k = 0; k < 4; k++) memory.fill(GH4 + (<usize>(k * BIN_STRIDE) << 4), 0, <usize>nb << 4);
}

/**
 * Sums the four copies into GH1, copy 0 first (a fixed order: deterministic), for the split finder; `counts`
 * are the column's (round-invariant) rows per bin.
 */
function foldHist(nb: i32, counts: usize): Histogram {
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
  return HIST.at(GH1, nb, counts);
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

/**
 * histPass after a momentum move (momentum.ts): each row's odds first take the stepped term's factor (when
 * `stepped`), then the factor moveMult[bin] of the term whose histogram this pass builds (its bins `next`), the
 * move that term's table already made; then every row goes into `hist` as in histPass.
 */
export function histPassMoved(stepped: usize, next: usize, eT: usize, yT: usize, nT: i32, mult: usize, hist: usize, copyMask: usize,
  moveMult: usize): void {
  let i = 0;
  for (; i + 1 < nT; i += 2) {
    const ep = eT + (<usize>i << 3);
    let e = v128.load(ep);
    if (stepped != 0) {
      const m0 = load<f64>(mult + (<usize>load<u8>(stepped + <usize>i) << 3));
      const m1 = load<f64>(mult + (<usize>load<u8>(stepped + <usize>i + 1) << 3));
      e = f64x2.mul(e, f64x2.replace_lane(f64x2.splat(m0), 1, m1));
    }
    const b0 = <usize>load<u8>(next + <usize>i), b1 = <usize>load<u8>(next + <usize>i + 1);
    e = f64x2.mul(e, f64x2.replace_lane(f64x2.splat(load<f64>(moveMult + (b0 << 3))), 1, load<f64>(moveMult + (b1 << 3))));
    v128.store(ep, e);
    const p = f64x2.div(e, f64x2.add(ONE2, e));
    const g = f64x2.sub(p, v128.load(yT + (<usize>i << 3)));
    const h = f64x2.mul(p, f64x2.sub(ONE2, p));
    const o0 = hist + ((((<usize>i & copyMask) << 8) + b0) << 4);
    v128.store(o0, f64x2.add(v128.load(o0), v128.shuffle<f64>(g, h, 0, 2)));
    const o1 = hist + (((((<usize>i + 1) & copyMask) << 8) + b1) << 4);
    v128.store(o1, f64x2.add(v128.load(o1), v128.shuffle<f64>(g, h, 1, 3)));
  }
  for (; i < nT; i++) {
    const ep = eT + (<usize>i << 3);
    let e = load<f64>(ep);
    if (stepped != 0) e *= load<f64>(mult + (<usize>load<u8>(stepped + <usize>i) << 3));
    const b = <usize>load<u8>(next + <usize>i);
    e *= load<f64>(moveMult + (b << 3));
    store<f64>(ep, e);
    addToHist(hist, <usize>i & copyMask, b, e, load<f64>(yT + (<usize>i << 3)));
  }
}

/** Mean log loss of the bag's validation rows from their current logits. */
function validLoss(sV: usize, yV: usize, nV: i32): f64 {
  return nV > 0 ? logLossSum(sV, yV, 0, 1, nV) / <f64>nV : 0;
}

/**
 * Adds table[bin] (f64) to each of n logits `s`, the bins in `col`, two rows at a time: each lane is the same add
 * as one row's, so the logits are the same bits as `for i: s[i] += table[col[i]]`.
 */
export function addDeltas(s: usize, col: usize, n: i32, table: usize): void {
  let i = 0;
  for (; i + 1 < n; i += 2) {
    const sp = s + (<usize>i << 3);
    const d0 = load<f64>(table + (<usize>load<u8>(col + <usize>i) << 3));
    const d1 = load<f64>(table + (<usize>load<u8>(col + <usize>i + 1) << 3));
    v128.store(sp, f64x2.add(v128.load(sp), f64x2.replace_lane(f64x2.splat(d0), 1, d1)));
  }
  for (; i < n; i++) {
    const sp = s + (<usize>i << 3);
    store<f64>(sp, load<f64>(sp) + load<f64>(table + (<usize>load<u8>(col + <usize>i) << 3)));
  }
}

/**
 * Column c's single best cut of `hist` and its shrunken Newton step (docs/design/engine.md#step-6): its factor of
 * the odds a bin into MULT, its table `work` and the validation rows' logits `sV` stepped. False when no cut is
 * valid (nothing moves).
 */
function cutAndStep(bag: Bag, c: i32, hist: Histogram, lr: f64, work: usize, sV: usize): bool {
  const nb = ldi(bag.nBins, c), nV = bag.nV;
  if (!findSplit(hist, ldi(bag.kinds, c), nb, SPLIT)) return false;
  const dL = -lr * SPLIT.gl / SPLIT.hl;
  const dR = -lr * SPLIT.gr / SPLIT.hr;
  const mL = Math.exp(dL), mR = Math.exp(dR);
  for (let b = 0; b < nb; b++) {
    const side = ldb(SPLIT.side, b);
    const d = side == 0 ? dL : (side == 1 ? dR : 0.0);
    stf(DELTA, b, d);
    stf(MULT, b, side == 0 ? mL : (side == 1 ? mR : 1.0));
    const tp = work + ((<usize>(c * BIN_STRIDE + b)) << 3);
    store<f64>(tp, load<f64>(tp) + d);
  }
  addDeltas(sV, bag.binsV + <usize>c * <usize>nV, nV, DELTA);
  return true;
}

/**
 * One cyclic sweep over the columns, one column a pass over the rows: each pass applies the step of the column cut
 * before it and builds the next column's histogram at once (readable version: one histogram pass and one update
 * pass per column; same numbers). With a momentum move pending, each column's pass applies that column's move
 * first (histPassMoved). `pending`: the bins of the last column the sweep before stepped (0: none), whose step the
 * rows take in this sweep's first pass (MULT still holds its factors); the sweep returns its own likewise, so a
 * sweep needs no pass of its own at the end.
 */
function sweep(bag: Bag, lr: f64, work: usize, eT: usize, sV: usize, binCounts: usize, mom: Momentum, pending: usize): usize {
  const u = bag.u, nT = bag.nT, yT = bag.yT;
  let stepped = pending;
  for (let c = 0; c < u; c++) {
    const nb = ldi(bag.nBins, c);
    const col = bag.binsT + <usize>c * <usize>nT;
    clearHist(nb);
    if (mom.pending) histPassMoved(stepped, col, eT, yT, nT, MULT, GH4, 3, mom.mult + (<usize>(c * BIN_STRIDE) << 3));
    else histPass(stepped, col, eT, yT, nT, MULT, GH4, 3);
    const hist = foldHist(nb, binCounts + (<usize>(c * BIN_STRIDE) << 3));
    stepped = cutAndStep(bag, c, hist, lr, work, sV) ? col : 0;
  }
  return stepped;
}

/**
 * Boosts the bag's main terms; writes the best round's tables to `terms` (u x 256, zeroed by the
 * caller) and the bag's intercept, rounds and validation loss into `bag`.
 */
export function boostMains(bag: Bag, terms: usize, lr: f64, patience: i32, maxRounds: i32): void {
  const u = bag.u, nV = bag.nV;
  const start = startRows(bag);
  const eT = start.eT, sV = start.sV;
  const work = allocF64(u * BIN_STRIDE);
  const binCounts = trainingBinCounts(bag);
  let bestLoss = validLoss(sV, bag.yV, nV);
  let bestRound = 0;
  let round = 0;
  let pending: usize = 0; // the last column's step the training rows have yet to take (sweep)
  const mom = new Momentum(u * BIN_STRIDE);
  while (round < maxRounds) {
    round++;
    mom.startRound(work);
    pending = sweep(bag, lr, work, eT, sV, binCounts, mom, pending);
    mom.pending = false;
    const loss = validLoss(sV, bag.yV, nV);
    if (loss < bestLoss) {
      bestLoss = loss;
      bestRound = round;
      memory.copy(terms, work, <usize>(u * BIN_STRIDE) << 3);
    } else if (round - bestRound >= patience) break;
    // momentum: work moves on to the next sweep's starting point, the validation logits with it; the training
    // rows take each column's move in the pass that builds that column's histogram (histPass `moved`)
    if (mom.startsOrRuns(round, bestRound) && mom.extrapolate(work, binCounts)) {
      for (let c = 0; c < u; c++) addDeltas(sV, bag.binsV + <usize>c * <usize>nV, nV, mom.move + (<usize>(c * BIN_STRIDE) << 3));
    } else mom.keep(work);
  }
  bag.rounds = bestRound;
  bag.validLoss = bestLoss;
  mom.free();
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
function columnHist(bag: Bag, c: i32, binCounts: usize): Histogram {
  const nb = ldi(bag.nBins, c), nT = bag.nT;
  memory.fill(GH4, 0, <usize>nb << 4);
  const col = bag.binsT + <usize>c * <usize>nT;
  for (let i = 0; i < nT; i++) {
    const o = GH4 + (<usize>load<u8>(col + <usize>i) << 4);
    v128.store(o, f64x2.add(v128.load(o), v128.load(ghRow + (<usize>i << 4))));
  }
  return HIST.at(GH4, nb, binCounts + (<usize>(c * BIN_STRIDE) << 3));
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

/** Column c's histogram of the greedy round, with the totals summed beforehand. */
@inline function useColumnHist(c: i32, binCounts: usize): Histogram {
  return HIST.withTotals(ghAll + <usize>c * GH_COLUMN, binCounts + (<usize>(c * BIN_STRIDE) << 3),
    load<f64>(ghTot + (<usize>c << 4)), load<f64>(ghTot + (<usize>c << 4) + 8), ldf(nTot, c));
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
        const hist = columnHist(bag, c, binCounts);
        if (!randomSplit(hist, ldi(bag.nBins, c), mix64(bag.seed ^ (<u64>round * 1000003 + <u64>c)), SPLIT)) continue;
        stepColumn(bag, c, SPLIT.side, -lr * SPLIT.gl / SPLIT.hl, -lr * SPLIT.gr / SPLIT.hr, work, eT, sV);
      }
    } else {
      gradients(eT, bag.yT, nT);
      allColumnHists(bag);
      allColumnTotals(u, bag.nBins);
      let bestGain = 0.0, bestC = -1;
      for (let c = 0; c < u; c++) {
        const hist = useColumnHist(c, binCounts);
        if (!findSplit(hist, ldi(bag.kinds, c), ldi(bag.nBins, c), SPLIT, false)) continue;
        const gain = SPLIT.score - hist.g * hist.g / hist.h;
        if (bestC < 0 || gain > bestGain) { bestGain = gain; bestC = c; }
      }
      if (bestC < 0) break; // no column can be cut: nothing left to learn
      // the winner's cut again, marked this time (the same histogram, so the same cut)
      findSplit(useColumnHist(bestC, binCounts), ldi(bag.kinds, bestC), ldi(bag.nBins, bestC), SPLIT);
      stepColumn(bag, bestC, SPLIT.side, -lr * SPLIT.gl / SPLIT.hl, -lr * SPLIT.gr / SPLIT.hr, work, eT, sV);
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
