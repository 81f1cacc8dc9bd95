// Gated pair terms (docs/design/engine.md#step-7): pairs ranked by the gain of a 4-quadrant split of the main
// model's residuals (FAST), the top few boosted per bag on coarse bins, and kept only when rows the
// early stopping never saw agree across bags. A pair of few enough fine cells (fullStride) keeps them all
// instead, ranked and stepped by a categorical cut of its cells.
import { ldf, stf, ldi, sti, allocF64, allocI32, allocU8, release } from './mem';
import { Bag, scoreBinned, histPass, histPassMoved, addDeltas } from './boost';
import { cellCut } from './split';
import { BIN_STRIDE } from './binning';
import {
  MIN_PAIRS, MAX_PAIRS, PAIR_COARSE, FULL_PAIR_CELLS, FULL_CELL_ROWS, MAX_TREE_TERMS, TREE_MIN_ROWS, TREE_L2,
  MIN_QUADRANT_ROWS, MIN_BAGS_AGREE, HESS_FLOOR,
} from './tunables';
import { logLossSum, sigmoid } from './stats';
import { sortIndices } from './sort';
import { CellTree, growTree } from './cell-trees';
import { Momentum } from './momentum';

function pairBudget(u: i32): i32 {
  const k = u / 2;
  return k < MIN_PAIRS ? MIN_PAIRS : (k > MAX_PAIRS ? MAX_PAIRS : k);
}
const COARSE: i32 = PAIR_COARSE; // coarse bins per column for pair tables
/** The fine-cell stride of a pair of columns with na and nb fine bins over nRows rows: nb when kept whole, 0 when coarse. */
function fullStride(na: i32, nb: i32, nRows: i32): i32 {
  const cells = na * nb;
  return cells <= FULL_PAIR_CELLS && (na > COARSE || nb > COARSE) && nRows >= FULL_CELL_ROWS * cells ? nb : 0;
}

export class PairSet {
  count: i32 = 0;
  u: i32 = 0;
  nBins: usize = 0; // i32 [u], fine bins per usable column
  coarseOf: usize = 0; // i32 [u * 256]: fine bin -> coarse bin
  nCoarse: usize = 0; // i32 [u]
  // i32 [count * 4]: usable column indices (a < b), the fine-cell stride (0: coarse cells), and a tree term's third
  // column c (-1: a pair). A tree term's cells are (a's fine bin x stride + b's fine bin) x c's bins + c's fine bin.
  cols: usize = 0;
  offs: usize = 0; // i32 [count + 1]: each term's first slot in a bag's tables (layout)
  totalSlots: i32 = 0; // slots of one bag's tables
  tables: usize = 0; // f64 [nBags * totalSlots]
  final: usize = 0; // f64 [totalSlots]
  nBags: i32 = 0;

  /** Lays the terms' tables out one after another (a pair takes COARSE x COARSE slots, a tree term its cells). */
  layout(): void {
    release(this.offs);
    this.offs = allocI32(this.count + 1);
    let at = 0;
    for (let p = 0; p < this.count; p++) {
      sti(this.offs, p, at);
      at += this.isTree(p) ? this.cellCount(p) : COARSE * COARSE;
    }
    sti(this.offs, this.count, at);
    this.totalSlots = at;
  }
  /** Term p's first slot in one bag's tables, and its slots. */
  slotOf(p: i32): i32 { return ldi(this.offs, p); }
  slots(p: i32): i32 { return ldi(this.offs, p + 1) - ldi(this.offs, p); }
  tableOf(bag: i32, p: i32): usize {
    return this.tables + (<usize>(bag * this.totalSlots + ldi(this.offs, p)) << 3);
  }
  finalOf(p: i32): usize { return this.final + (<usize>ldi(this.offs, p) << 3); }
  colA(p: i32): i32 { return ldi(this.cols, p * 4); }
  colB(p: i32): i32 { return ldi(this.cols, p * 4 + 1); }
  /** Fine bins of column b per row of a full-resolution pair's table; 0 for a pair of coarse cells. */
  fineStride(p: i32): i32 { return ldi(this.cols, p * 4 + 2); }
  /** A tree term's third column; -1 for a pair. */
  colC(p: i32): i32 { return ldi(this.cols, p * 4 + 3); }
  isTree(p: i32): bool { return this.colC(p) >= 0; }
  /** Cells of term p's table: a full pair's fine cells (a's fine bins x stride), a coarse pair's COARSE x COARSE, a tree term's (a x b cells) x c's bins. */
  cellCount(p: i32): i32 {
    const st = this.fineStride(p);
    const ab = st > 0 ? ldi(this.nBins, this.colA(p)) * st : COARSE * COARSE;
    return this.isTree(p) ? ab * ldi(this.nBins, this.colC(p)) : ab;
  }
  coarse(c: i32, fine: i32): i32 { return ldi(this.coarseOf, c * BIN_STRIDE + fine); }
  /** Pair p's cell (< 256) of a row whose fine bins are fa and fb (a tree term: its a x b cell). */
  @inline cell(p: i32, fa: i32, fb: i32): i32 {
    const st = this.fineStride(p);
    return st > 0 ? fa * st + fb : this.coarse(this.colA(p), fa) * COARSE + this.coarse(this.colB(p), fb);
  }
  /** Term p's cell of row r of a column-major binned matrix (bins [c * n + r]). */
  @inline rowCell(p: i32, bins: usize, n: i32, r: i32): i32 {
    const ab = this.cell(p, <i32>load<u8>(bins + <usize>this.colA(p) * <usize>n + <usize>r), <i32>load<u8>(bins + <usize>this.colB(p) * <usize>n + <usize>r));
    const c = this.colC(p);
    return c < 0 ? ab : ab * ldi(this.nBins, c) + <i32>load<u8>(bins + <usize>c * <usize>n + <usize>r);
  }

  /**
   * Adds one bag's term logits (its tables at `tables`, totalSlots) to the logits of rows binned column-major
   * (bins [c * nRows + i]).
   */
  addTableLogits(tables: usize, bins: usize, nRows: i32, out: usize): void {
    for (let p = 0; p < this.count; p++) {
      const t = tables + (<usize>ldi(this.offs, p) << 3);
      for (let i = 0; i < nRows; i++) stf(out, i, ldf(out, i) + ldf(t, this.rowCell(p, bins, nRows, i)));
    }
  }

  /** Term logit of one row of the full binned matrix (bins [c * n + r]) under the final tables. */
  logitOfRow(bins: usize, n: i32, r: i32): f64 {
    let s = 0.0;
    for (let p = 0; p < this.count; p++) s += ldf(this.finalOf(p), this.rowCell(p, bins, n, r));
    return s;
  }

  /** Averages the bag tables and centres each with training counts; returns the means moved out. */
  averageAndCentre(nBags: i32, counts: usize, bins: usize, n: i32, rows: usize, nRows: i32): f64 {
    let moved = 0.0;
    let most = 0;
    for (let p = 0; p < this.count; p++) if (this.slots(p) > most) most = this.slots(p);
    const w = allocF64(most > 0 ? most : 1);
    const cnt = allocI32(most > 0 ? most : 1);
    for (let p = 0; p < this.count; p++) {
      const f = this.finalOf(p), slots = this.slots(p);
      for (let bg = 0; bg < nBags; bg++) {
        const t = this.tableOf(bg, p);
        for (let o = 0; o < slots; o++) stf(f, o, ldf(f, o) + ldf(t, o) / <f64>nBags);
      }
      // training rows per cell: readable version `for q: w[rowCell(p, bins, n, rows[q])] += 1`; counted in
      // integers with the term's columns read once (the loop's loads cannot be hoisted past its stores), the
      // same whole numbers
      memory.fill(cnt, 0, <usize>slots << 2);
      const a = this.colA(p), b = this.colB(p), c = this.colC(p), st = this.fineStride(p);
      const binsA = bins + <usize>a * <usize>n, binsB = bins + <usize>b * <usize>n;
      const binsC = c >= 0 ? bins + <usize>c * <usize>n : 0;
      const nbC = c >= 0 ? ldi(this.nBins, c) : 0;
      const coarseA = this.coarseOf + (<usize>(a * BIN_STRIDE) << 2), coarseB = this.coarseOf + (<usize>(b * BIN_STRIDE) << 2);
      for (let q = 0; q < nRows; q++) {
        const r = <usize>ldi(rows, q);
        const fa = <i32>load<u8>(binsA + r), fb = <i32>load<u8>(binsB + r);
        const ab = st > 0 ? fa * st + fb : ldi(coarseA, fa) * COARSE + ldi(coarseB, fb);
        const o = c < 0 ? ab : ab * nbC + <i32>load<u8>(binsC + r);
        sti(cnt, o, ldi(cnt, o) + 1);
      }
      for (let o = 0; o < slots; o++) stf(w, o, <f64>ldi(cnt, o));
      let mean = 0.0;
      for (let o = 0; o < slots; o++) mean += ldf(w, o) * ldf(f, o);
      mean /= <f64>nRows;
      moved += mean;
      // a pair's cell no training row fell in scores as the average case; a tree term's keeps its trees'
      // value (a leaf covers the codes of its region, seen together or not)
      const tree = this.isTree(p);
      for (let o = 0; o < slots; o++) stf(f, o, tree || ldf(w, o) > 0 ? ldf(f, o) - mean : 0.0);
    }
    release(w);
    release(cnt);
    return moved;
  }

  scale(k: f64): void {
    for (let o = 0; o < this.totalSlots; o++) stf(this.final, o, ldf(this.final, o) * k);
  }

  /** Multiplies every bag's tables by k (a cross-fitted fold model's calibration). */
  scaleTables(k: f64): void {
    for (let o = 0; o < this.nBags * this.totalSlots; o++) stf(this.tables, o, ldf(this.tables, o) * k);
  }

  /** Term logit of one row of the full binned matrix under bag `bag`'s tables. */
  bagLogitOfRow(bag: i32, bins: usize, n: i32, r: i32): f64 {
    let s = 0.0;
    for (let p = 0; p < this.count; p++) s += ldf(this.tableOf(bag, p), this.rowCell(p, bins, n, r));
    return s;
  }

  free(): void {
    release(this.nBins); release(this.coarseOf); release(this.nCoarse); release(this.cols); release(this.offs);
    release(this.tables); release(this.final);
  }
}


// ---- coarse bins ----

let gOrderKey: usize = 0;
function byOrderKey(a: i32, b: i32): i32 {
  const x = ldf(gOrderKey, a), y = ldf(gOrderKey, b);
  return x < y ? -1 : (x > y ? 1 : 0);
}

/**
 * Maps a column's fine bins to at most COARSE coarse bins: the missing bin alone, then runs of
 * roughly equal training count along the column's order (values for numeric, main-term value
 * for categorical).
 */
function coarsen(ps: PairSet, c: i32, kind: i32, nb: i32, counts: usize, meanTerm: usize): void {
  const order = allocI32(nb);
  let k = 0;
  for (let b = 1; b < nb; b++) { sti(order, k, b); k++; }
  if (kind == 1) { gOrderKey = meanTerm; sortIndices(order, k, byOrderKey); }
  let total = 0.0;
  for (let t = 0; t < k; t++) total += ldf(counts, ldi(order, t));
  const slots = COARSE - 1;
  let cum = 0.0, cur = 1;
  sti(ps.coarseOf, c * BIN_STRIDE, 0);
  for (let t = 0; t < k; t++) {
    const b = ldi(order, t);
    sti(ps.coarseOf, c * BIN_STRIDE + b, cur);
    cum += ldf(counts, b);
    if (cur < slots && cum >= total * <f64>cur / <f64>slots && t < k - 1) cur++;
  }
  sti(ps.nCoarse, c, cur + 1);
  release(order);
}

// ---- selection (FAST) ----

const HG = allocF64(COARSE * COARSE);
const HH = allocF64(COARSE * COARSE);
const HN = allocF64(COARSE * COARSE);

// Rows per cell of the histogram being summed, counted in integers (exact, as the f64 sums of 1 they replace).
const CELL_N = allocI32(max(FULL_PAIR_CELLS, COARSE * COARSE));
// A coarse pair's (g, h) sums per cell side by side, before unpackCoarse splits them into HG and HH; the
// second pair's of coarseHist2 in HGH2 and CELL_N2.
const HGH = allocF64(COARSE * COARSE * 2);
const HGH2 = allocF64(COARSE * COARSE * 2);
const CELL_N2 = allocI32(COARSE * COARSE);

/**
 * The coarse 2D histogram of a pair of columns (their coarse bins colA, colB) over the rows' side-by-side
 * residuals `gh` into HGH and CELL_N. Each cell takes its rows in row order, one f64x2 add for g and h and an
 * integer count: the same bits as three scalar f64 sums a row.
 */
function coarseHist(colA: usize, colB: usize, gh: usize, nRows: i32): void {
  const cells = COARSE * COARSE;
  memory.fill(HGH, 0, <usize>cells << 4);
  memory.fill(CELL_N, 0, <usize>cells << 2);
  for (let q = 0; q < nRows; q++) {
    const o = <usize>load<u8>(colA + <usize>q) * <usize>COARSE + <usize>load<u8>(colB + <usize>q);
    const cell = HGH + (o << 4);
    v128.store(cell, f64x2.add(v128.load(cell), v128.load(gh + (<usize>q << 4))));
    const np = CELL_N + (o << 2);
    store<i32>(np, load<i32>(np) + 1);
  }
}

/**
 * coarseHist of the pairs (a, b) into HGH / CELL_N and (a, c) into HGH2 / CELL_N2 in one pass: a row's column-a
 * bin and residuals are read once, and the two pairs' adds do not wait on each other. Each histogram still takes
 * its rows in row order: the same bits as two coarseHist passes.
 */
function coarseHist2(colA: usize, colB: usize, colC: usize, gh: usize, nRows: i32): void {
  const cells = COARSE * COARSE;
  memory.fill(HGH, 0, <usize>cells << 4); memory.fill(CELL_N, 0, <usize>cells << 2);
  memory.fill(HGH2, 0, <usize>cells << 4); memory.fill(CELL_N2, 0, <usize>cells << 2);
  for (let q = 0; q < nRows; q++) {
    const x = <usize>load<u8>(colA + <usize>q) * <usize>COARSE;
    const v = v128.load(gh + (<usize>q << 4));
    const o1 = x + <usize>load<u8>(colB + <usize>q), o2 = x + <usize>load<u8>(colC + <usize>q);
    const c1 = HGH + (o1 << 4), c2 = HGH2 + (o2 << 4);
    v128.store(c1, f64x2.add(v128.load(c1), v));
    v128.store(c2, f64x2.add(v128.load(c2), v));
    const n1 = CELL_N + (o1 << 2), n2 = CELL_N2 + (o2 << 2);
    store<i32>(n1, load<i32>(n1) + 1);
    store<i32>(n2, load<i32>(n2) + 1);
  }
}

/** A coarse histogram's side-by-side sums and integer counts into HG, HH and HN for bestQuadrantGain. */
function unpackCoarse(hgh: usize, counts: usize): void {
  for (let o = 0; o < COARSE * COARSE; o++) {
    stf(HG, o, ldf(hgh, 2 * o)); stf(HH, o, ldf(hgh, 2 * o + 1)); stf(HN, o, <f64>ldi(counts, o));
  }
}

// 2D prefix sums of the histogram: P[x][y] = sum over cells (<= x, <= y).
const PG = allocF64(COARSE * COARSE);
const PH = allocF64(COARSE * COARSE);
const PN = allocF64(COARSE * COARSE);

function prefix2d(src: usize, dst: usize, ca: i32, cb: i32): void {
  for (let x = 0; x < ca; x++) {
    let row = 0.0;
    for (let y = 0; y < cb; y++) {
      row += ldf(src, x * COARSE + y);
      stf(dst, x * COARSE + y, row + (x > 0 ? ldf(dst, (x - 1) * COARSE + y) : 0.0));
    }
  }
}

/**
 * Best 4-quadrant gain over the 2D histogram in HG/HH/HN (ca x cb); -1 when none is valid. With
 * `out`, writes the cut (x <= i, y <= t) and each quadrant's Newton step (00, 01, 10, 11).
 * Readable version: for every cut, sum the cells of each quadrant; prefix sums give the same totals.
 */
function bestQuadrantGain(ca: i32, cb: i32, out: usize): f64 {
  prefix2d(HG, PG, ca, cb); prefix2d(HH, PH, ca, cb); prefix2d(HN, PN, ca, cb);
  const last = (ca - 1) * COARSE + (cb - 1);
  const gt = ldf(PG, last), ht = ldf(PH, last), nt = ldf(PN, last);
  const whole = gt * gt / ht; // the same value every cut subtracts (computed once: the same bits)
  let best = -1.0;
  for (let i = 0; i < ca - 1; i++) {
    const colI = i * COARSE + (cb - 1); // (<= i, all y)
    const gI = ldf(PG, colI), hI = ldf(PH, colI), nI = ldf(PN, colI);
    for (let t = 0; t < cb - 1; t++) {
      const rowT = (ca - 1) * COARSE + t; // (all x, <= t)
      const o = i * COARSE + t;
      const g00 = ldf(PG, o), h00 = ldf(PH, o), n00 = ldf(PN, o);
      const g01 = gI - g00, h01 = hI - h00, n01 = nI - n00;
      const g10 = ldf(PG, rowT) - g00, h10 = ldf(PH, rowT) - h00, n10 = ldf(PN, rowT) - n00;
      const g11 = gt - g00 - g01 - g10, h11 = ht - h00 - h01 - h10, n11 = nt - n00 - n01 - n10;
      if (n00 < MIN_QUADRANT_ROWS || n01 < MIN_QUADRANT_ROWS || n10 < MIN_QUADRANT_ROWS || n11 < MIN_QUADRANT_ROWS) continue;
      if (h00 < HESS_FLOOR || h01 < HESS_FLOOR || h10 < HESS_FLOOR || h11 < HESS_FLOOR) continue;
      const s = g00 * g00 / h00 + g01 * g01 / h01 + g10 * g10 / h10 + g11 * g11 / h11 - whole;
      if (s > best) {
        best = s;
        if (out != 0) {
          sti(out, 0, i); sti(out, 1, t);
          stf(out + 8, 0, -g00 / h00); stf(out + 8, 1, -g01 / h01); stf(out + 8, 2, -g10 / h10); stf(out + 8, 3, -g11 / h11);
        }
      }
    }
  }
  return best;
}

let gGain: usize = 0;
function byGainDesc(a: i32, b: i32): i32 {
  const x = ldf(gGain, a), y = ldf(gGain, b);
  return x > y ? -1 : (x < y ? 1 : 0);
}

/** Ranks all pairs of usable columns by FAST gain on the bag-averaged main model's residuals. */
export function selectPairs(bins: usize, n: i32, rows: usize, nRows: i32, ys: usize, u: i32, kinds: usize,
  nBins: usize, bagTerms: usize, bagIntercepts: usize, nBags: i32, maxPairs: i32 = 0): PairSet {
  const ps = new PairSet();
  ps.u = u; ps.nBags = nBags;
  ps.nBins = allocI32(u); ps.coarseOf = allocI32(u * BIN_STRIDE); ps.nCoarse = allocI32(u);
  // bag-averaged main model
  const mean = allocF64(u * BIN_STRIDE);
  let b0 = 0.0;
  for (let bg = 0; bg < nBags; bg++) {
    b0 += ldf(bagIntercepts, bg) / <f64>nBags;
    const t = bagTerms + (<usize>(bg * u * BIN_STRIDE) << 3);
    for (let o = 0; o < u * BIN_STRIDE; o++) stf(mean, o, ldf(mean, o) + ldf(t, o) / <f64>nBags);
  }
  const counts = allocF64(BIN_STRIDE);
  for (let c = 0; c < u; c++) {
    const nb = ldi(nBins, c);
    sti(ps.nBins, c, nb);
    memory.fill(counts, 0, <usize>BIN_STRIDE << 3);
    for (let q = 0; q < nRows; q++) {
      const b = <i32>load<u8>(bins + <usize>c * <usize>n + <usize>ldi(rows, q));
      stf(counts, b, ldf(counts, b) + 1);
    }
    coarsen(ps, c, ldi(kinds, c), nb, counts, mean + (<usize>(c * BIN_STRIDE) << 3));
  }
  release(counts);
  const gh = allocF64(2 * nRows); // each row's residual gradient and hessian side by side ([q][g, h])
  for (let q = 0; q < nRows; q++) {
    const r = ldi(rows, q);
    let s = b0;
    for (let c = 0; c < u; c++) s += ldf(mean, c * BIN_STRIDE + <i32>load<u8>(bins + <usize>c * <usize>n + <usize>r));
    const p = sigmoid(s);
    stf(gh, 2 * q, p - ldf(ys, q)); stf(gh, 2 * q + 1, p * (1 - p));
  }
  release(mean);
  const nPairs = u * (u - 1) / 2;
  const gains = allocF64(nPairs), pa = allocI32(nPairs), pb = allocI32(nPairs), idx = allocI32(nPairs), strides = allocI32(nPairs);
  // each training row's coarse bin in every column, once (the pair loop below reads two bytes a row)
  const coarseRows = allocU8(u * nRows);
  for (let c = 0; c < u; c++) {
    const src = bins + <usize>c * <usize>n, dst = coarseRows + <usize>c * <usize>nRows;
    for (let q = 0; q < nRows; q++) store<u8>(dst + <usize>q, <u8>ps.coarse(c, <i32>load<u8>(src + <usize>ldi(rows, q))));
  }
  let k = 0;
  for (let a = 0; a < u; a++) {
    const colA = coarseRows + <usize>a * <usize>nRows;
    for (let b = a + 1; b < u; b++) {
      const stride = fullStride(ldi(nBins, a), ldi(nBins, b), nRows);
      sti(pa, k, a); sti(pb, k, b); sti(idx, k, k); sti(strides, k, stride);
      if (stride > 0) { // every fine cell: the gain of its first categorical cut
        stf(gains, k, fullPairGain(bins, n, rows, nRows, gh, a, b, stride, ldi(nBins, a) * stride));
        k++;
        continue;
      }
      const colB = coarseRows + <usize>b * <usize>nRows;
      if (b + 1 < u && fullStride(ldi(nBins, a), ldi(nBins, b + 1), nRows) == 0) {
        // the next pair (a, b + 1) is coarse too: both histograms in one pass over the rows
        coarseHist2(colA, colB, colB + <usize>nRows, gh, nRows);
        unpackCoarse(HGH, CELL_N);
        stf(gains, k, bestQuadrantGain(ldi(ps.nCoarse, a), ldi(ps.nCoarse, b), 0));
        k++; b++;
        sti(pa, k, a); sti(pb, k, b); sti(idx, k, k); sti(strides, k, 0);
        unpackCoarse(HGH2, CELL_N2);
        stf(gains, k, bestQuadrantGain(ldi(ps.nCoarse, a), ldi(ps.nCoarse, b), 0));
        k++;
        continue;
      }
      coarseHist(colA, colB, gh, nRows);
      unpackCoarse(HGH, CELL_N);
      stf(gains, k, bestQuadrantGain(ldi(ps.nCoarse, a), ldi(ps.nCoarse, b), 0));
      k++;
    }
  }
  gGain = gains;
  sortIndices(idx, nPairs, byGainDesc);
  let count = 0;
  const budget = maxPairs > 0 ? maxPairs : pairBudget(u);
  while (count < budget && count < nPairs && ldf(gains, ldi(idx, count)) > 0) count++;
  // tree terms: a full-resolution pair tried (a date made of month x day of month) with each many-valued
  // categorical column (an airport), on a single split of TREE_MIN_ROWS training rows or more
  let trees = 0;
  const treeA = allocI32(MAX_TREE_TERMS), treeB = allocI32(MAX_TREE_TERMS), treeS = allocI32(MAX_TREE_TERMS), treeC = allocI32(MAX_TREE_TERMS);
  if (maxPairs == 0 && nRows >= TREE_MIN_ROWS) {
    for (let p = 0; p < count && trees < MAX_TREE_TERMS; p++) {
      const at = ldi(idx, p), stride = ldi(strides, at);
      if (stride == 0) continue;
      const a = ldi(pa, at), b = ldi(pb, at);
      for (let c = 0; c < u && trees < MAX_TREE_TERMS; c++) {
        if (c == a || c == b || ldi(kinds, c) != 1 || ldi(nBins, c) <= COARSE) continue;
        sti(treeA, trees, a); sti(treeB, trees, b); sti(treeS, trees, stride); sti(treeC, trees, c);
        trees++;
      }
    }
  }
  ps.count = count + trees;
  ps.cols = allocI32(ps.count * 4 + 4);
  for (let p = 0; p < count; p++) {
    const at = ldi(idx, p);
    sti(ps.cols, p * 4, ldi(pa, at)); sti(ps.cols, p * 4 + 1, ldi(pb, at)); sti(ps.cols, p * 4 + 2, ldi(strides, at));
    sti(ps.cols, p * 4 + 3, -1);
  }
  for (let t = 0; t < trees; t++) {
    const p = count + t;
    sti(ps.cols, p * 4, ldi(treeA, t)); sti(ps.cols, p * 4 + 1, ldi(treeB, t)); sti(ps.cols, p * 4 + 2, ldi(treeS, t));
    sti(ps.cols, p * 4 + 3, ldi(treeC, t));
  }
  release(treeA); release(treeB); release(treeS); release(treeC);
  ps.layout();
  ps.tables = allocF64(nBags * ps.totalSlots + 1);
  ps.final = allocF64(ps.totalSlots + 1);
  release(gains); release(pa); release(pb); release(idx); release(strides); release(gh); release(coarseRows);
  return ps;
}

const FULL_GH = allocF64(FULL_PAIR_CELLS * 2);
const FULL_N = allocF64(FULL_PAIR_CELLS);
const CUT_SIDE = allocU8(FULL_PAIR_CELLS);
const CUT_STEPS = allocF64(2);

/** A full-resolution pair's ranking gain: its fine cells' first categorical cut on the residuals (g, h). */
function fullPairGain(bins: usize, n: i32, rows: usize, nRows: i32, gh: usize, a: i32, b: i32, stride: i32, cells: i32): f64 {
  memory.fill(FULL_GH, 0, <usize>cells << 4);
  memory.fill(CELL_N, 0, <usize>cells << 2);
  const colA = bins + <usize>a * <usize>n, colB = bins + <usize>b * <usize>n;
  for (let q = 0; q < nRows; q++) {
    const r = <usize>ldi(rows, q);
    const o = <usize>(<i32>load<u8>(colA + r) * stride + <i32>load<u8>(colB + r));
    const cell = FULL_GH + (o << 4);
    v128.store(cell, f64x2.add(v128.load(cell), v128.load(gh + (<usize>q << 4))));
    const np = CELL_N + (o << 2);
    store<i32>(np, load<i32>(np) + 1);
  }
  for (let o = 0; o < cells; o++) stf(FULL_N, o, <f64>ldi(CELL_N, o));
  return cellCut(FULL_GH, FULL_N, cells, CUT_SIDE, CUT_STEPS);
}

// ---- boosting ----

const SPLIT = allocI32(2 + 8);
const DCELL = allocF64(COARSE * COARSE);
const MCELL = allocF64(COARSE * COARSE); // [i, t] then 4 f64 Newton steps at +8
// A pair's gradient and hessian sums per cell side by side (f64 [cell][g, h]; one copy): one f64x2 add updates both.
const GH = allocF64(COARSE * COARSE * 2);
/**
 * Pair (or tree term) p's cell of each of n rows whose bins in its two columns are colA and colB, into `out`: as
 * ps.cell row by row, with the pair's stride and its columns' coarse maps read once.
 */
function cellsOf(ps: PairSet, p: i32, colA: usize, colB: usize, n: i32, out: usize): void {
  const st = ps.fineStride(p);
  if (st > 0) {
    for (let i = 0; i < n; i++) store<u8>(out + <usize>i, <u8>(<i32>load<u8>(colA + <usize>i) * st + <i32>load<u8>(colB + <usize>i)));
    return;
  }
  const mapA = ps.coarseOf + (<usize>(ps.colA(p) * BIN_STRIDE) << 2), mapB = ps.coarseOf + (<usize>(ps.colB(p) * BIN_STRIDE) << 2);
  for (let i = 0; i < n; i++) {
    const o = ldi(mapA, <i32>load<u8>(colA + <usize>i)) * COARSE + ldi(mapB, <i32>load<u8>(colB + <usize>i));
    store<u8>(out + <usize>i, <u8>o);
  }
}

/**
 * Boosts the pairs and tree terms in one bag on top of its main terms (`terms`, intercept in bag.intercept);
 * writes the best round's tables to `best` (the set's totalSlots, zeroed by the caller). Early stopping
 * watches the even validation rows; the odd ones, never used to stop, are the gate: returns how much
 * the pairs lowered their log loss (fit.ts keeps the pairs only when enough bags agree, pairsKept).
 *
 * Readable version (same numbers): each round, for each pair in turn, one pass over the training rows
 * builds the pair's cell histogram (gradient, hessian, rows) from their odds, the best 4-quadrant cut
 * (a full-resolution pair: the best cut of its cells) takes a shrunken Newton step per side, and a second
 * pass multiplies the rows' odds by the step's factor. Here one pass applies a pair's step and builds the next
 * pair's histogram (boost.ts histPass), the rows per cell are counted once per bag, and each row's cell of every
 * pair is one byte. A tree term in the round takes its rows' odds as they are (a pair's step still pending is
 * applied first) and steps them itself (treeStep).
 */
export function boostPairsBag(ps: PairSet, bag: Bag, terms: usize, best: usize, lr: f64, patience: i32, maxRounds: i32): f64 {
  const cells = COARSE * COARSE;
  const u = bag.u, nT = bag.nT, nV = bag.nV, yT = bag.yT;
  const sT = allocF64(nT), eT = allocF64(nT), sV = allocF64(nV);
  scoreBinned(bag.binsT, nT, u, terms, bag.intercept, sT);
  scoreBinned(bag.binsV, nV, u, terms, bag.intercept, sV);
  const work = allocF64(ps.totalSlots);
  // cell (< 256; a tree term's a x b cell) of every row for every term, and each pair's training rows per cell,
  // computed once
  const cellT = allocU8(ps.count * nT), cellV = allocU8(ps.count * nV);
  const cellRows = allocF64(ps.count * cells);
  let treeCells = 0;
  for (let p = 0; p < ps.count; p++) {
    const a = ps.colA(p), b = ps.colB(p);
    const ct = cellT + <usize>p * <usize>nT, cv = cellV + <usize>p * <usize>nV;
    const rowsOf = cellRows + (<usize>(p * cells) << 3);
    cellsOf(ps, p, bag.binsT + <usize>a * <usize>nT, bag.binsT + <usize>b * <usize>nT, nT, ct);
    cellsOf(ps, p, bag.binsV + <usize>a * <usize>nV, bag.binsV + <usize>b * <usize>nV, nV, cv);
    for (let i = 0; i < nT; i++) {
      const o = <i32>load<u8>(ct + <usize>i);
      stf(rowsOf, o, ldf(rowsOf, o) + 1);
    }
    if (ps.isTree(p) && ps.cellCount(p) > treeCells) treeCells = ps.cellCount(p);
  }
  const scratch = new TreeScratch(nT, treeCells);
  const startStop = halfLoss(sV, bag.yV, nV, 0), startGate = halfLoss(sV, bag.yV, nV, 1);
  let bestStop = startStop, bestGate = startGate;
  let bestRound = 0, round = 0;
  for (let i = 0; i < nT; i++) stf(eT, i, Math.exp(ldf(sT, i))); // odds; steps multiply them
  let pending: usize = 0; // cells of the pair whose step (MCELL) the rows' odds have yet to take
  // momentum (momentum.ts) moves the pairs' cells, each weighted by its training rows; tree terms take none
  const weight = allocF64(ps.totalSlots);
  for (let p = 0; p < ps.count; p++) {
    if (!ps.isTree(p)) memory.copy(weight + (<usize>ps.slotOf(p) << 3), cellRows + (<usize>(p * cells) << 3), <usize>cells << 3);
  }
  const mom = new Momentum(ps.totalSlots);
  while (round < maxRounds) {
    round++;
    mom.startRound(work);
    for (let p = 0; p < ps.count; p++) {
      const ct = cellT + <usize>p * <usize>nT, cv = cellV + <usize>p * <usize>nV;
      const w = work + (<usize>ps.slotOf(p) << 3); // term p's slots in `work`
      if (ps.isTree(p)) {
        if (pending != 0) {
          for (let i = 0; i < nT; i++) stf(eT, i, ldf(eT, i) * ldf(MCELL, <i32>load<u8>(pending + <usize>i)));
          pending = 0;
        }
        treeStep(ps, p, bag, ct, cv, eT, sV, w, lr, scratch);
        continue;
      }
      memory.fill(GH, 0, <usize>cells << 4);
      if (mom.pending) histPassMoved(pending, ct, eT, yT, nT, MCELL, GH, 0, mom.mult + (<usize>ps.slotOf(p) << 3));
      else histPass(pending, ct, eT, yT, nT, MCELL, GH, 0);
      pending = 0;
      const rowsOf = cellRows + (<usize>(p * cells) << 3);
      const stepped = ps.fineStride(p) > 0 ? cellStep(ps, p, rowsOf, lr, w) : quadrantStep(ps, p, rowsOf, lr, w);
      if (!stepped) continue;
      pending = ct;
      addDeltas(sV, cv, nV, DCELL);
    }
    mom.pending = false;
    const stop = halfLoss(sV, bag.yV, nV, 0);
    if (stop < bestStop) {
      bestStop = stop; bestRound = round;
      bestGate = halfLoss(sV, bag.yV, nV, 1);
      memory.copy(best, work, <usize>ps.totalSlots << 3);
    } else if (round - bestRound >= patience) break;
    if (mom.startsOrRuns(round, bestRound) && mom.extrapolate(work, weight)) {
      for (let p = 0; p < ps.count; p++) {
        if (ps.isTree(p)) continue;
        addDeltas(sV, cellV + <usize>p * <usize>nV, nV, mom.move + (<usize>ps.slotOf(p) << 3));
      }
    } else mom.keep(work);
  }
  mom.free(); release(weight);
  scratch.free();
  release(sT); release(eT); release(sV); release(work); release(cellT); release(cellV); release(cellRows);
  return startGate - bestGate;
}

/** A bag's buffers for its tree terms' rounds. */
class TreeScratch {
  tree: CellTree = new CellTree();
  g: usize = 0; // f64 [nT]
  h: usize = 0; // f64 [nT]
  delta: usize = 0; // f64 [cells]: one round's step of each cell
  codes: usize = allocI32(256); // a leaf's codes of the tree term's column
  constructor(nT: i32, cells: i32) {
    if (cells > 0) {
      this.g = allocF64(nT); this.h = allocF64(nT); this.delta = allocF64(cells);
      this.tree.order = allocI32(nT); this.tree.tmp = allocI32(nT);
    }
  }
  free(): void {
    release(this.g); release(this.h); release(this.delta); release(this.tree.order); release(this.tree.tmp);
    release(this.tree.leafNode); release(this.codes);
  }
}

/**
 * One round of tree term p: a small tree (cell-trees.ts) over the rows' a x b cells (`ct`) and column c's fine
 * bins on the gradients of their odds, a shrunken Newton step per leaf (TREE_L2 added to its hessian) taken by
 * the leaf's rows and every cell of its region. Adds the step to the term's table `w` and the validation
 * rows' logits.
 */
function treeStep(ps: PairSet, p: i32, bag: Bag, ct: usize, cv: usize, eT: usize, sV: usize, w: usize, lr: f64, sc: TreeScratch): void {
  const nT = bag.nT, nV = bag.nV, yT = bag.yT, c = ps.colC(p);
  const nC = ldi(ps.nBins, c), nAB = ps.cellCount(p) / nC;
  const g = sc.g, h = sc.h, tree = sc.tree, delta = sc.delta;
  for (let i = 0; i < nT; i++) {
    const e = ldf(eT, i);
    const pr = e / (1 + e);
    stf(g, i, pr - ldf(yT, i)); stf(h, i, pr * (1 - pr));
  }
  const leaves = growTree(tree, ct, bag.binsT + <usize>c * <usize>nT, nAB, nC, g, h, nT);
  if (leaves < 2) return;
  const order = tree.order;
  for (let k = 0; k < leaves; k++) {
    const d = -lr * tree.g(k, nAB) / (tree.h(k, nAB) + TREE_L2);
    const m = Math.exp(d);
    for (let t = tree.lo(k); t < tree.hi(k); t++) {
      const i = ldi(order, t);
      stf(eT, i, ldf(eT, i) * m);
    }
    // the leaf's region: its codes of c once, then every a x b cell of it (each cell lies in one leaf)
    let nIn = 0;
    for (let y = 0; y < nC; y++) if (tree.has(k, 1, y)) { sti(sc.codes, nIn, y); nIn++; }
    for (let x = 0; x < nAB; x++) {
      if (!tree.has(k, 0, x)) continue;
      const row = delta + (<usize>(x * nC) << 3);
      for (let t = 0; t < nIn; t++) stf(row, ldi(sc.codes, t), d);
    }
  }
  const cells = nAB * nC;
  for (let o = 0; o < cells; o++) stf(w, o, ldf(w, o) + ldf(delta, o));
  const binsC = bag.binsV + <usize>c * <usize>nV;
  for (let i = 0; i < nV; i++) {
    const o = <i32>load<u8>(cv + <usize>i) * nC + <i32>load<u8>(binsC + <usize>i);
    stf(sV, i, ldf(sV, i) + ldf(delta, o));
  }
}

/**
 * A full-resolution pair's step from its cell histogram in GH: the best cut of its fine cells as one categorical
 * column (split.ts cellCut), a shrunken Newton step each side. Writes every cell's step to DCELL, its odds
 * factor to MCELL, and adds the step to the pair's table `w`; false when no cut is valid.
 */
function cellStep(ps: PairSet, p: i32, rowsOf: usize, lr: f64, w: usize): bool {
  const nCells = ps.cellCount(p);
  if (cellCut(GH, rowsOf, nCells, CUT_SIDE, CUT_STEPS) <= 0) return false;
  const dL = lr * ldf(CUT_STEPS, 0), dR = lr * ldf(CUT_STEPS, 1);
  const mL = Math.exp(dL), mR = Math.exp(dR);
  for (let o = 0; o < COARSE * COARSE; o++) {
    const side = o < nCells ? <i32>load<u8>(CUT_SIDE + <usize>o) : 2;
    const d = side == 0 ? dL : (side == 1 ? dR : 0.0);
    stf(DCELL, o, d);
    stf(MCELL, o, side == 0 ? mL : (side == 1 ? mR : 1.0));
    stf(w, o, ldf(w, o) + d);
  }
  return true;
}

/** A coarse pair's step from GH: the best 4-quadrant cut, a shrunken Newton step per quadrant (as cellStep). */
function quadrantStep(ps: PairSet, p: i32, rowsOf: usize, lr: f64, w: usize): bool {
  const cells = COARSE * COARSE;
  for (let o = 0; o < cells; o++) {
    stf(HG, o, load<f64>(GH + (<usize>o << 4)));
    stf(HH, o, load<f64>(GH + (<usize>o << 4) + 8));
  }
  memory.copy(HN, rowsOf, <usize>cells << 3);
  const ca = ldi(ps.nCoarse, ps.colA(p)), cb = ldi(ps.nCoarse, ps.colB(p));
  if (bestQuadrantGain(ca, cb, SPLIT) <= 0) return false;
  const ci = ldi(SPLIT, 0), cut = ldi(SPLIT, 1);
  const d00 = lr * ldf(SPLIT + 8, 0), d01 = lr * ldf(SPLIT + 8, 1), d10 = lr * ldf(SPLIT + 8, 2), d11 = lr * ldf(SPLIT + 8, 3);
  const m00 = Math.exp(d00), m01 = Math.exp(d01), m10 = Math.exp(d10), m11 = Math.exp(d11);
  for (let x = 0; x < COARSE; x++) for (let y = 0; y < COARSE; y++) {
    const o = x * COARSE + y;
    const d = x <= ci ? (y <= cut ? d00 : d01) : (y <= cut ? d10 : d11);
    stf(DCELL, o, d);
    stf(MCELL, o, x <= ci ? (y <= cut ? m00 : m01) : (y <= cut ? m10 : m11));
    stf(w, o, ldf(w, o) + d);
  }
  return true;
}

/**
 * Whether the pairs are kept, from each bag's gate gain in bag order: they must lower the odd
 * validation rows' log loss in at least MIN_BAGS_AGREE bags and on the whole.
 */
export function pairsKept(gains: usize, nBags: i32, minAgree: i32 = MIN_BAGS_AGREE): bool {
  let agree = 0;
  let totalGain = 0.0;
  for (let bg = 0; bg < nBags; bg++) {
    const gain = ldf(gains, bg);
    if (gain > 0) agree++;
    totalGain += gain;
  }
  return agree >= minAgree && totalGain > 0;
}

/** Mean log loss over the even (half 0) or odd (half 1) validation rows. */
function halfLoss(s: usize, ys: usize, n: i32, half: i32): f64 {
  const k = n > half ? (n - half + 1) >> 1 : 0;
  return k > 0 ? logLossSum(s, ys, half, 2, n) / <f64>k : 0;
}
