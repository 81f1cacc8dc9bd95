// The served model as one flat f64 array (layout in abi.ts), and scoring with per-column
// contributions and reasons (docs/design/engine.md#scoring).
import * as A from './abi';
import { ldf, stf, ldi, sti, allocF64 } from './mem';
import { numericBin, categoricalBin } from './binning';
import { BIN_STRIDE } from './binning';
import { PairSet } from './pairs';
import { sigmoid } from './stats';
import { FitState } from './fit-state';
import { PAIR_COARSE, REASON_MIN_LOG_ODDS, REASON_STRONG_LOG_ODDS, REASON_SIGN_AGREEMENT } from './tunables';
import { RAW_TREE, SERVED_TREE, ST_COLS, ST_MASKS, ST_FEATURES, ST_PHI, TREE_DEPTH, serveTree, goesRight } from './residual-trees';

/** Writes the model array of a finished fit into s.out; the column order is the host's input order. */
export function buildModel(s: FitState): void {
  const m = s.m, kinds = s.kinds, colBins = s.colBins, usableIdx = s.usableIdx, u = s.u, uBins = s.uBins;
  const terms = s.terms, posBags = s.posBags, negBags = s.negBags, counts = s.counts;
  const bins = s.binsAll, n = s.n, trainRows = s.trainRows, nTrain = s.nTrain;
  // the pair terms served: a single split's kept pairs, or each cross-fitted fold model's (own coarse bins each)
  const sets = new Array<PairSet>(0);
  if (s.pairs != null) sets.push(s.pairs!);
  for (let f = 0; f < s.foldPairs.length; f++) if (s.foldPairs[f] != null) sets.push(s.foldPairs[f]!);
  let nPairs = 0;
  for (let i = 0; i < sets.length; i++) nPairs += sets[i].count;
  const forest = s.servedCount > 0; // the residual trees kept: one more section, after the pairs
  if (forest) nPairs++;
  // size
  let size = A.MODEL_HEADER + m + nPairs;
  const usableOf = new Array<i32>(m);
  for (let j = 0; j < m; j++) usableOf[j] = -1;
  for (let c = 0; c < u; c++) usableOf[ldi(usableIdx, c)] = c;
  for (let j = 0; j < m; j++) {
    size += 3;
    if (usableOf[j] >= 0) size += colBins[j].nAux + 6 * colBins[j].nBins;
  }
  for (let i = 0; i < sets.length; i++) {
    for (let p = 0; p < sets[i].count; p++) {
      const a = sets[i].colA(p), b = sets[i].colB(p);
      size += sets[i].isTree(p) ? 5 + sets[i].cellCount(p) : 4 + ldi(uBins, a) + ldi(uBins, b) + sets[i].cellCount(p);
    }
  }
  if (forest) size += 2 + s.servedCount * A.FOREST_TREE;
  const out = allocF64(size);
  s.out.model = out; s.out.modelLen = size;
  stf(out, 0, A.MODEL_MAGIC); stf(out, 1, <f64>m); stf(out, 2, s.intercept); stf(out, 3, <f64>nPairs);
  stf(out, 4, <f64>s.nBags); stf(out, 5, s.out.metric(A.M_CAL_SLOPE));
  let at = A.MODEL_HEADER + m + nPairs;
  for (let j = 0; j < m; j++) {
    stf(out, A.MODEL_HEADER + j, <f64>at);
    const c = usableOf[j];
    if (c < 0) { stf(out, at, 2); stf(out, at + 1, 0); stf(out, at + 2, 0); at += 3; continue; }
    const cb = colBins[j];
    const nb = cb.nBins;
    stf(out, at, ldi(kinds, j) == A.KIND_NUMERIC ? 0 : 1); stf(out, at + 1, <f64>nb); stf(out, at + 2, <f64>cb.nAux);
    at += 3;
    for (let i = 0; i < cb.nAux; i++) stf(out, at + i, ldf(cb.aux, i));
    at += cb.nAux;
    const base = at;
    for (let b = 0; b < nb; b++) {
      const o = c * BIN_STRIDE + b;
      stf(out, base + A.COL_TERM * nb + b, ldf(terms, o));
      stf(out, base + A.COL_POS * nb + b, ldf(posBags, o));
      stf(out, base + A.COL_NEG * nb + b, ldf(negBags, o));
      stf(out, base + A.COL_COUNT * nb + b, ldf(counts, o));
      stf(out, base + A.COL_MIN * nb + b, NaN);
      stf(out, base + A.COL_MAX * nb + b, NaN);
    }
    if (ldi(kinds, j) == A.KIND_NUMERIC) {
      const vals = <usize>ldi(s.data, j);
      for (let q = 0; q < nTrain; q++) {
        const r = ldi(trainRows, q);
        const v = ldf(vals, r);
        if (v != v) continue;
        const b = <i32>load<u8>(bins + <usize>c * <usize>n + <usize>r);
        const lo = base + A.COL_MIN * nb + b, hi = base + A.COL_MAX * nb + b;
        const cur = ldf(out, lo);
        if (cur != cur || v < cur) stf(out, lo, v);
        const cur2 = ldf(out, hi);
        if (cur2 != cur2 || v > cur2) stf(out, hi, v);
      }
    }
    at += 6 * nb;
  }
  let entry = 0;
  for (let i = 0; i < sets.length; i++) for (let p = 0; p < sets[i].count; p++) {
    const pairs = sets[i];
    stf(out, A.MODEL_HEADER + m + entry, <f64>at);
    entry++;
    const a = pairs.colA(p), b = pairs.colB(p);
    const na = ldi(uBins, a), nb = ldi(uBins, b);
    if (pairs.isTree(p)) {
      // a tree term: [-1 - a, b, c, stride, c's bins], then its cells ((a's bin x stride + b's bin) x c's bins + c's bin)
      const c = pairs.colC(p);
      stf(out, at, <f64>(-1 - ldi(usableIdx, a))); stf(out, at + 1, <f64>ldi(usableIdx, b)); stf(out, at + 2, <f64>ldi(usableIdx, c));
      stf(out, at + 3, <f64>pairs.fineStride(p)); stf(out, at + 4, <f64>ldi(uBins, c));
      at += 5;
      const f = pairs.finalOf(p);
      const cells = pairs.cellCount(p);
      for (let o = 0; o < cells; o++) stf(out, at + o, ldf(f, o));
      at += cells;
      continue;
    }
    stf(out, at, <f64>ldi(usableIdx, a)); stf(out, at + 1, <f64>ldi(usableIdx, b));
    // a full-resolution pair's table is its fine cells (na x nb, each fine bin its own row or column)
    const full = pairs.fineStride(p) > 0;
    const cj = full ? na : PAIR_COARSE, ck = full ? nb : PAIR_COARSE;
    stf(out, at + 2, <f64>cj); stf(out, at + 3, <f64>ck);
    at += 4;
    for (let x = 0; x < na; x++) stf(out, at + x, <f64>(full ? x : pairs.coarse(a, x)));
    at += na;
    for (let x = 0; x < nb; x++) stf(out, at + x, <f64>(full ? x : pairs.coarse(b, x)));
    at += nb;
    const f = pairs.finalOf(p);
    const cells = pairs.cellCount(p);
    for (let o = 0; o < cells; o++) stf(out, at + o, ldf(f, o));
    at += cells;
  }
  if (forest) {
    stf(out, A.MODEL_HEADER + m + entry, <f64>at);
    stf(out, at, A.MODEL_FOREST); stf(out, at + 1, <f64>s.servedCount);
    at += 2;
    for (let t = 0; t < s.servedCount; t++) {
      serveTree(s.servedTrees + (<usize>(t * RAW_TREE) << 3), usableIdx, s.treeWeight, out + (<usize>at << 3));
      at += A.FOREST_TREE;
    }
  }
}

/**
 * Adds the forest's contributions (its section at `off`, abi.ts): each tree's Shapley values of the case's pattern
 * of sides at its levels' cuts (residual-trees.ts serveTree), to the tree's columns.
 */
function addForest(model: usize, off: i32, m: i32, nRows: i32, outBins: usize, outContrib: usize): void {
  const nTrees = <i32>ldf(model, off + 1);
  for (let t = 0; t < nTrees; t++) {
    const tree = model + (<usize>(off + 2 + t * SERVED_TREE) << 3);
    const phi = tree + (<usize>ST_PHI << 3);
    for (let r = 0; r < nRows; r++) {
      let sides = 0;
      for (let l = 0; l < TREE_DEPTH; l++) {
        const c = <i32>ldf(tree, ST_COLS + l);
        sides = (sides << 1) | (c < 0 ? 0 : goesRight(tree + (<usize>(ST_MASKS + l * 8) << 3), ldi(outBins, r * m + c)));
      }
      const row = phi + (<usize>(sides * TREE_DEPTH) << 3);
      for (let k = 0; k < TREE_DEPTH; k++) {
        const f = <i32>ldf(tree, ST_FEATURES + k);
        if (f < 0) break;
        stf(outContrib, r * m + f, ldf(outContrib, r * m + f) + ldf(row, k));
      }
    }
  }
}

/** Adds a tree term's contributions (its entry at `off`, layout in buildModel): a third of its cell to each column. */
function addTreeTerm(model: usize, off: i32, m: i32, nRows: i32, outBins: usize, outContrib: usize): void {
  const a = <i32>(-1 - ldf(model, off)), b = <i32>ldf(model, off + 1), c = <i32>ldf(model, off + 2);
  const stride = <i32>ldf(model, off + 3), nC = <i32>ldf(model, off + 4);
  const table = off + 5;
  for (let r = 0; r < nRows; r++) {
    const o = (ldi(outBins, r * m + a) * stride + ldi(outBins, r * m + b)) * nC + ldi(outBins, r * m + c);
    const third = ldf(model, table + o) / 3;
    stf(outContrib, r * m + a, ldf(outContrib, r * m + a) + third);
    stf(outContrib, r * m + b, ldf(outContrib, r * m + b) + third);
    stf(outContrib, r * m + c, ldf(outContrib, r * m + c) + third);
  }
}

/** Checks a model array's header and offsets; returns false when it is not a model. */
export function checkModel(model: usize, len: i32): bool {
  if (len < A.MODEL_HEADER) return false;
  if (ldf(model, 0) != A.MODEL_MAGIC) return false;
  const m = <i32>ldf(model, 1), nPairs = <i32>ldf(model, 3);
  if (m < 0 || nPairs < 0 || A.MODEL_HEADER + m + nPairs > len) return false;
  for (let j = 0; j < m + nPairs; j++) {
    const off = <i32>ldf(model, A.MODEL_HEADER + j);
    if (off < 0 || off >= len) return false;
    if (j >= m && ldf(model, off) == A.MODEL_FOREST && (off + 2 > len || off + 2 + <i32>ldf(model, off + 1) * A.FOREST_TREE > len)) return false;
  }
  return true;
}

/**
 * Scores nRows cases. `cols` holds one pointer per model column (f64 values for numeric, i32
 * codes for categorical, 0 for unused columns). Writes p, each column's contribution and bin,
 * and up to four reasons per row (column index or -1, strength code with sign = direction).
 * Column by column first (bins and terms, tight loops over one column's cases), then pairs, then
 * each row's logit and reasons; the per-column layout is read once, not per row.
 */
export function scoreRows(model: usize, len: i32, nRows: i32, cols: usize, outP: usize, outContrib: usize,
  outBins: usize, outReasons: usize, outStrength: usize): i32 {
  if (!checkModel(model, len)) return A.ERR_BAD_MODEL;
  const m = <i32>ldf(model, 1), nPairs = <i32>ldf(model, 3), nBags = ldf(model, 4);
  const intercept = ldf(model, 2);
  if (outContrib == 0 || outBins == 0) return A.ERR_BAD_INPUT;
  // 1. bins and main-term contributions, one column at a time
  for (let j = 0; j < m; j++) {
    const off = <i32>ldf(model, A.MODEL_HEADER + j);
    const kind = <i32>ldf(model, off);
    if (kind == 2) {
      for (let r = 0; r < nRows; r++) { sti(outBins, r * m + j, -1); stf(outContrib, r * m + j, 0); }
      continue;
    }
    const p = <usize>ldi(cols, j);
    if (p == 0) return A.ERR_BAD_INPUT;
    const nb = <i32>ldf(model, off + 1), nAux = <i32>ldf(model, off + 2);
    const aux = model + (<usize>(off + 3) << 3);
    const term = model + (<usize>(off + 3 + nAux + A.COL_TERM * nb) << 3);
    for (let r = 0; r < nRows; r++) {
      const b = kind == 0 ? numericBin(ldf(p, r), aux, nAux) : categoricalBin(ldi(p, r), aux, nAux);
      sti(outBins, r * m + j, b);
      stf(outContrib, r * m + j, load<f64>(term + (<usize>b << 3)));
    }
  }
  // 2. pair terms: half of each to both of its columns; tree terms: a third to each of their three; residual
  // trees: each its exact Shapley values
  for (let q = 0; q < nPairs; q++) {
    const off = <i32>ldf(model, A.MODEL_HEADER + m + q);
    if (ldf(model, off) == A.MODEL_FOREST) { addForest(model, off, m, nRows, outBins, outContrib); continue; }
    if (ldf(model, off) < 0) { addTreeTerm(model, off, m, nRows, outBins, outContrib); continue; }
    const a = <i32>ldf(model, off), b = <i32>ldf(model, off + 1);
    const ck = <i32>ldf(model, off + 3);
    const na = <i32>ldf(model, <i32>ldf(model, A.MODEL_HEADER + a) + 1);
    const nbB = <i32>ldf(model, <i32>ldf(model, A.MODEL_HEADER + b) + 1);
    for (let r = 0; r < nRows; r++) {
      const ia = <i32>ldf(model, off + 4 + ldi(outBins, r * m + a));
      const ib = <i32>ldf(model, off + 4 + na + ldi(outBins, r * m + b));
      const half = 0.5 * ldf(model, off + 4 + na + nbB + ia * ck + ib);
      stf(outContrib, r * m + a, ldf(outContrib, r * m + a) + half);
      stf(outContrib, r * m + b, ldf(outContrib, r * m + b) + half);
    }
  }
  // 3. each row: the logit (intercept + contributions, in column order) and its reasons
  for (let r = 0; r < nRows; r++) {
    let s = intercept;
    for (let j = 0; j < m; j++) s += ldf(outContrib, r * m + j);
    stf(outP, r, sigmoid(s));
    // reasons: |contribution| >= ln 1.25 with a sign most bags agree on; strongest first, ties by column
    let nr = 0;
    for (let k = 0; k < 4; k++) { sti(outReasons, r * 4 + k, -1); sti(outStrength, r * 4 + k, 0); }
    for (let j = 0; j < m; j++) {
      const cj = ldf(outContrib, r * m + j);
      const bin = ldi(outBins, r * m + j);
      if (bin < 0 || Math.abs(cj) < REASON_MIN_LOG_ODDS) continue;
      const off = <i32>ldf(model, A.MODEL_HEADER + j);
      const nb = <i32>ldf(model, off + 1), nAux = <i32>ldf(model, off + 2);
      const base = off + 3 + nAux;
      const bagsSame = cj > 0 ? ldf(model, base + A.COL_POS * nb + bin) : ldf(model, base + A.COL_NEG * nb + bin);
      if (bagsSame < REASON_SIGN_AGREEMENT * nBags) continue;
      // insert into the top-4 list
      let at = nr < 4 ? nr : 4;
      while (at > 0) {
        const prev = ldi(outReasons, r * 4 + at - 1);
        if (Math.abs(ldf(outContrib, r * m + prev)) >= Math.abs(cj)) break;
        if (at < 4) { sti(outReasons, r * 4 + at, prev); sti(outStrength, r * 4 + at, ldi(outStrength, r * 4 + at - 1)); }
        at--;
      }
      if (at < 4) {
        sti(outReasons, r * 4 + at, j);
        const strength = Math.abs(cj) >= REASON_STRONG_LOG_ODDS ? A.STRONG : A.MODERATE;
        sti(outStrength, r * 4 + at, cj > 0 ? strength : -strength);
        if (nr < 4) nr++;
      }
    }
  }
  return A.OK;
}
