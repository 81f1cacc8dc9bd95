// The residual-tree stage of a fit (residual-trees.ts): its phase of tasks (one per bag), the bags' gates, and the
// held-out comparison that keeps the trees only when the model with them beats the additive model on the rows the
// fit already holds out (single split) or on every row's out-of-fold logit (cross-fitted). The state decided after
// it (fit.ts decide) is the one of the model served, with or without its trees, so the held-out test is unchanged.
import * as A from './abi';
import { ldf, stf, ldi, sti, ldb, stb, allocF64, allocI32, allocU8, release } from './mem';
import { FitState } from './fit-state';
import { PairSet, pairsKept } from './pairs';
import { buildBlock, PHASE_TREES, TREE_OUT_HEAD } from './tasks';
import { RAW_TREE, rawTreeMean, addRawTree } from './residual-trees';
import { rowLogLoss, clusteredMeanSe } from './stats';
import { rescale, outOfBagPlatt, crossTempered, bestTemperature, firstGatedBatch, foldPairAgree } from './bags';
import { BIN_STRIDE } from './binning';
import {
  TREE_CROSS_STOP_HALF, CROSS_FOLDS, TREE_AGREE, Z_TREES, TREE_MAX_TRAIN, TREE_MAX_ROUNDS,
  TREE_CROSS_ROUNDS, TREE_SERVE_WEIGHTS,
} from './tunables';

/**
 * Starts the tree phase (one task per bag, tasks.ts treeTask; a single split's in two batches, bags.ts
 * firstGatedBatch) unless the record has fewer than two usable columns or more than TREE_MAX_TRAIN training rows.
 * Each bag boosts on its own additive model: its main terms, and its kept pair terms, whose logits at every training
 * position go into the task block.
 */
export function startTrees(s: FitState): bool {
  if (s.u < 2 || s.nTrain > TREE_MAX_TRAIN) return false;
  const nBags = s.nBags, nTrain = s.nTrain;
  let anyPairs = s.pairs != null;
  for (let f = 0; f < s.foldPairs.length; f++) if (s.foldPairs[f] != null) anyPairs = true;
  let pairLogits: usize = 0;
  if (anyPairs) {
    pairLogits = allocF64(nBags * nTrain);
    let cellsOf: PairSet | null = null, cells: usize = 0;
    for (let bg = 0; bg < nBags; bg++) {
      const ps: PairSet | null = s.crossFit ? s.foldPairs[bg / s.bagsPerFold] : s.pairs;
      if (ps == null) continue;
      // every training position's cell of each term, once for all the bags that share the set
      if (ps !== cellsOf) {
        release(cells);
        cells = trainCells(s, ps);
        cellsOf = ps;
      }
      const j = s.crossFit ? bg % s.bagsPerFold : bg;
      const row = pairLogits + (<usize>bg * <usize>nTrain << 3);
      bagTermLogits(ps, j, cells, nTrain, row);
    }
    release(cells);
  }
  s.treeGains = allocF64(nBags);
  s.bagTrees = new Array<usize>(nBags);
  s.bagTreeCount = new Array<i32>(nBags);
  s.treeOob = new Array<usize>(nBags);
  for (let bg = 0; bg < nBags; bg++) { s.bagTrees[bg] = 0; s.bagTreeCount[bg] = 0; s.treeOob[bg] = 0; }
  buildBlock(s.ctx, PHASE_TREES, s.u, nTrain, s.crossFit, nBags, s.uKinds, s.uBins, s.yTrain, s.rowHash, s.foldOf,
    s.binsAll, s.n, s.trainRows, s.bagTerms, s.bagIntercepts, new Array<PairSet | null>(0), pairLogits);
  release(pairLogits);
  release(s.taskDone);
  s.taskDone = allocU8(nBags);
  s.tasksLeft = nBags;
  firstGatedBatch(s);
  return true;
}

/** Takes bag k's tree task output (tasks.ts layout); false when it does not fit. */
export function putTreeTask(s: FitState, k: i32, out: usize, len: i32): bool {
  if (len < TREE_OUT_HEAD) return false;
  const nV = <i32>ldf(out, 1), count = <i32>ldf(out, 2);
  if (nV != s.oobCount[k] || count < 0 || count > max(TREE_MAX_ROUNDS, TREE_CROSS_ROUNDS) || len != TREE_OUT_HEAD + count * RAW_TREE + nV) return false;
  stf(s.treeGains, k, ldf(out, 0));
  const trees = allocF64(count * RAW_TREE), logit = allocF64(nV);
  memory.copy(trees, out + (<usize>TREE_OUT_HEAD << 3), <usize>(count * RAW_TREE) << 3);
  memory.copy(logit, out + (<usize>(TREE_OUT_HEAD + count * RAW_TREE) << 3), <usize>nV << 3);
  s.bagTrees[k] = trees; s.bagTreeCount[k] = count; s.treeOob[k] = logit;
  return true;
}

/**
 * After every bag's trees: the bags' gates. A single split's trees stay candidates when TREE_AGREE of its bags see
 * their gate rows improve (and on the whole); the bags its second batch did not run (bags.ts nextGatedBatch) have a
 * gain of 0 and no trees, and the gate fails as it would have with them. A cross-fitted bag stops on all its few
 * validation rows and has no gate (TREE_CROSS_STOP_HALF): every fold model's trees are candidates, for the out-of-fold
 * test to judge.
 */
export function afterTrees(s: FitState): void {
  let tried = 0;
  for (let bg = 0; bg < s.nBags; bg++) tried += s.bagTreeCount[bg];
  s.out.setMetric(A.M_TREES_TRIED, <f64>tried);
  s.treeCandidate = allocU8(s.nBags);
  if (!s.crossFit) {
    if (pairsKept(s.treeGains, s.nBags, TREE_AGREE)) for (let bg = 0; bg < s.nBags; bg++) stb(s.treeCandidate, bg, 1);
    return;
  }
  for (let f = 0; f < CROSS_FOLDS; f++) {
    const bpf = s.bagsPerFold, bg0 = f * bpf;
    if (TREE_CROSS_STOP_HALF >= 0 && !pairsKept(s.treeGains + (<usize>bg0 << 3), bpf, foldPairAgree(bpf))) continue;
    for (let bg = bg0; bg < bg0 + bpf; bg++) stb(s.treeCandidate, bg, 1);
  }
}

/**
 * The bins of `m` rows of the full binned matrix (`rows`: i32 [m], their indices in it), gathered column by column
 * (u8 [c * m + j]; the caller releases) for addRawTree to add each tree over all of them. Every row's sum of a run
 * of bags' trees then adds, bag after bag and tree after tree, the same values in the same order as the readable
 * sum over those trees of rawTreeValue(tree, s.binsAll, s.n, row) (test/engine/probes/trees-probe.as.ts).
 */
function gatherBins(s: FitState, rows: usize, m: i32): usize {
  const bins = allocU8(s.u * m);
  for (let c = 0; c < s.u; c++) {
    const from = s.binsAll + <usize>c * <usize>s.n, to = bins + <usize>c * <usize>m;
    for (let j = 0; j < m; j++) store<u8>(to + <usize>j, load<u8>(from + <usize>ldi(rows, j)));
  }
  return bins;
}

/** The held-out rows' bins (gatherBins). */
function heldBins(s: FitState): usize {
  return gatherBins(s, s.heldRows, s.nHeld);
}

/**
 * Cross-fitted: each row's sum of its fold's bags' trees (f64 [nHeld]; the caller releases), for the folds whose
 * trees are candidates (0 elsewhere): a fold's rows gathered (gatherBins), and addRawTree adds each tree over all of
 * them, bag after bag and tree after tree.
 */
function foldTreeSums(s: FitState): usize {
  const n = s.nHeld;
  const sums = allocF64(n), idx = allocI32(n), rows = allocI32(n), acc = allocF64(n);
  for (let f = 0; f < CROSS_FOLDS; f++) {
    const bg0 = f * s.bagsPerFold;
    if (ldb(s.treeCandidate, bg0) == 0) continue;
    let m = 0;
    for (let q = 0; q < n; q++) if (ldb(s.foldOf, q) == f) { sti(idx, m, q); sti(rows, m, ldi(s.trainRows, q)); m++; }
    const bins = gatherBins(s, rows, m);
    memory.fill(acc, 0, <usize>m << 3);
    for (let bg = bg0; bg < bg0 + s.bagsPerFold; bg++) {
      for (let t = 0; t < s.bagTreeCount[bg]; t++) addRawTree(s.bagTrees[bg] + (<usize>(t * RAW_TREE) << 3), bins, m, m, acc);
    }
    release(bins);
    for (let j = 0; j < m; j++) stf(sums, ldi(idx, j), ldf(acc, j));
  }
  release(idx); release(rows); release(acc);
  return sums;
}

/**
 * Paired one-sided z that logits `x1` beat `x0` on the held-out rows' log loss: the mean of each row's loss under
 * x0 minus under x1 over its standard error (the larger of the row-level and the per-case one when a case has
 * several held-out rows, as fit.ts decide takes them).
 */
function pairedZ(s: FitState, x0: usize, x1: usize): f64 {
  const n = s.nHeld;
  const d = allocF64(n > 0 ? n : 1);
  const caseOf = allocI32(n > 0 ? n : 1), caseId = allocI32(s.nEntities);
  for (let e = 0; e < s.nEntities; e++) sti(caseId, e, -1);
  let nCases = 0, mean = 0.0;
  for (let q = 0; q < n; q++) {
    const r = ldi(s.heldRows, q), y = ldf(s.outcome, r);
    const v = rowLogLoss(ldf(x0, q), y) - rowLogLoss(ldf(x1, q), y);
    stf(d, q, v); mean += v;
    const e = ldi(s.entityOfRow, r);
    if (ldi(caseId, e) < 0) { sti(caseId, e, nCases); nCases++; }
    sti(caseOf, q, ldi(caseId, e));
  }
  mean /= <f64>n;
  let ss = 0.0;
  for (let q = 0; q < n; q++) { const v = ldf(d, q) - mean; ss += v * v; }
  let se = n > 1 ? Math.sqrt(ss / <f64>(n - 1)) / Math.sqrt(<f64>n) : 0;
  if (nCases < n) { const seC = clusteredMeanSe(d, n, caseOf, nCases, mean); if (seC > se) se = seC; }
  release(d); release(caseOf); release(caseId);
  return se > 0 ? mean / se : (mean > 0 ? 1e9 : 0);
}

/** The candidate bags' trees become the served ones, each leaf weighted `weight`. */
function serveCandidates(s: FitState, weight: f64): void {
  let count = 0;
  for (let bg = 0; bg < s.nBags; bg++) if (ldb(s.treeCandidate, bg) != 0) count += s.bagTreeCount[bg];
  const served = allocF64(count * RAW_TREE);
  let at = 0, meanSum = 0.0;
  for (let bg = 0; bg < s.nBags; bg++) {
    if (ldb(s.treeCandidate, bg) == 0) continue;
    const c = s.bagTreeCount[bg];
    memory.copy(served + (<usize>(at * RAW_TREE) << 3), s.bagTrees[bg], <usize>(c * RAW_TREE) << 3);
    for (let t = 0; t < c; t++) meanSum += rawTreeMean(s.bagTrees[bg] + (<usize>(t * RAW_TREE) << 3));
    at += c;
  }
  s.servedTrees = served; s.servedCount = count; s.treeWeight = weight; s.treeMeanSum = meanSum;
  s.out.setMetric(A.M_TREES, <f64>count);
}

/**
 * Cross-fitted, after finishFolds: each row's out-of-fold logit with its fold model's candidate trees (the mean of
 * the fold's bags' tree sums) against the one without, both scaled as fit.ts decide tests them (bags.ts
 * crossTempered). Kept when the paired z of the log loss reaches Z_TREES: the
 * out-of-fold logits then include them (the decision tests the fold models with them) and each tree joins the
 * served model at w / (CROSS_FOLDS x s.bagsPerFold), w chosen on the out-of-fold rows (servedTreeWeight).
 */
export function keepFoldTrees(s: FitState): void {
  if (s.treeCandidate == 0) return;
  let any = false;
  for (let bg = 0; bg < s.nBags; bg++) if (ldb(s.treeCandidate, bg) != 0) any = true;
  if (!any) return;
  const n = s.nHeld;
  const x1 = allocF64(n), sums = foldTreeSums(s);
  for (let q = 0; q < n; q++) {
    const f = ldb(s.foldOf, q), bg0 = f * s.bagsPerFold;
    const extra = ldb(s.treeCandidate, bg0) != 0 ? ldf(sums, q) / <f64>s.bagsPerFold : 0.0;
    stf(x1, q, ldf(s.heldLogit, q) + extra);
  }
  release(sums);
  // compared as the decision tests them: each scaled by the temperature the other folds choose for it
  const t0 = crossTempered(s, s.heldLogit), t1 = crossTempered(s, x1);
  if (pairedZ(s, t0, t1) >= Z_TREES) {
    // the served weight of the trees, and the out-of-fold logits the served temperature is chosen on
    const w = servedTreeWeight(s, s.heldLogit, x1);
    if (w != 1.0) {
      const xw = allocF64(n);
      for (let q = 0; q < n; q++) stf(xw, q, ldf(s.heldLogit, q) + w * (ldf(x1, q) - ldf(s.heldLogit, q)));
      s.temperLogit = xw;
    }
    memory.copy(s.heldLogit, x1, <usize>n << 3);
    serveCandidates(s, w / <f64>(CROSS_FOLDS * s.bagsPerFold));
  }
  release(x1); release(t0); release(t1);
}

/**
 * Cross-fitted, trees kept: their weight w in the served model (tunables.ts TREE_SERVE_WEIGHTS), the one whose
 * out-of-fold logits x0 + w (x1 - x0), at their own best temperature (bags.ts temper), have the lowest log loss;
 * 1 unless another is strictly lower. Every out-of-fold logit comes from a fold model that never saw its row, so
 * w is chosen on rows no tree learned from; the decision still tests the trees at weight 1.
 */
function servedTreeWeight(s: FitState, x0: usize, x1: usize): f64 {
  const n = s.nHeld, xw = allocF64(n);
  let best = 1.0, bestLoss = Infinity;
  for (let i = 0; i < TREE_SERVE_WEIGHTS.length; i++) {
    const w = TREE_SERVE_WEIGHTS[i];
    for (let q = 0; q < n; q++) stf(xw, q, ldf(x0, q) + w * (ldf(x1, q) - ldf(x0, q)));
    const t = bestTemperature(xw, s.yTrain, n);
    let loss = 0.0;
    for (let q = 0; q < n; q++) loss += rowLogLoss(t * ldf(xw, q), ldf(s.yTrain, q));
    if (loss < bestLoss) { bestLoss = loss; best = w; }
  }
  release(xw);
  return best;
}

/** The intercept's share of the served trees (their mean values, weighted): combine adds it before any rescale. */
export function treeInterceptShare(s: FitState): f64 {
  return s.servedCount > 0 ? s.treeWeight * s.treeMeanSum : 0;
}

/**
 * A single split: Platt scaling (slope and offset, Platt's targets) of the out-of-bag logits (mains,
 * plus pairs when kept), always applied when the slope is positive; the held-out part then tests the
 * calibrated model. Boosting stopped early on a bag's validation rows can leave the chances too confident
 * (flights: a test slope of 0.72-0.81) or too timid; the slope says which, and scaling keeps the terms
 * additive and the ranking unchanged.
 *
 * With candidate trees, both variants (with and without them) are scaled by their own out-of-bag logits and score
 * the held-out rows; the trees are kept when the paired z of the held-out log loss reaches Z_TREES, and the
 * chosen variant's scaling is applied to the model.
 */
export function calibrateSingle(s: FitState): void {
  const cal0 = outOfBagPlatt(s, s.oobLogit);
  let keep = false;
  let cal1 = cal0;
  if (s.treeCandidate != 0 && ldb(s.treeCandidate, 0) != 0) {
    cal1 = outOfBagPlatt(s, s.treeOob);
    const n = s.nHeld, u = s.u, binsAll = s.binsAll, terms = s.terms, pairs = s.pairs;
    const x0 = allocF64(n), x1 = allocF64(n), trees = allocF64(n), bins = heldBins(s);
    for (let bg = 0; bg < s.nBags; bg++) {
      for (let t = 0; t < s.bagTreeCount[bg]; t++) addRawTree(s.bagTrees[bg] + (<usize>(t * RAW_TREE) << 3), bins, n, n, trees);
    }
    release(bins);
    const a0 = cal0.ok && cal0.b > 0 ? cal0.a : 0.0, b0 = cal0.ok && cal0.b > 0 ? cal0.b : 1.0;
    const a1 = cal1.ok && cal1.b > 0 ? cal1.a : 0.0, b1 = cal1.ok && cal1.b > 0 ? cal1.b : 1.0;
    for (let q = 0; q < n; q++) {
      const r = ldi(s.heldRows, q);
      let sum = s.intercept;
      for (let c = 0; c < u; c++) sum += ldf(terms, c * BIN_STRIDE + <i32>load<u8>(binsAll + <usize>c * <usize>s.n + <usize>r));
      if (pairs != null) sum += pairs.logitOfRow(binsAll, s.n, r);
      stf(x0, q, a0 + b0 * sum);
      stf(x1, q, a1 + b1 * (sum + ldf(trees, q) / <f64>s.nBags));
    }
    keep = pairedZ(s, x0, x1) >= Z_TREES;
    release(x0); release(x1); release(trees);
  }
  if (keep) {
    serveCandidates(s, 1.0 / <f64>s.nBags);
    s.intercept += treeInterceptShare(s);
  }
  const cal = keep ? cal1 : cal0;
  if (cal.ok) {
    s.out.setMetric(A.M_CAL_SLOPE, cal.b);
    if (cal.b > 0) rescale(s, cal);
  }
}

/**
 * The served trees' part of each held-out row's logit (f64 [nHeld], weighted values less the share in the
 * intercept; the caller releases), or 0 when no trees are served.
 */
export function servedTreeLogits(s: FitState): usize {
  if (s.servedCount == 0) return 0;
  const n = s.nHeld, sums = allocF64(n), bins = heldBins(s);
  for (let t = 0; t < s.servedCount; t++) addRawTree(s.servedTrees + (<usize>(t * RAW_TREE) << 3), bins, n, n, sums);
  release(bins);
  for (let q = 0; q < n; q++) stf(sums, q, s.treeWeight * (ldf(sums, q) - s.treeMeanSum));
  return sums;
}

/** Each term's cell (i32 [p * nTrain + q]) at every training position q of the fit; the caller releases. */
function trainCells(s: FitState, ps: PairSet): usize {
  const nTrain = s.nTrain;
  const cells = allocI32(ps.count * nTrain);
  for (let p = 0; p < ps.count; p++) {
    const to = cells + (<usize>p * <usize>nTrain << 2);
    for (let q = 0; q < nTrain; q++) sti(to, q, ps.rowCell(p, s.binsAll, s.n, ldi(s.trainRows, q)));
  }
  return cells;
}

/**
 * Bag j's term logits at every training position into `row` (f64 [nTrain]), term after term: each position adds
 * the same values in the same order as PairSet.bagLogitOfRow (0, then term 0's, term 1's, ...), so the same bits.
 */
function bagTermLogits(ps: PairSet, j: i32, cells: usize, nTrain: i32, row: usize): void {
  memory.fill(row, 0, <usize>nTrain << 3);
  for (let p = 0; p < ps.count; p++) {
    const t = ps.tableOf(j, p), from = cells + (<usize>p * <usize>nTrain << 2);
    for (let q = 0; q < nTrain; q++) {
      const o = row + (<usize>q << 3);
      store<f64>(o, load<f64>(o) + load<f64>(t + (<usize>load<i32>(from + (<usize>q << 2)) << 3)));
    }
  }
}
