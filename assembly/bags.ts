// The model steps of a fit (docs/design/engine.md#steps) over its FitState: bags (cross-fitted: one
// calibrated fold model per fold, scoring its own rows), gated pairs, combining the bags into one
// additive model, and the calibration check of a single split.
import * as A from './abi';
import { ldf, stf, ldi, sti, ldb, stb, allocF64, allocI32, allocU8, release } from './mem';
import { BIN_STRIDE } from './binning';
import { fitPlatt, LogisticFit, sigmoid } from './stats';
import { selectPairs, pairsKept, PairSet } from './pairs';
import { FitState } from './fit-state';
import { reportProgress } from './progress';
import { buildBlock, setTaskRange, PHASE_BAGS, PHASE_PAIRS, PHASE_TREES, BAG_OUT_HEAD, PAIR_OUT_HEAD } from './tasks';
import { putTreeTask, treeInterceptShare, servedTreeLogits } from './tree-stage';
import { N_BAGS, PAIR_MIN_ROWS, CROSS_FOLDS, BAGS_PER_FOLD, CROSS_PAIRS, CROSS_PAIR_AGREE, TEMPER_LOW,
  TEMPER_HIGH, GATE_FIRST_BATCH } from './tunables';

// ---- 5-6. bags ----

/**
 * Sets up the bag phase: one task per bag (tasks.ts runTaskOf). A single split: N_BAGS bags on the
 * training part. Cross-fitted (small and narrow records): fold f's model is s.bagsPerFold bags boosted on the
 * other folds (bags f * s.bagsPerFold ...), calibrated on its own bags' out-of-bag rows (afterBags), and it
 * alone scores fold f's rows. The model served averages the fold models' logits; log loss is convex in
 * the logit, so on new rows it does no worse on average than the fold models whose held-out log loss
 * is tested.
 */
export function startBags(s: FitState): void {
  const nBags = s.crossFit ? CROSS_FOLDS * s.bagsPerFold : N_BAGS;
  s.nBags = nBags;
  s.bagTerms = allocF64(nBags * s.u * BIN_STRIDE);
  s.bagIntercepts = allocF64(nBags);
  s.bagRounds = allocF64(nBags);
  s.oobIdx = new Array<usize>(nBags);
  s.oobLogit = new Array<usize>(nBags);
  s.oobCount = new Array<i32>(nBags);
  for (let bg = 0; bg < nBags; bg++) { s.oobIdx[bg] = 0; s.oobLogit[bg] = 0; s.oobCount[bg] = 0; }
  s.heldLogit = allocF64(s.nHeld > 0 ? s.nHeld : 1);
  s.heldBase = allocF64(s.nHeld > 0 ? s.nHeld : 1);
  reportProgress(A.P_BAG, 0, nBags);
  startPhase(s, PHASE_BAGS, new Array<PairSet | null>(0));
}

/** Builds the task block of a phase and clears its bookkeeping. */
function startPhase(s: FitState, phase: i32, pairs: Array<PairSet | null>): void {
  buildBlock(s.ctx, phase, s.u, s.nTrain, s.crossFit, s.nBags, s.uKinds, s.uBins, s.yTrain, s.rowHash, s.foldOf,
    s.binsAll, s.n, s.trainRows, s.bagTerms, s.bagIntercepts, pairs);
  release(s.taskDone);
  s.taskDone = allocU8(s.nBags);
  s.tasksLeft = s.nBags;
}

/**
 * A single split's gated phase (pairs, trees) starts with its first GATE_FIRST_BATCH bags (tasks.ts setTaskRange);
 * nextGatedBatch gives it the rest. A cross-fitted phase runs every bag at once.
 */
export function firstGatedBatch(s: FitState): void {
  if (s.crossFit || GATE_FIRST_BATCH >= s.nBags) return;
  setTaskRange(s.ctx, 0, GATE_FIRST_BATCH);
  s.tasksLeft = GATE_FIRST_BATCH;
}

/**
 * After a batch of a single split's gated phase: the rest of its bags as the next batch (true), unless every bag is
 * in or the gate can no longer pass (false). The gate (pairs.ts pairsKept) needs `agree` bags whose gain is above 0,
 * and their total above 0; once more than nBags - agree of the bags in have a gain of 0 or less, no gains of the
 * others can pass it, so their tasks are not run: their gains stay 0 (a failure to the gate, which fails as it would
 * have) and nothing else of theirs is read when the gate fails (afterPairs frees the candidate pairs, afterTrees
 * makes no tree a candidate). The batches depend on the bags' results alone, never on which worker finished first.
 */
export function nextGatedBatch(s: FitState, gains: usize, agree: i32): bool {
  if (s.crossFit) return false;
  const done = s.ctx.first + s.ctx.tasks;
  if (done >= s.nBags) return false;
  let failed = 0;
  for (let bg = 0; bg < done; bg++) if (!(ldf(gains, bg) > 0)) failed++;
  if (failed > s.nBags - agree) return false;
  setTaskRange(s.ctx, done, s.nBags - done);
  s.tasksLeft = s.nBags - done;
  return true;
}

/**
 * Takes task k's output (tasks.ts layouts) into the fit. Returns false when the output does not fit the
 * phase (wrong length, a task put twice): the host then fails the fit.
 */
export function putTask(s: FitState, k: i32, out: usize, len: i32): bool {
  const ctx = s.ctx, u = s.u;
  if (k < ctx.first || k >= ctx.first + ctx.tasks || ldb(s.taskDone, k) != 0 || len < 2) return false;
  if (ctx.phase == PHASE_BAGS) {
    if (len < BAG_OUT_HEAD) return false;
    const nV = <i32>ldf(out, 2);
    if (nV < 0 || len != BAG_OUT_HEAD + u * BIN_STRIDE + 2 * nV) return false;
    stf(s.bagIntercepts, k, ldf(out, 0));
    stf(s.bagRounds, k, ldf(out, 1));
    memory.copy(s.bagTerms + (<usize>(k * u * BIN_STRIDE) << 3), out + (<usize>BAG_OUT_HEAD << 3), <usize>(u * BIN_STRIDE) << 3);
    const idx = allocI32(nV), logit = allocF64(nV);
    const src = out + (<usize>(BAG_OUT_HEAD + u * BIN_STRIDE) << 3);
    for (let i = 0; i < nV; i++) { sti(idx, i, <i32>ldf(src, i)); stf(logit, i, ldf(src, nV + i)); }
    s.oobIdx[k] = idx; s.oobLogit[k] = logit; s.oobCount[k] = nV;
  } else if (ctx.phase == PHASE_PAIRS) {
    // cross-fitted: bag k boosted its fold's pairs (none when the fold has none to try), kept in that set's bag j
    const ps = s.crossFit ? s.foldCandidates[k / s.bagsPerFold] : s.candidatePairs;
    const count = ps == null ? 0 : ps.count;
    const slots = ps == null ? 0 : ps.totalSlots;
    const nV = <i32>ldf(out, 1);
    if (nV != s.oobCount[k] || len != PAIR_OUT_HEAD + slots + nV) return false;
    stf(s.pairGains, k, ldf(out, 0));
    if (count > 0) memory.copy(ps!.tableOf(s.crossFit ? k % s.bagsPerFold : k, 0), out + (<usize>PAIR_OUT_HEAD << 3), <usize>slots << 3);
    const logit = allocF64(nV);
    memory.copy(logit, out + (<usize>(PAIR_OUT_HEAD + slots) << 3), <usize>nV << 3);
    s.pairOob[k] = logit;
  } else if (ctx.phase == PHASE_TREES) {
    if (!putTreeTask(s, k, out, len)) return false;
  } else return false;
  stb(s.taskDone, k, 1);
  s.tasksLeft--;
  // progress counts bags as their outputs come in, whichever worker ran them (any order)
  if (ctx.phase == PHASE_BAGS) reportProgress(A.P_BAG, s.nBags - s.tasksLeft, s.nBags);
  return true;
}

/** After every bag: the mean rounds, and (cross-fitted) each fold model's calibration and its rows' logits. */
export function afterBags(s: FitState): void {
  const nBags = s.nBags;
  let roundsSum = 0.0;
  for (let bg = 0; bg < nBags; bg++) roundsSum += ldf(s.bagRounds, bg);
  s.out.setMetric(A.M_MEAN_ROUNDS, roundsSum / <f64>nBags);
}

/**
 * Cross-fitted pair terms, per fold model (docs/design/engine.md#step-7 inside each fold): the pairs are ranked on the
 * fold model's training rows (the other folds) minus its bags' gate rows, against its bags' averaged main
 * terms; boosted in each of its bags on top of that bag's main terms; and kept for the fold only when a
 * majority of its bags' gates agree (their odd validation rows, which neither the ranking nor that bag's
 * pair boosting saw). The fold's held-out rows take no part in any of it, so their out-of-fold scores
 * (finishFolds) still test exactly the fold model that joins the served average. Ranking on the gate rows
 * too let noise pairs through on 1 fold in 4 and cost cps_wages_1985 0.005 AUC (docs/engine-history.md "Engine history").
 */
function selectFoldPairs(s: FitState): bool {
  s.foldPairs = new Array<PairSet | null>(CROSS_FOLDS);
  s.foldCandidates = new Array<PairSet | null>(CROSS_FOLDS);
  for (let f = 0; f < CROSS_FOLDS; f++) { s.foldPairs[f] = null; s.foldCandidates[f] = null; }
  if (s.u < 2) return false;
  const nTrain = s.nTrain, u = s.u, bpf = s.bagsPerFold;
  const rowsF = allocI32(nTrain), ysF = allocF64(nTrain), gate = allocU8(nTrain);
  let any = false;
  for (let f = 0; f < CROSS_FOLDS; f++) {
    const bg0 = f * bpf;
    // the gate rows (every other validation row of each bag, pairs.ts halfLoss) by pool position: the
    // pairs are ranked without them, so the gate is not judging pairs picked on its own rows
    memory.fill(gate, 0, <usize>nTrain);
    for (let bg = bg0; bg < bg0 + bpf; bg++) {
      const idx = s.oobIdx[bg];
      for (let i = 1; i < s.oobCount[bg]; i += 2) stb(gate, ldi(idx, i), 1);
    }
    let nF = 0, pool = 0;
    for (let q = 0; q < nTrain; q++) {
      if (ldb(s.foldOf, q) == f) continue;
      if (ldb(gate, pool++) == 0) { sti(rowsF, nF, ldi(s.trainRows, q)); stf(ysF, nF, ldf(s.yTrain, q)); nF++; }
    }
    const ps = selectPairs(s.binsAll, s.n, rowsF, nF, ysF, u, s.uKinds, s.uBins,
      s.bagTerms + (<usize>(bg0 * u * BIN_STRIDE) << 3), s.bagIntercepts + (<usize>bg0 << 3), bpf, CROSS_PAIRS);
    s.pairsTried += ps.count;
    if (ps.count == 0) { ps.free(); continue; }
    s.foldCandidates[f] = ps;
    any = true;
  }
  release(rowsF); release(ysF); release(gate);
  return any;
}

/** Kept pairs: bags bg0..bg0+count-1's out-of-bag logits become those with the pairs. */
function adoptPairLogits(s: FitState, bg0: i32, count: i32): void {
  for (let bg = bg0; bg < bg0 + count; bg++) {
    release(s.oobLogit[bg]);
    s.oobLogit[bg] = s.pairOob[bg];
    s.pairOob[bg] = 0;
  }
}

/** Bags of a fold of `bpf` that must agree on its pairs (or trees): CROSS_PAIR_AGREE of BAGS_PER_FOLD, in proportion (1 of 1). */
export function foldPairAgree(bpf: i32): i32 {
  return (CROSS_PAIR_AGREE * bpf + BAGS_PER_FOLD - 1) / BAGS_PER_FOLD;
}

/** After the fold pair tasks: each fold keeps its pairs when a majority of its bags' gates agree. */
function keepFoldPairs(s: FitState): void {
  for (let f = 0; f < CROSS_FOLDS; f++) {
    const ps = s.foldCandidates[f];
    s.foldCandidates[f] = null;
    if (ps == null) continue;
    const bpf = s.bagsPerFold, bg0 = f * bpf;
    if (pairsKept(s.pairGains + (<usize>bg0 << 3), bpf, foldPairAgree(bpf))) {
      adoptPairLogits(s, bg0, bpf);
      s.foldPairs[f] = ps;
    } else ps.free();
  }
}

/**
 * Cross-fitted (after the bags, and their fold pairs when any were tried): each fold model's own rows'
 * out-of-fold logits. A fold model is not rescaled on its own: the served model's one temperature (temper)
 * is chosen on these logits. A per-fold logistic fit of the bags' out-of-bag logits, applied when its slope
 * was outside [0.8, 1.25], ran away on a fold whose out-of-bag logits were separable: that fold's out-of-fold
 * logits reached +-470 to 12,370 where a fold's usually stay within +-30, and WDBC was refused on 2 of 50
 * splits (docs/engine-history.md "Engine history").
 */
export function finishFolds(s: FitState): void {
  const nTrain = s.nTrain, trainRows = s.trainRows, yTrain = s.yTrain, foldOf = s.foldOf;
  const u = s.u, n = s.n, binsAll = s.binsAll, bagTerms = s.bagTerms, bagIntercepts = s.bagIntercepts;
  const sH = s.heldLogit, baseH = s.heldBase, bpf = s.bagsPerFold;
  for (let f = 0; f < CROSS_FOLDS; f++) {
    let nF = 0, posF = 0;
    for (let q = 0; q < nTrain; q++) {
      if (ldb(foldOf, q) == f) continue;
      if (ldf(yTrain, q) == 1) posF++;
      nF++;
    }
    const bg0 = f * bpf;
    const fp = s.foldPairs[f];
    // the fold's own rows, scored by the fold model (the mean of its bags' logits)
    const baseF = <f64>posF / <f64>nF;
    for (let q = 0; q < nTrain; q++) {
      if (ldb(foldOf, q) != f) continue;
      const r = ldi(trainRows, q);
      let sum = 0.0;
      for (let bg = bg0; bg < bg0 + bpf; bg++) {
        sum += ldf(bagIntercepts, bg);
        const t = bagTerms + (<usize>(bg * u * BIN_STRIDE) << 3);
        for (let c = 0; c < u; c++) sum += ldf(t, c * BIN_STRIDE + <i32>load<u8>(binsAll + <usize>c * <usize>n + <usize>r));
        if (fp != null) sum += fp.bagLogitOfRow(bg - bg0, binsAll, n, r);
      }
      stf(sH, q, sum / <f64>bpf); // heldRows and trainRows share one order here
      stf(baseH, q, baseF);
    }
  }
}

// ---- 7. gated pairs (a single split), boosted on each bag's residuals and kept only when validation agrees ----

/**
 * Selects the pairs to try and starts the pair phase (one task per bag); returns false when no pair
 * is tried (too few training rows or columns, or no pair with any gain). Cross-fitted, each fold model's
 * own pairs (selectFoldPairs), each of its bags boosting them in a task of the same phase.
 */
export function startPairs(s: FitState): bool {
  if (s.crossFit) {
    if (!selectFoldPairs(s)) return false;
    s.pairGains = allocF64(s.nBags);
    s.pairOob = new Array<usize>(s.nBags);
    for (let bg = 0; bg < s.nBags; bg++) s.pairOob[bg] = 0;
    startPhase(s, PHASE_PAIRS, s.foldCandidates);
    return true;
  }
  if (s.nTrain < PAIR_MIN_ROWS || s.u < 2) return false;
  const pairs = selectPairs(s.binsAll, s.n, s.trainRows, s.nTrain, s.yTrain, s.u, s.uKinds, s.uBins, s.bagTerms,
    s.bagIntercepts, s.nBags);
  s.out.setMetric(A.M_PAIRS_TRIED, <f64>pairs.count);
  if (pairs.count == 0) { pairs.free(); return false; }
  s.candidatePairs = pairs;
  s.pairGains = allocF64(s.nBags);
  s.pairOob = new Array<usize>(s.nBags);
  for (let bg = 0; bg < s.nBags; bg++) s.pairOob[bg] = 0;
  const sets = new Array<PairSet | null>(1);
  sets[0] = pairs;
  startPhase(s, PHASE_PAIRS, sets);
  firstGatedBatch(s);
  return true;
}

/** After every bag's pairs: keep them when enough bags agree (pairs.ts pairsKept); their logits then join the out-of-bag ones. */
export function afterPairs(s: FitState): void {
  if (s.crossFit) return keepFoldPairs(s);
  const pairs = s.candidatePairs!;
  s.candidatePairs = null;
  if (pairsKept(s.pairGains, s.nBags)) {
    s.pairs = pairs;
    adoptPairLogits(s, 0, s.nBags);
  } else pairs.free();
}

/** Records how many pairs the model kept. */
export function notePairs(s: FitState): void {
  let kept = s.pairs == null ? 0 : s.pairs!.count;
  for (let f = 0; f < s.foldPairs.length; f++) if (s.foldPairs[f] != null) kept += s.foldPairs[f]!.count;
  s.out.setMetric(A.M_PAIRS, <f64>kept);
  if (s.crossFit) s.out.setMetric(A.M_PAIRS_TRIED, <f64>s.pairsTried);
}

// ---- 8. combine: average over bags, centre with training counts, count sign agreement per bin ----

export function combine(s: FitState): void {
  const u = s.u, n = s.n, nBags = s.nBags, nTrain = s.nTrain, trainRows = s.trainRows, binsAll = s.binsAll;
  const bagTerms = s.bagTerms, uBins = s.uBins;
  const counts = allocF64(u * BIN_STRIDE);
  s.counts = counts;
  for (let q = 0; q < nTrain; q++) {
    const r = ldi(trainRows, q);
    for (let c = 0; c < u; c++) {
      const b = <i32>load<u8>(binsAll + <usize>c * <usize>n + <usize>r);
      const o = c * BIN_STRIDE + b;
      stf(counts, o, ldf(counts, o) + 1);
    }
  }
  const terms = allocF64(u * BIN_STRIDE), posBags = allocF64(u * BIN_STRIDE), negBags = allocF64(u * BIN_STRIDE);
  s.terms = terms; s.posBags = posBags; s.negBags = negBags;
  let intercept = 0.0;
  for (let bg = 0; bg < nBags; bg++) intercept += ldf(s.bagIntercepts, bg);
  intercept /= <f64>nBags;
  for (let c = 0; c < u; c++) {
    const nb = ldi(uBins, c);
    let wsum = 0.0;
    for (let b = 0; b < nb; b++) wsum += ldf(counts, c * BIN_STRIDE + b);
    for (let bg = 0; bg < nBags; bg++) {
      const t = bagTerms + (<usize>((bg * u + c) * BIN_STRIDE) << 3);
      let mean = 0.0;
      for (let b = 0; b < nb; b++) mean += ldf(counts, c * BIN_STRIDE + b) * ldf(t, b);
      mean /= wsum;
      for (let b = 0; b < nb; b++) {
        const v = ldf(t, b) - mean;
        const o = c * BIN_STRIDE + b;
        stf(terms, o, ldf(terms, o) + ldf(t, b) / <f64>nBags);
        if (v > 1e-12) stf(posBags, o, ldf(posBags, o) + 1);
        else if (v < -1e-12) stf(negBags, o, ldf(negBags, o) + 1);
      }
    }
    let mean = 0.0;
    for (let b = 0; b < nb; b++) mean += ldf(counts, c * BIN_STRIDE + b) * ldf(terms, c * BIN_STRIDE + b);
    mean /= wsum;
    intercept += mean;
    for (let b = 0; b < nb; b++) {
      const o = c * BIN_STRIDE + b;
      // a bin no training row fell in says nothing: it scores as the average case
      stf(terms, o, ldf(counts, o) > 0 ? ldf(terms, o) - mean : 0.0);
    }
  }
  if (s.pairs != null) intercept += s.pairs!.averageAndCentre(nBags, counts, binsAll, n, trainRows, nTrain);
  // cross-fitted: the served model is the mean of the fold models, so each fold's pairs join it at 1/CROSS_FOLDS
  for (let f = 0; f < s.foldPairs.length; f++) {
    const fp = s.foldPairs[f];
    if (fp == null) continue;
    const moved = fp.averageAndCentre(s.bagsPerFold, counts, binsAll, n, trainRows, nTrain);
    fp.scale(1.0 / <f64>CROSS_FOLDS);
    intercept += moved / <f64>CROSS_FOLDS;
  }
  // cross-fitted trees kept (tree-stage.ts keepFoldTrees): their mean values; a single split adds them when it
  // decides on them, with its calibration
  s.intercept = intercept + treeInterceptShare(s);
  if (s.crossFit) temper(s);
}

/**
 * Cross-fitted: the served model's logits times one temperature t, the one that minimises the log loss of
 * the out-of-fold logits (with Platt's targets, t in [TEMPER_LOW, TEMPER_HIGH]). Every labeled row's
 * out-of-fold logit comes from a fold model that never saw it, so t is chosen on rows no model learned from
 * (as a cross-validated Platt scaling); one parameter through zero keeps the ranking and the terms additive
 * and cannot run away on a separable out-of-fold score. The decision still tests the fold models' own
 * out-of-fold logits, untempered.
 */
function temper(s: FitState): void {
  const t = bestTemperature(s.temperLogit != 0 ? s.temperLogit : s.heldLogit, s.yTrain, s.nHeld);
  s.out.setMetric(A.M_CAL_SLOPE, t);
  s.out.setMetric(A.M_CAL_APPLIED, 1);
  s.intercept *= t;
  s.treeWeight *= t;
  const terms = s.terms;
  for (let o = 0; o < s.u * BIN_STRIDE; o++) stf(terms, o, ldf(terms, o) * t);
  for (let f = 0; f < s.foldPairs.length; f++) if (s.foldPairs[f] != null) s.foldPairs[f]!.scale(t);
}

/** The factor t in [TEMPER_LOW, TEMPER_HIGH] that minimises the log loss of t x against ys (Platt's targets). */
export function bestTemperature(x: usize, ys: usize, n: i32): f64 {
  let nPos = 0.0;
  for (let q = 0; q < n; q++) if (ldf(ys, q) > 0.5) nPos += 1;
  const tPos = (nPos + 1) / (nPos + 2), tNeg = 1 / (<f64>n - nPos + 2);
  // the log loss is convex in t: bisect on the sign of its derivative, sum (p(t x) - target) x
  let lo = TEMPER_LOW, hi = TEMPER_HIGH;
  if (temperSlope(x, ys, n, lo, tPos, tNeg) >= 0) hi = lo;
  else if (temperSlope(x, ys, n, hi, tPos, tNeg) <= 0) lo = hi;
  else {
    for (let it = 0; it < 40; it++) {
      const mid = 0.5 * (lo + hi);
      if (temperSlope(x, ys, n, mid, tPos, tNeg) > 0) hi = mid; else lo = mid;
    }
  }
  return 0.5 * (lo + hi);
}

/**
 * Cross-fitted: each row's out-of-fold logit (of `logits`, in held-out order) times the temperature chosen (as temper chooses the served one) on
 * the other folds' out-of-fold logits, never on its own fold's rows: the chances the served model would give,
 * each judged on rows its scale was not chosen on. The held-out log loss is tested on these (fit.ts decide): the
 * fold models' own logits are often far too confident on a few hundred rows (sonar: up to +-21, the served
 * temperature 0.34), and their log loss then missed the base rate's although their AUC was 0.86.
 */
export function crossTempered(s: FitState, logits: usize): usize {
  const n = s.nHeld, out = allocF64(n > 0 ? n : 1);
  const x = allocF64(n > 0 ? n : 1), ys = allocF64(n > 0 ? n : 1);
  for (let f = 0; f < CROSS_FOLDS; f++) {
    let k = 0;
    for (let q = 0; q < n; q++) {
      if (ldb(s.foldOf, q) == f) continue;
      stf(x, k, ldf(logits, q)); stf(ys, k, ldf(s.yTrain, q)); k++;
    }
    const t = bestTemperature(x, ys, k);
    for (let q = 0; q < n; q++) if (ldb(s.foldOf, q) == f) stf(out, q, t * ldf(logits, q));
  }
  release(x); release(ys);
  return out;
}

function temperSlope(x: usize, ys: usize, n: i32, t: f64, tPos: f64, tNeg: f64): f64 {
  let d = 0.0;
  for (let q = 0; q < n; q++) {
    const xi = ldf(x, q);
    d += (sigmoid(t * xi) - (ldf(ys, q) > 0.5 ? tPos : tNeg)) * xi;
  }
  return d;
}

// ---- 10. calibration of the served chances ----

export function rescale(s: FitState, cal: LogisticFit): void {
  s.out.setMetric(A.M_CAL_APPLIED, 1);
  s.intercept = cal.a + cal.b * s.intercept;
  s.treeWeight *= cal.b;
  const terms = s.terms;
  for (let o = 0; o < s.u * BIN_STRIDE; o++) stf(terms, o, ldf(terms, o) * cal.b);
  if (s.pairs != null) s.pairs!.scale(cal.b);
}

/** A single split's held-out rows, scored by the model that will be served. */
export function scoreHeldOut(s: FitState): void {
  const u = s.u, n = s.n, binsAll = s.binsAll, terms = s.terms, intercept = s.intercept, pairs = s.pairs;
  const baseP = (<f64>s.trainPos) / <f64>s.nTrain;
  const trees = servedTreeLogits(s);
  for (let q = 0; q < s.nHeld; q++) {
    const r = ldi(s.heldRows, q);
    let sum = intercept;
    for (let c = 0; c < u; c++) sum += ldf(terms, c * BIN_STRIDE + <i32>load<u8>(binsAll + <usize>c * <usize>n + <usize>r));
    if (pairs != null) sum += pairs.logitOfRow(binsAll, n, r);
    sum += trees != 0 ? ldf(trees, q) : 0.0;
    stf(s.heldLogit, q, sum);
    stf(s.heldBase, q, baseP);
  }
  release(trees);
}

/** Platt slope and offset of the bags' mean out-of-bag logits `logits` (per bag, as s.oobLogit). */
export function outOfBagPlatt(s: FitState, logits: Array<usize>): LogisticFit {
  const nTrain = s.nTrain;
  const oobSum = allocF64(nTrain), oobCount = allocF64(nTrain);
  addOutOfBag(s, 0, s.nBags, oobSum, oobCount, logits);
  const cal = calibration(oobSum, oobCount, s.yTrain, nTrain);
  release(oobSum); release(oobCount);
  return cal;
}

/** Adds bags bg0..bg0+nB-1's logits of their own validation rows into oobSum/oobCount (by position). */
function addOutOfBag(s: FitState, bg0: i32, nB: i32, oobSum: usize, oobCount: usize, logits: Array<usize>): void {
  for (let bg = bg0; bg < bg0 + nB; bg++) {
    const idx = s.oobIdx[bg], sv = logits[bg], nV = s.oobCount[bg];
    for (let i = 0; i < nV; i++) {
      const q = ldi(idx, i);
      stf(oobSum, q, ldf(oobSum, q) + ldf(sv, i));
      stf(oobCount, q, ldf(oobCount, q) + 1);
    }
  }
}

/** Platt slope and offset of the mean out-of-bag logit (docs/design/engine.md#step-10). */
function calibration(oobSum: usize, oobCount: usize, ys: usize, nR: i32): LogisticFit {
  const x = allocF64(nR > 0 ? nR : 1);
  for (let q = 0; q < nR; q++) {
    const k = ldf(oobCount, q);
    stf(x, q, k > 0 ? ldf(oobSum, q) / k : 0);
  }
  const cal = fitPlatt(x, ys, oobCount, nR);
  release(x);
  return cal;
}
