// Residual trees (the fit's last stage, after main terms and pairs): small trees boosted in each bag on what the
// bag's additive model leaves, so a pattern of three or more columns together (a stone's depth and table at its
// size) is learned, where main terms and pairs hold at most two. Each tree is oblivious: every node of a level
// takes the same cut, so a tree of TREE_DEPTH levels reads at most TREE_DEPTH columns and a case's leaf is the
// pattern of its sides at the levels' cuts. A level's cut is the cut of one column's bins (numeric: ordered bins
// with missing on either side; categorical: bins ordered by G/(H + CAT_SMOOTH) over the level's rows) that gains
// most summed over the level's nodes, MIN_CHILD_ROWS a side over the level, among all usable columns or (a
// cross-fitted bag) a seeded sample of them a level, as a random forest samples a split's columns. Boosted with
// early stopping on the bag's validation rows, or a fixed number of rounds; tree-stage.ts keeps them only when
// the held-out rows (single split) or the out-of-fold rows (cross-fitted) say the model with them beats the model
// without.
//
// A case's reasons take each tree's exact Shapley values over its columns, with the tree's own training rows as
// the background at each cut it does not read (path-dependent TreeSHAP): they depend only on the case's pattern
// of sides, so they are worked out once per tree when the model is built (2^depth patterns x depth columns) and
// scoring looks them up (model.ts).
import { ldf, stf, ldi, sti, ldb, allocF64, allocI32, allocU8, release } from './mem';
import { Bag } from './boost';
import { BIN_STRIDE } from './binning';
import { CAT_SMOOTH, MIN_CHILD_ROWS } from './tunables';
import { rowLogLoss } from './stats';
import { FOREST_TREE } from './abi';
import { mix64 } from './hash';

export const TREE_DEPTH: i32 = 4;
const LEAVES: i32 = 1 << TREE_DEPTH;
const MASK_WORDS: i32 = 8;
const HESS_FLOOR: f64 = 1e-9;
// From this many training rows a bag's level histograms take the parent-less-sibling shortcut (fillLevel); below
// it the bins cost more than the rows.
const SUBTRACT_ROWS: i32 = 2048;
// A raw tree as a bag task outputs it (f64 [RAW_TREE]): each level's usable column (-1: the level does not cut),
// its bins going right as a 256-bit mask (8 words of 32 bits, whole numbers in f64), then each leaf's value and
// training rows (cover). Leaf index: the sides at the levels as bits, the first level's the highest.
export const RAW_TREE: i32 = TREE_DEPTH + TREE_DEPTH * MASK_WORDS + 2 * LEAVES;
export const RT_COLS: i32 = 0;
export const RT_MASKS: i32 = TREE_DEPTH;
export const RT_LEAVES: i32 = TREE_DEPTH + TREE_DEPTH * MASK_WORDS;
export const RT_COVERS: i32 = RT_LEAVES + LEAVES;
// A served tree (f64 [SERVED_TREE], model.ts forest section): each level's model column and mask, the tree's
// distinct model columns (-1 padding), then for each pattern of sides each distinct column's contribution.
export const SERVED_TREE: i32 = FOREST_TREE;
export const ST_COLS: i32 = 0;
export const ST_MASKS: i32 = TREE_DEPTH;
export const ST_FEATURES: i32 = TREE_DEPTH + TREE_DEPTH * MASK_WORDS;
export const ST_PHI: i32 = ST_FEATURES + TREE_DEPTH;

/** Whether bin b goes right at a cut whose mask starts at `mask` (f64 words of 32 bits). */
@inline export function goesRight(mask: usize, b: i32): i32 {
  const word = <u32>load<f64>(mask + (<usize>(b >> 5) << 3));
  return <i32>((word >> <u32>(b & 31)) & 1);
}

/** A raw tree's leaf for row r of column-major bins (bins [c * n + r]; usable columns). */
export function rawTreeLeaf(t: usize, bins: usize, n: i32, r: i32): i32 {
  let leaf = 0;
  for (let l = 0; l < TREE_DEPTH; l++) {
    const c = <i32>ldf(t, RT_COLS + l);
    const side = c < 0 ? 0 : goesRight(t + (<usize>(RT_MASKS + l * MASK_WORDS) << 3), <i32>load<u8>(bins + <usize>c * <usize>n + <usize>r));
    leaf = (leaf << 1) | side;
  }
  return leaf;
}

/** A raw tree's value for row r of column-major bins. */
export function rawTreeValue(t: usize, bins: usize, n: i32, r: i32): f64 {
  return ldf(t, RT_LEAVES + rawTreeLeaf(t, bins, n, r));
}

// Each level's side of every bin (u8 [TREE_DEPTH][BIN_STRIDE]; all 0 at a level that does not cut) and column.
const SIDES = allocU8(TREE_DEPTH * BIN_STRIDE);
const LEVEL_COL = allocI32(TREE_DEPTH);

/**
 * Adds raw tree t's value for rows 0..m-1 of column-major bins (bins [c * stride + r]) into out [r]: the same
 * numbers as rawTreeValue row by row, read through one side table a level (a byte per bin) instead of the mask's
 * words, the tree's cuts unpacked once for all rows. Written for TREE_DEPTH 4 (a level a line below).
 */
export function addRawTree(t: usize, bins: usize, stride: i32, m: i32, out: usize): void {
  for (let l = 0; l < TREE_DEPTH; l++) {
    const c = <i32>ldf(t, RT_COLS + l), side = SIDES + <usize>(l * BIN_STRIDE);
    // a level that does not cut sends every bin left: it reads column 0 through a table of zeros
    sti(LEVEL_COL, l, c < 0 ? 0 : c);
    const mask = t + (<usize>(RT_MASKS + l * MASK_WORDS) << 3);
    for (let b = 0; b < BIN_STRIDE; b++) store<u8>(side + <usize>b, c < 0 ? 0 : <u8>goesRight(mask, b));
  }
  const c0 = bins + <usize>ldi(LEVEL_COL, 0) * <usize>stride, c1 = bins + <usize>ldi(LEVEL_COL, 1) * <usize>stride;
  const c2 = bins + <usize>ldi(LEVEL_COL, 2) * <usize>stride, c3 = bins + <usize>ldi(LEVEL_COL, 3) * <usize>stride;
  const s1 = SIDES + <usize>BIN_STRIDE, s2 = SIDES + <usize>(2 * BIN_STRIDE), s3 = SIDES + <usize>(3 * BIN_STRIDE);
  const leaves = t + (<usize>RT_LEAVES << 3);
  for (let r = 0; r < m; r++) {
    const o = <usize>r;
    const leaf = (<i32>load<u8>(SIDES + <usize>load<u8>(c0 + o)) << 3) | (<i32>load<u8>(s1 + <usize>load<u8>(c1 + o)) << 2)
      | (<i32>load<u8>(s2 + <usize>load<u8>(c2 + o)) << 1) | <i32>load<u8>(s3 + <usize>load<u8>(c3 + o));
    const p = out + (o << 3);
    store<f64>(p, load<f64>(p) + load<f64>(leaves + (<usize>leaf << 3)));
  }
}

/** A raw tree's mean value over its training rows (cover-weighted leaves): the base its Shapley values start from. */
export function rawTreeMean(t: usize): f64 {
  let s = 0.0, n = 0.0;
  for (let k = 0; k < LEAVES; k++) { s += ldf(t, RT_LEAVES + k) * ldf(t, RT_COVERS + k); n += ldf(t, RT_COVERS + k); }
  return n > 0 ? s / n : 0;
}

// ---- Shapley values of one tree (path-dependent TreeSHAP, by enumerating the subsets of its columns) ----

const FEATURES = allocI32(TREE_DEPTH);
let nFeatures: i32 = 0;

/** Training rows under node `prefix` of level l (the leaves whose first l sides are prefix). */
function coverOf(t: usize, l: i32, prefix: i32): f64 {
  const span = 1 << (TREE_DEPTH - l);
  let s = 0.0;
  for (let k = prefix * span; k < (prefix + 1) * span; k++) s += ldf(t, RT_COVERS + k);
  return s;
}

// coverOf of every node of the tree being served (f64 [(1 << l) + prefix]), so valueGiven looks them up
const COVERS = allocF64(2 * LEAVES);

/**
 * v(S) at node `prefix` of level l: the tree's expected value when the columns in S (bit k: FEATURES[k]) are the
 * case's and the others unknown, reading the cuts top down: a cut on a known column follows the case's side
 * (`sides`, the first level's the highest bit), one on an unknown column averages its two sides by their training
 * rows (equally when neither has any; COVERS, coverOf's).
 */
function valueGiven(t: usize, l: i32, prefix: i32, sides: i32, known: i32): f64 {
  if (l == TREE_DEPTH) return ldf(t, RT_LEAVES + prefix);
  const col = <i32>ldf(t, RT_COLS + l);
  if (col < 0) return valueGiven(t, l + 1, prefix << 1, sides, known);
  let k = 0;
  while (ldi(FEATURES, k) != col) k++;
  if ((known >> k & 1) != 0) return valueGiven(t, l + 1, (prefix << 1) | (sides >> (TREE_DEPTH - 1 - l) & 1), sides, known);
  const v0 = valueGiven(t, l + 1, prefix << 1, sides, known), v1 = valueGiven(t, l + 1, (prefix << 1) | 1, sides, known);
  const w0 = ldf(COVERS, (2 << l) + (prefix << 1)), w1 = ldf(COVERS, (2 << l) + ((prefix << 1) | 1));
  return w0 + w1 > 0 ? (w0 * v0 + w1 * v1) / (w0 + w1) : 0.5 * (v0 + v1);
}

// v(S) of every pattern of sides for every subset S of the tree's columns (serveTree; f64 [sides * LEAVES + S])
const V_OF = allocF64(LEAVES * LEAVES);

function factorial(k: i32): f64 {
  let f = 1.0;
  for (let i = 2; i <= k; i++) f *= <f64>i;
  return f;
}

/**
 * A served tree from a raw one (at `out`, SERVED_TREE slots): its levels' columns mapped through `colOf` (usable ->
 * model column), its masks, its distinct columns, and each pattern of sides' Shapley values times `scale` (the
 * bag's weight in the served model and the calibration). A pattern's values sum to the tree's value for it minus
 * rawTreeMean (times scale): the mean goes into the model's intercept.
 */
export function serveTree(t: usize, colOf: usize, scale: f64, out: usize): void {
  nFeatures = 0;
  for (let l = 0; l < TREE_DEPTH; l++) {
    const c = <i32>ldf(t, RT_COLS + l);
    stf(out, ST_COLS + l, c < 0 ? -1 : <f64>ldi(colOf, c));
    if (c < 0) continue;
    let seen = false;
    for (let q = 0; q < nFeatures; q++) if (ldi(FEATURES, q) == c) seen = true;
    if (!seen) { sti(FEATURES, nFeatures, c); nFeatures++; }
  }
  memory.copy(out + (<usize>ST_MASKS << 3), t + (<usize>RT_MASKS << 3), <usize>(TREE_DEPTH * MASK_WORDS) << 3);
  for (let k = 0; k < TREE_DEPTH; k++) stf(out, ST_FEATURES + k, k < nFeatures ? <f64>ldi(colOf, ldi(FEATURES, k)) : -1);
  const full = (1 << nFeatures) - 1;
  const fF = factorial(nFeatures);
  for (let l = 1; l <= TREE_DEPTH; l++) for (let prefix = 0; prefix < 1 << l; prefix++) stf(COVERS, (1 << l) + prefix, coverOf(t, l, prefix));
  // v(S) of every subset and pattern once (each is read by several columns' sums below). v(S) reads only the sides
  // of the levels that cut on a column of S (`read`): a pattern with other sides set takes the value of the same
  // pattern without them, computed before it (a smaller number).
  for (let known = 0; known <= full; known++) {
    let read = 0;
    for (let l = 0; l < TREE_DEPTH; l++) {
      const col = <i32>ldf(t, RT_COLS + l);
      if (col < 0) continue;
      let k = 0;
      while (ldi(FEATURES, k) != col) k++;
      if ((known >> k & 1) != 0) read |= 1 << (TREE_DEPTH - 1 - l);
    }
    for (let sides = 0; sides < LEAVES; sides++) {
      stf(V_OF, sides * LEAVES + known, (sides & ~read) != 0 ? ldf(V_OF, (sides & read) * LEAVES + known) : valueGiven(t, 0, 0, sides, known));
    }
  }
  for (let sides = 0; sides < LEAVES; sides++) {
    const vOf = V_OF + (<usize>(sides * LEAVES) << 3);
    for (let k = 0; k < TREE_DEPTH; k++) {
      let phi = 0.0;
      if (k < nFeatures) {
        for (let known = 0; known <= full; known++) {
          if ((known >> k & 1) != 0) continue;
          let size = 0;
          for (let q = 0; q < nFeatures; q++) size += known >> q & 1;
          const w = factorial(size) * factorial(nFeatures - size - 1) / fF;
          phi += w * (ldf(vOf, known | (1 << k)) - ldf(vOf, known));
        }
      }
      stf(out, ST_PHI + sides * TREE_DEPTH + k, phi * scale);
    }
  }
}

// ---- boosting the trees of one bag ----

// Histograms of the level being cut: for each node of the level and usable column, each bin's (g, h) side by side
// (f64 [node][column][256][2]). The rows a bin are not kept a node: the cut search only reads them summed over the
// level's nodes, which hold every training row once, so they are the bag's own rows a bin (binRows), counted once.
let levelGH: usize = 0, prevGH: usize = 0, binRows: usize = 0;
const CUT_SIDE = allocU8(BIN_STRIDE); // the chosen cut: each bin's side (0 left, 1 right)
const TRY_SIDE = allocU8(BIN_STRIDE);
const ORDER = allocI32(BIN_STRIDE);
const RATIO = allocF64(BIN_STRIDE);
const NODE_G = allocF64(LEAVES), NODE_H = allocF64(LEAVES);
const RUN_G = allocF64(LEAVES), RUN_H = allocF64(LEAVES);
const LEAF_MULT = allocF64(LEAVES);

// Bytes between two columns' histograms: 256 bins and one cache line more. At exactly 4 KB (or 2 KB) apart the same
// bin of every column maps to one L1 cache set, and a row's adds to a record's columns of few bins (0/1 indicators)
// evict each other (boost.ts GH_COLUMN): a 1,000-row record of 64 such columns spent 60% of its fit here.
const GH_COL: usize = (<usize>BIN_STRIDE << 4) + 64;
@inline function ghAt(node: i32, u: i32, c: i32): usize { return levelGH + <usize>(node * u + c) * GH_COL; }
@inline function prevGhAt(node: i32, u: i32, c: i32): usize { return prevGH + <usize>(node * u + c) * GH_COL; }
/** The bag's training rows in bin b of usable column c (f64 [c * BIN_STRIDE + b]). */
@inline function rowsIn(c: i32, b: i32): f64 { return ldf(binRows, c * BIN_STRIDE + b); }

/**
 * The level's histograms of its `nodes` nodes, from each training row's node and (g, h). With `subtract` (a bag of
 * many rows, where the pass over them costs more than the bins), below the first level only the rows on the smaller
 * side of the last cut over the whole level (`listed`, nListed of them, in row order; `listedRight`: the side they
 * went to) are summed, into their nodes, and each sibling is its parent's histogram (the level above's, in prevGH)
 * less theirs: at most half the rows a level are read.
 */
function fillLevel(
  bag: Bag, nodes: i32, nodeOf: usize, ghRow: usize, subtract: bool, listed: usize, nListed: i32, listedRight: bool, cols: usize, nCols: i32,
): void {
  const u = bag.u, nT = bag.nT;
  const half = subtract && nodes > 1;
  // without `subtract`, only the level's sampled columns (`cols`, nCols of them, ascending) are summed: the others
  // are not scanned, and each histogram is summed on its own, so the sums are the same either way
  if (!subtract && nCols < u) {
    for (let v = 0; v < nodes; v++) {
      for (let j = 0; j < nCols; j++) { const c = ldi(cols, j); memory.fill(ghAt(v, u, c), 0, <usize>ldi(bag.nBins, c) << 4); }
    }
    for (let i = 0; i < nT; i++) {
      const node = <i32>load<u8>(nodeOf + <usize>i);
      const gh = v128.load(ghRow + (<usize>i << 4));
      const col = bag.binsT + <usize>i, hist = ghAt(node, u, 0);
      for (let j = 0; j < nCols; j++) {
        const c = ldi(cols, j);
        const o = hist + <usize>c * GH_COL + (<usize>load<u8>(col + <usize>c * <usize>nT) << 4);
        v128.store(o, f64x2.add(v128.load(o), gh));
      }
    }
    return;
  }
  if (half) { // the level above's histograms become the parents
    const t1 = prevGH; prevGH = levelGH; levelGH = t1;
  }
  // the nodes summed from rows start at zero (with `half`, the listed side's only: the others are written whole)
  const first = half ? (listedRight ? 1 : 0) : 0, step = half ? 2 : 1;
  for (let v = first; v < nodes; v += step) {
    for (let c = 0; c < u; c++) memory.fill(ghAt(v, u, c), 0, <usize>ldi(bag.nBins, c) << 4);
  }
  // every row, or (half) the listed side's rows
  const count = half ? nListed : nT;
  for (let k = 0; k < count; k++) {
    const i = half ? ldi(listed, k) : k;
    const node = <i32>load<u8>(nodeOf + <usize>i);
    const gh = v128.load(ghRow + (<usize>i << 4));
    let col = bag.binsT + <usize>i;
    let hist = ghAt(node, u, 0);
    for (let c = 0; c < u; c++) {
      const o = hist + (<usize>load<u8>(col) << 4);
      v128.store(o, f64x2.add(v128.load(o), gh));
      col += <usize>nT;
      hist += GH_COL;
    }
  }
  if (half) {
    for (let v = 0; v < nodes; v += 2) {
      const summed = v + first, derived = v + 1 - first;
      for (let c = 0; c < u; c++) {
        const nb = ldi(bag.nBins, c);
        const d = ghAt(derived, u, c), r = ghAt(summed, u, c);
        const p = prevGhAt(v >> 1, u, c);
        for (let b = 0; b < nb; b++) {
          const off = <usize>b << 4;
          v128.store(d + off, f64x2.sub(v128.load(p + off), v128.load(r + off)));
        }
      }
    }
  }
}

@inline function leafScore(g: f64, h: f64, l2: f64): f64 { return g * g / (h + l2); }

// The best summed gain found so far for the level being cut (scanColumn beats it or not).
let bestLevelGain: f64 = 0;

/**
 * The best cut of column c over the level's nodes: scans the bins in order (numeric: bin order, missing first on
 * the left or last on the right; categorical: by the level's G/(H + CAT_SMOOTH)) with each node's running sums.
 * On a better gain than bestLevelGain, writes the cut's sides to CUT_SIDE and returns true.
 */
function scanColumn(bag: Bag, nodes: i32, c: i32, l2: f64): bool {
  const u = bag.u, nb = ldi(bag.nBins, c), kind = ldi(bag.kinds, c);
  // the level's whole histogram of c: order (categorical) and totals
  let k = 0, nTot = 0.0;
  for (let b = 0; b < nb; b++) {
    const n = rowsIn(c, b);
    nTot += n;
    if (kind == 0) { if (b > 0) { sti(ORDER, k, b); k++; } }
    else if (n > 0) {
      let g = 0.0, h = 0.0;
      for (let v = 0; v < nodes; v++) {
        const o = ghAt(v, u, c) + (<usize>b << 4);
        g += load<f64>(o); h += load<f64>(o + 8);
      }
      stf(RATIO, b, g / (h + CAT_SMOOTH)); sti(ORDER, k, b); k++;
    }
  }
  if (kind != 0) {
    for (let i = 1; i < k; i++) { // insertion sort by (ratio, bin): at most 256 bins
      const b = ldi(ORDER, i), r = ldf(RATIO, b);
      let j = i - 1;
      while (j >= 0 && (ldf(RATIO, ldi(ORDER, j)) > r || (ldf(RATIO, ldi(ORDER, j)) == r && ldi(ORDER, j) > b))) { sti(ORDER, j + 1, ldi(ORDER, j)); j--; }
      sti(ORDER, j + 1, b);
    }
  }
  let whole = 0.0;
  for (let v = 0; v < nodes; v++) {
    let g = 0.0, h = 0.0;
    const gh = ghAt(v, u, c);
    for (let b = 0; b < nb; b++) { g += load<f64>(gh + (<usize>b << 4)); h += load<f64>(gh + (<usize>b << 4) + 8); }
    stf(NODE_G, v, g); stf(NODE_H, v, h);
    whole += leafScore(g, h, l2);
  }
  let found = false, bestAt = -1, bestPass = 0;
  // numeric: missing (bin 0) on the left (pass 0) or on the right (pass 1); categorical: one pass. With no missing
  // rows both passes sum the same numbers (bin 0's are zeros) and pass 1 never beats pass 0: it is not run.
  const passes = kind == 0 && rowsIn(c, 0) > 0 ? 2 : 1;
  for (let pass = 0; pass < passes; pass++) {
    let nL = 0.0;
    for (let v = 0; v < nodes; v++) { stf(RUN_G, v, 0); stf(RUN_H, v, 0); }
    if (kind == 0 && pass == 0) {
      for (let v = 0; v < nodes; v++) {
        const o = ghAt(v, u, c);
        stf(RUN_G, v, load<f64>(o)); stf(RUN_H, v, load<f64>(o + 8));
      }
      nL = rowsIn(c, 0);
    }
    for (let i = 0; i < k - 1; i++) {
      const b = ldi(ORDER, i);
      const nb1 = rowsIn(c, b);
      for (let v = 0; v < nodes; v++) {
        const o = ghAt(v, u, c) + (<usize>b << 4);
        stf(RUN_G, v, ldf(RUN_G, v) + load<f64>(o)); stf(RUN_H, v, ldf(RUN_H, v) + load<f64>(o + 8));
      }
      nL += nb1;
      if (nb1 == 0) continue; // the same cut as the previous one
      if (nL < MIN_CHILD_ROWS || nTot - nL < MIN_CHILD_ROWS) continue;
      let gain = -whole;
      for (let v = 0; v < nodes; v++) {
        const gl = ldf(RUN_G, v), hl = ldf(RUN_H, v);
        gain += leafScore(gl, hl, l2) + leafScore(ldf(NODE_G, v) - gl, ldf(NODE_H, v) - hl, l2);
      }
      if (gain > bestLevelGain) { bestLevelGain = gain; found = true; bestAt = i; bestPass = pass; }
    }
  }
  if (!found) return false;
  // the column's best cut, written once: the bins up to it in ORDER go left
  memory.fill(CUT_SIDE, 1, <usize>BIN_STRIDE);
  for (let j = 0; j <= bestAt; j++) store<u8>(CUT_SIDE + <usize>ldi(ORDER, j), 0);
  if (kind == 0) store<u8>(CUT_SIDE, bestPass == 0 ? 0 : 1);
  if (kind != 0) {
    // a categorical bin no row of the level had joins the side of more hessian
    let hl = 0.0, hr = 0.0;
    for (let i = 0; i < k; i++) {
      const b = ldi(ORDER, i);
      let h = 0.0;
      for (let v = 0; v < nodes; v++) h += load<f64>(ghAt(v, u, c) + (<usize>b << 4) + 8);
      if (load<u8>(CUT_SIDE + <usize>b) == 0) hl += h; else hr += h;
    }
    for (let b = 0; b < BIN_STRIDE; b++) store<u8>(TRY_SIDE + <usize>b, 0);
    for (let i = 0; i < k; i++) store<u8>(TRY_SIDE + <usize>ldi(ORDER, i), 1);
    const empty: u8 = hl >= hr ? 0 : 1;
    for (let b = 0; b < BIN_STRIDE; b++) if (load<u8>(TRY_SIDE + <usize>b) == 0) store<u8>(CUT_SIDE + <usize>b, empty);
  }
  return true;
}

/** Writes CUT_SIDE as a mask (bit b set: bin b goes right). */
function writeMask(mask: usize): void {
  for (let w = 0; w < MASK_WORDS; w++) {
    let word: u32 = 0;
    for (let j = 0; j < 32; j++) if (load<u8>(CUT_SIDE + <usize>(w * 32 + j)) == 1) word |= (<u32>1) << <u32>j;
    stf(mask, w, <f64>word);
  }
}

/** Mean log loss over the even (half 0), odd (half 1) or all (half -1) validation rows. */
function halfLoss(s: usize, ys: usize, n: i32, half: i32): f64 {
  let sum = 0.0, k = 0;
  for (let i = half < 0 ? 0 : half; i < n; i += half < 0 ? 1 : 2) { sum += rowLogLoss(ldf(s, i), ldf(ys, i)); k++; }
  return k > 0 ? sum / <f64>k : 0;
}

/** The 53-bit draw below which a seeded draw (mix64 >> 11) falls with chance `fraction`. */
function drawBar(fraction: f64): u64 {
  return fraction >= 1.0 ? (<u64>1) << 53 : <u64>(fraction * 9007199254740992.0);
}

/** What boostTrees leaves: the kept trees (f64 [count * RAW_TREE], owned by the caller) and the gate's gain. */
export class TreeRun {
  trees: usize = 0;
  count: i32 = 0;
  gateGain: f64 = 0;
  rounds: i32 = 0;
}

/**
 * Boosts oblivious trees in one bag from its additive model's logits (`sT` training rows, `sV` validation rows;
 * `sV` is left at the kept round's logits). Each round: every training row's gradient and hessian from its odds,
 * then level after level the cut that gains most over the level's nodes; each leaf steps -lr G/(H + l2). Stops
 * when the validation rows of `stopHalf` (halfLoss) have not improved for `patience` rounds (patience 0: runs
 * maxRounds) and keeps the best round; `gateGain` is how much the trees lowered the odd validation rows' loss.
 */
export function boostTrees(
  bag: Bag, sT: usize, sV: usize, lr: f64, l2: f64, patience: i32, maxRounds: i32, stopHalf: i32 = 0, colFraction: f64 = 1.0,
): TreeRun {
  const u = bag.u, nT = bag.nT, nV = bag.nV, yT = bag.yT;
  const run = new TreeRun();
  const trees = allocF64(maxRounds * RAW_TREE);
  const eT = allocF64(nT), ghRow = allocF64(2 * nT), nodeOf = allocU8(nT), listed = allocI32(nT), cols = allocI32(u);
  for (let i = 0; i < nT; i++) stf(eT, i, Math.exp(ldf(sT, i)));
  levelGH = allocU8((LEAVES >> 1) * u * <i32>GH_COL);
  prevGH = allocU8((LEAVES >> 1) * u * <i32>GH_COL);
  const subtract = nT >= SUBTRACT_ROWS;
  binRows = allocF64(u * BIN_STRIDE);
  for (let c = 0; c < u; c++) {
    const col = bag.binsT + <usize>c * <usize>nT, cnt = binRows + (<usize>(c * BIN_STRIDE) << 3);
    for (let i = 0; i < nT; i++) { const oc = cnt + (<usize>load<u8>(col + <usize>i) << 3); store<f64>(oc, load<f64>(oc) + 1.0); }
  }
  const sVbest = allocF64(nV);
  memory.copy(sVbest, sV, <usize>nV << 3);
  const startGate = halfLoss(sV, bag.yV, nV, 1);
  let bestStop = halfLoss(sV, bag.yV, nV, stopHalf);
  let bestRound = 0, round = 0;
  // each row's gradient and hessian for the first round (later rounds take theirs as the rows step)
  for (let i = 0; i < nT; i++) {
    const e = ldf(eT, i);
    const p = e / (1.0 + e);
    const o = ghRow + (<usize>i << 4);
    store<f64>(o, p - ldf(yT, i));
    store<f64>(o + 8, p * (1.0 - p));
  }
  const sampleCols = colFraction < 1.0, colBar = drawBar(colFraction);
  while (round < maxRounds) {
    const roundSeed = mix64(bag.seed ^ (<u64>round * 0x9e3779b97f4a7c15));
    memory.fill(nodeOf, 0, <usize>nT);
    const t = trees + (<usize>(round * RAW_TREE) << 3);
    memory.fill(t, 0, <usize>RAW_TREE << 3);
    let levels = 0, nListed = 0, listedRight = true;
    for (let l = 0; l < TREE_DEPTH; l++) {
      const nodes = 1 << l;
      // the level's sample of columns (all of them without sampling), drawn from the bag's seed
      let nCols = 0;
      for (let c = 0; c < u; c++) {
        if (sampleCols && (mix64(roundSeed ^ (<u64>(l * u + c + 1) << 32)) >> 11) >= colBar) continue;
        sti(cols, nCols++, c);
      }
      fillLevel(bag, nodes, nodeOf, ghRow, subtract, listed, nListed, listedRight, cols, nCols);
      bestLevelGain = 0;
      let bestC = -1;
      for (let j = 0; j < nCols; j++) if (scanColumn(bag, nodes, ldi(cols, j), l2)) bestC = ldi(cols, j);
      stf(t, RT_COLS + l, <f64>bestC);
      nListed = 0;
      if (bestC < 0) { // every row goes left: none listed on the right, and each left node is its parent
        listedRight = true;
        for (let i = 0; i < nT; i++) store<u8>(nodeOf + <usize>i, load<u8>(nodeOf + <usize>i) << 1);
        continue;
      }
      levels++;
      writeMask(t + (<usize>(RT_MASKS + l * MASK_WORDS) << 3));
      // the level's rows going right, from the bag's rows a bin (every row is in one node of the level): the next
      // level sums the smaller side's rows (fillLevel)
      let rightRows = 0.0;
      for (let b = 0; b < ldi(bag.nBins, bestC); b++) if (load<u8>(CUT_SIDE + <usize>b) == 1) rightRows += rowsIn(bestC, b);
      listedRight = rightRows * 2.0 <= <f64>nT;
      const want: u8 = listedRight ? 1 : 0;
      const col = bag.binsT + <usize>bestC * <usize>nT;
      if (l + 1 == TREE_DEPTH) { // the last level: no level below reads a list
        for (let i = 0; i < nT; i++) store<u8>(nodeOf + <usize>i, (load<u8>(nodeOf + <usize>i) << 1) | load<u8>(CUT_SIDE + <usize>load<u8>(col + <usize>i)));
        continue;
      }
      for (let i = 0; i < nT; i++) {
        const side = load<u8>(CUT_SIDE + <usize>load<u8>(col + <usize>i));
        store<u8>(nodeOf + <usize>i, (load<u8>(nodeOf + <usize>i) << 1) | side);
        sti(listed, nListed, i); // kept only when the row went to the listed side
        nListed += <i32>(side == want);
      }
    }
    if (levels == 0 && !sampleCols) break; // nothing left to cut (with sampling: this round's columns had none)
    for (let k = 0; k < LEAVES; k++) { stf(NODE_G, k, 0); stf(NODE_H, k, 0); stf(t, RT_COVERS + k, 0); }
    for (let i = 0; i < nT; i++) {
      const leaf = ldb(nodeOf, i);
      const o = ghRow + (<usize>i << 4);
      stf(NODE_G, leaf, ldf(NODE_G, leaf) + load<f64>(o));
      stf(NODE_H, leaf, ldf(NODE_H, leaf) + load<f64>(o + 8));
      stf(t, RT_COVERS + leaf, ldf(t, RT_COVERS + leaf) + 1);
    }
    for (let k = 0; k < LEAVES; k++) {
      const v = ldf(NODE_H, k) > HESS_FLOOR ? -lr * ldf(NODE_G, k) / (ldf(NODE_H, k) + l2) : 0.0;
      stf(t, RT_LEAVES + k, v);
      stf(LEAF_MULT, k, Math.exp(v));
    }
    // step the rows: training odds by the leaf's factor (and from them the next round's gradients and hessians),
    // validation logits by its value
    for (let i = 0; i < nT; i++) {
      const e = ldf(eT, i) * ldf(LEAF_MULT, ldb(nodeOf, i));
      stf(eT, i, e);
      const p = e / (1.0 + e);
      const o = ghRow + (<usize>i << 4);
      store<f64>(o, p - ldf(yT, i));
      store<f64>(o + 8, p * (1.0 - p));
    }
    addRawTree(t, bag.binsV, nV, nV, sV);
    round++;
    const stop = halfLoss(sV, bag.yV, nV, stopHalf);
    if (patience <= 0 ? round == maxRounds : stop < bestStop) {
      bestStop = stop; bestRound = round;
      memory.copy(sVbest, sV, <usize>nV << 3);
    } else if (patience > 0 && round - bestRound >= patience) break;
  }
  memory.copy(sV, sVbest, <usize>nV << 3);
  run.trees = trees; run.count = bestRound; run.rounds = round;
  run.gateGain = startGate - halfLoss(sV, bag.yV, nV, 1); // the gate rows at the kept round
  release(listed); release(cols);
  release(levelGH); release(prevGH); release(binRows);
  levelGH = 0; prevGH = 0; binRows = 0;
  release(eT); release(ghRow); release(nodeOf); release(sVbest);
  return run;
}
