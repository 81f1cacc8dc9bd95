// The model steps of a fit (engine.md steps 5-8 and 10) over its FitState: bags (cross-fitted: one
// calibrated fold model per fold, scoring its own rows), gated pairs, combining the bags into one
// additive model, and the calibration check of a single split.
import * as A from './abi';
import { ldf, stf, ldi, sti, ldb, stb, ldl, stl, allocF64, allocI32, allocU8, release } from './mem';
import { mix64 } from './hash';
import { sortIndices } from './sort';
import { Bag, boostMains, boostStagewise, scoreBinned, BIN_STRIDE } from './boost';
import { fitLogistic1, LogisticFit } from './stats';
import { selectPairs, boostPairs } from './pairs';
import { FitState } from './fit-state';
import { reportProgress } from './progress';
import {
  N_BAGS, BAG_VALID_FRACTION, MAX_BAG_TRAIN, MAX_BAG_VALID, LEARNING_RATE, PATIENCE, MAX_ROUNDS, PAIR_PATIENCE,
  PAIR_MAX_ROUNDS, CAL_LOW, CAL_HIGH, PAIR_MIN_ROWS, CROSS_FOLDS, BAGS_PER_FOLD, SMOOTH_ROUNDS,
  STAGEWISE_PATIENCE, STAGEWISE_MAX_ROUNDS,
} from './tunables';

/** The rows one bag draws from: training positions (row indices), their labels, how many. */
class BagRows {
  rows: usize = 0; // i32 [count]
  ys: usize = 0; // f64 [count]
  count: i32 = 0;
}

// ---- 5-6. bags ----

/**
 * Boosts every bag. A single split: N_BAGS bags on the training part. Cross-fitted (small records):
 * fold f's model is BAGS_PER_FOLD bags boosted on the other folds, calibrated on its own bags'
 * out-of-bag rows, and it alone scores fold f's rows. The model served averages the fold models'
 * logits; log loss is convex in the logit, so on new rows it does no worse on average than the fold
 * models whose held-out log loss is tested.
 */
export function fitBags(s: FitState): void {
  const nBags = s.crossFit ? CROSS_FOLDS * BAGS_PER_FOLD : N_BAGS;
  s.nBags = nBags;
  s.bagTerms = allocF64(nBags * s.u * BIN_STRIDE);
  s.bagIntercepts = allocF64(nBags);
  s.bags = new Array<Bag>(nBags);
  s.heldLogit = allocF64(s.nHeld > 0 ? s.nHeld : 1);
  s.heldBase = allocF64(s.nHeld > 0 ? s.nHeld : 1);
  reportProgress(A.P_BAG, 0, nBags);
  if (s.crossFit) {
    fitFoldModels(s);
  } else {
    const all = new BagRows();
    all.rows = s.trainRows; all.ys = s.yTrain; all.count = s.nTrain;
    for (let bg = 0; bg < nBags; bg++) {
      s.bags[bg] = runBag(s, bg, all, false);
      reportProgress(A.P_BAG, bg + 1, nBags);
    }
  }
  let roundsSum = 0.0;
  for (let bg = 0; bg < nBags; bg++) roundsSum += <f64>s.bags[bg].rounds;
  s.out.setMetric(A.M_MEAN_ROUNDS, roundsSum / <f64>nBags);
}

function fitFoldModels(s: FitState): void {
  const nTrain = s.nTrain, trainRows = s.trainRows, yTrain = s.yTrain, foldOf = s.foldOf;
  const u = s.u, n = s.n, binsAll = s.binsAll, bagTerms = s.bagTerms, bagIntercepts = s.bagIntercepts;
  const sH = s.heldLogit, baseH = s.heldBase;
  let slopeSum = 0.0;
  const fold = new BagRows();
  fold.rows = allocI32(nTrain); fold.ys = allocF64(nTrain);
  const oobSum = allocF64(nTrain), oobCount = allocF64(nTrain);
  for (let f = 0; f < CROSS_FOLDS; f++) {
    let nF = 0, posF = 0;
    for (let q = 0; q < nTrain; q++) {
      if (ldb(foldOf, q) == f) continue;
      sti(fold.rows, nF, ldi(trainRows, q)); stf(fold.ys, nF, ldf(yTrain, q));
      if (ldf(yTrain, q) == 1) posF++;
      nF++;
    }
    fold.count = nF;
    const bg0 = f * BAGS_PER_FOLD;
    for (let bg = bg0; bg < bg0 + BAGS_PER_FOLD; bg++) {
      s.bags[bg] = runBag(s, bg, fold, true);
      reportProgress(A.P_BAG, bg + 1, s.nBags);
    }
    memory.fill(oobSum, 0, <usize>nF << 3); memory.fill(oobCount, 0, <usize>nF << 3);
    addOutOfBag(s, bg0, BAGS_PER_FOLD, oobSum, oobCount);
    const cal = calibration(oobSum, oobCount, fold.ys, nF);
    slopeSum += cal.ok ? cal.b : 1;
    if (cal.ok && cal.b > 0 && (cal.b < CAL_LOW || cal.b > CAL_HIGH)) {
      s.out.setMetric(A.M_CAL_APPLIED, 1);
      for (let bg = bg0; bg < bg0 + BAGS_PER_FOLD; bg++) {
        stf(bagIntercepts, bg, cal.a + cal.b * ldf(bagIntercepts, bg));
        const t = bagTerms + (<usize>(bg * u * BIN_STRIDE) << 3);
        for (let o = 0; o < u * BIN_STRIDE; o++) stf(t, o, ldf(t, o) * cal.b);
      }
    }
    // the fold's own rows, scored by the fold model (the mean of its bags' logits)
    const baseF = <f64>posF / <f64>nF;
    for (let q = 0; q < nTrain; q++) {
      if (ldb(foldOf, q) != f) continue;
      const r = ldi(trainRows, q);
      let sum = 0.0;
      for (let bg = bg0; bg < bg0 + BAGS_PER_FOLD; bg++) {
        sum += ldf(bagIntercepts, bg);
        const t = bagTerms + (<usize>(bg * u * BIN_STRIDE) << 3);
        for (let c = 0; c < u; c++) sum += ldf(t, c * BIN_STRIDE + <i32>load<u8>(binsAll + <usize>c * <usize>n + <usize>r));
      }
      stf(sH, q, sum / <f64>BAGS_PER_FOLD); // heldRows and trainRows share one order here
      stf(baseH, q, baseF);
    }
  }
  s.out.setMetric(A.M_CAL_SLOPE, slopeSum / <f64>CROSS_FOLDS);
  release(fold.rows); release(fold.ys); release(oobSum); release(oobCount);
}

// u64 key of each row of the bag being drawn (AS function pointers carry no closure)
let bagKey: usize = 0;
function cmpBagKey(a: i32, b: i32): i32 {
  const x = ldl(bagKey, a), y = ldl(bagKey, b);
  return x < y ? -1 : (x > y ? 1 : 0);
}

/**
 * Boosts bag `bg` on `from` (stagewise with smoothing rounds, or cyclic) and stores its tables in
 * s.bagTerms and its intercept in s.bagIntercepts.
 */
function runBag(s: FitState, bg: i32, from: BagRows, stagewise: bool): Bag {
  const rows = from.rows, ys = from.ys, nR = from.count;
  const u = s.u, n = s.n, binsAll = s.binsAll, rowHash = s.rowHash;
  // stratified 15% validation drawn by a key of (bag, entity hash): whole entities move together
  const seed: u64 = mix64(<u64>(bg + 1) * 0x9e3779b97f4a7c15);
  bagKey = allocF64(nR);
  const posList = allocI32(nR), negList = allocI32(nR), inValid = allocU8(nR);
  let np = 0, nn = 0;
  for (let q = 0; q < nR; q++) {
    stl(bagKey, q, mix64(ldl(rowHash, ldi(rows, q)) ^ seed));
    if (ldf(ys, q) == 1) sti(posList, np++, q); else sti(negList, nn++, q);
  }
  sortIndices(posList, np, cmpBagKey);
  sortIndices(negList, nn, cmpBagKey);
  // inValid: 0 unused, 1 validation, 2 training (both stratified, drawn in bag-key order)
  const validShare = Math.min(BAG_VALID_FRACTION, MAX_BAG_VALID / <f64>nR);
  const vp = <i32>Math.round(<f64>np * validShare), vn = <i32>Math.round(<f64>nn * validShare);
  const trainShare = Math.min(1.0, MAX_BAG_TRAIN / <f64>(nR - vp - vn));
  const tp = <i32>Math.round(<f64>(np - vp) * trainShare), tn = <i32>Math.round(<f64>(nn - vn) * trainShare);
  for (let q = 0; q < vp; q++) stb(inValid, ldi(posList, q), 1);
  for (let q = 0; q < vn; q++) stb(inValid, ldi(negList, q), 1);
  for (let q = vp; q < vp + tp; q++) stb(inValid, ldi(posList, q), 2);
  for (let q = vn; q < vn + tn; q++) stb(inValid, ldi(negList, q), 2);
  const bag = new Bag();
  bag.u = u; bag.kinds = s.uKinds; bag.nBins = s.uBins;
  const nV = vp + vn, nT = tp + tn;
  bag.nV = nV; bag.nT = nT;
  const binsT = allocU8(u * nT), binsV = allocU8(u * nV), yT = allocF64(nT), yV = allocF64(nV), vIdx = allocI32(nV);
  bag.binsT = binsT; bag.binsV = binsV; bag.yT = yT; bag.yV = yV; bag.vIdx = vIdx;
  let it = 0, iv = 0;
  for (let q = 0; q < nR; q++) {
    const r = ldi(rows, q);
    const role = ldb(inValid, q);
    if (role == 0) continue;
    if (role == 1) {
      for (let c = 0; c < u; c++) store<u8>(binsV + <usize>(c * nV + iv), load<u8>(binsAll + <usize>c * <usize>n + <usize>r));
      stf(yV, iv, ldf(ys, q)); sti(vIdx, iv, q); iv++;
    } else {
      for (let c = 0; c < u; c++) store<u8>(binsT + <usize>(c * nT + it), load<u8>(binsAll + <usize>c * <usize>n + <usize>r));
      stf(yT, it, ldf(ys, q)); it++;
    }
  }
  bag.seed = seed;
  const terms = s.bagTerms + (<usize>(bg * u * BIN_STRIDE) << 3);
  if (stagewise) {
    bag.smoothRounds = SMOOTH_ROUNDS;
    boostStagewise(bag, terms, LEARNING_RATE, STAGEWISE_PATIENCE, STAGEWISE_MAX_ROUNDS);
  } else {
    boostMains(bag, terms, LEARNING_RATE, PATIENCE, MAX_ROUNDS);
  }
  stf(s.bagIntercepts, bg, bag.intercept);
  release(bagKey); bagKey = 0;
  release(posList); release(negList); release(inValid);
  return bag;
}

// ---- 7. gated pairs (a single split), boosted on each bag's residuals and kept only when validation agrees ----

export function fitPairs(s: FitState): void {
  if (!s.crossFit && s.nTrain >= PAIR_MIN_ROWS && s.u >= 2) {
    const pairs = selectPairs(s.binsAll, s.n, s.trainRows, s.nTrain, s.yTrain, s.u, s.uKinds, s.uBins, s.bagTerms,
      s.bagIntercepts, s.nBags);
    s.out.setMetric(A.M_PAIRS_TRIED, <f64>pairs.count);
    if (pairs.count > 0 && boostPairs(pairs, s.bags, s.bagTerms, s.nBags, LEARNING_RATE, PAIR_PATIENCE, PAIR_MAX_ROUNDS)) {
      s.pairs = pairs;
    } else pairs.free();
  }
  s.out.setMetric(A.M_PAIRS, s.pairs == null ? 0 : <f64>s.pairs!.count);
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
  s.intercept = intercept;
}

// ---- 10. calibration (a single split; cross-fitted folds did their own in fitBags) ----

/** Calibration slope on the out-of-bag logits (mains, plus pairs when kept): rescale only outside [0.8, 1.25]. */
export function calibrate(s: FitState): void {
  const nTrain = s.nTrain, u = s.u;
  const oobSum = allocF64(nTrain), oobCount = allocF64(nTrain);
  addOutOfBag(s, 0, s.nBags, oobSum, oobCount);
  const cal = calibration(oobSum, oobCount, s.yTrain, nTrain);
  if (cal.ok) {
    s.out.setMetric(A.M_CAL_SLOPE, cal.b);
    if (cal.b > 0 && (cal.b < CAL_LOW || cal.b > CAL_HIGH)) {
      s.out.setMetric(A.M_CAL_APPLIED, 1);
      s.intercept = cal.a + cal.b * s.intercept;
      const terms = s.terms;
      for (let o = 0; o < u * BIN_STRIDE; o++) stf(terms, o, ldf(terms, o) * cal.b);
      if (s.pairs != null) s.pairs!.scale(cal.b);
    }
  }
  release(oobSum); release(oobCount);
}

/** A single split's held-out rows, scored by the model that will be served. */
export function scoreHeldOut(s: FitState): void {
  const u = s.u, n = s.n, binsAll = s.binsAll, terms = s.terms, intercept = s.intercept, pairs = s.pairs;
  const baseP = (<f64>s.trainPos) / <f64>s.nTrain;
  for (let q = 0; q < s.nHeld; q++) {
    const r = ldi(s.heldRows, q);
    let sum = intercept;
    for (let c = 0; c < u; c++) sum += ldf(terms, c * BIN_STRIDE + <i32>load<u8>(binsAll + <usize>c * <usize>n + <usize>r));
    if (pairs != null) sum += pairs.logitOfRow(binsAll, n, r);
    stf(s.heldLogit, q, sum);
    stf(s.heldBase, q, baseP);
  }
}

/** Adds bags bg0..bg0+nB-1's logits of their own validation rows into oobSum/oobCount (by position). */
function addOutOfBag(s: FitState, bg0: i32, nB: i32, oobSum: usize, oobCount: usize): void {
  const u = s.u, pairs = s.pairs;
  for (let bg = bg0; bg < bg0 + nB; bg++) {
    const bag = s.bags[bg];
    const sv = allocF64(bag.nV);
    scoreBinned(bag.binsV, bag.nV, u, s.bagTerms + (<usize>(bg * u * BIN_STRIDE) << 3), bag.intercept, sv);
    if (pairs != null) pairs.addBagLogits(bg, bag.binsV, bag.nV, sv);
    for (let i = 0; i < bag.nV; i++) {
      const q = ldi(bag.vIdx, i);
      stf(oobSum, q, ldf(oobSum, q) + ldf(sv, i));
      stf(oobCount, q, ldf(oobCount, q) + 1);
    }
    release(sv);
  }
}

/** Calibration slope and offset of the mean out-of-bag logit (engine.md step 10). */
function calibration(oobSum: usize, oobCount: usize, ys: usize, nR: i32): LogisticFit {
  const x = allocF64(nR > 0 ? nR : 1);
  for (let q = 0; q < nR; q++) {
    const k = ldf(oobCount, q);
    stf(x, q, k > 0 ? ldf(oobSum, q) / k : 0);
  }
  const cal = fitLogistic1(x, ys, oobCount, nR);
  release(x);
  return cal;
}
