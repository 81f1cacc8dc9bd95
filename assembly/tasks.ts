// The independent units of a fit (one bag's boosting, one bag's pair boosting) and their inputs and
// outputs as flat blocks, so the host can run them on other engine instances (worker threads) and put
// the results back in a fixed order: a task reads only its block and its index, so its result is the
// same bits whichever instance ran it (docs/design/engine.md#determinism).
import { PHASE_DONE, PHASE_BAGS, PHASE_PAIRS, PHASE_TREES } from './abi';
import { ldf, stf, ldi, sti, ldb, stb, ldl, stl, allocF64, allocI32, allocU8, release } from './mem';
import { mix64 } from './hash';
import { firstByU64Key } from './sort';
import { Bag, boostMains, boostStagewise, scoreBinned } from './boost';
import { BIN_STRIDE } from './binning';
import { PairSet, boostPairsBag } from './pairs';
import { boostTrees, RAW_TREE, TreeRun } from './residual-trees';
import {
  BAG_VALID_FRACTION, MAX_BAG_TRAIN, MAX_BAG_VALID, LEARNING_RATE, PATIENCE, MAX_ROUNDS, PAIR_PATIENCE,
  PAIR_MAX_ROUNDS, CROSS_FOLDS, SMOOTH_ROUNDS, STAGEWISE_PATIENCE, STAGEWISE_MAX_ROUNDS, STAGEWISE_LEARNING_RATE,
  TREE_LEARNING_RATE, RESIDUAL_TREE_L2, TREE_PATIENCE, TREE_MAX_ROUNDS, TREE_CROSS_LR, TREE_CROSS_PATIENCE, TREE_CROSS_ROUNDS,
  TREE_CROSS_STOP_HALF, TREE_COL_FRACTION, TREE_CROSS_COL_FRACTION, TREE_CROSS_WIDE_FROM, TREE_CROSS_WIDE_L2, TREE_CROSS_WIDE_LR, TREE_CROSS_WIDE_ALL_ROWS, TREE_LARGE_FROM,
  TREE_LARGE_LR, TREE_WIDE_LR, TREE_WIDE_COL_FRACTION, TREE_WIDE_FIXED_FROM, TREE_WIDE_FIXED_ROUNDS,
} from './tunables';

export { PHASE_DONE, PHASE_BAGS, PHASE_PAIRS, PHASE_TREES } from './abi';

// i32 [10]: phase, u, nTrain, crossFit, nBags, pair sets, pair logits (trees), the bag of task 0, tasks, 0
const HEADER_BYTES: i32 = 40;
/** Bytes rounded up to a multiple of 8 (every section of a block starts 8-byte aligned). */
@inline function pad8(bytes: i32): i32 { return (bytes + 7) & ~7; }

/**
 * What a task reads: the training positions (canonical order) with their labels, entity hashes, folds
 * and bins of every usable column; for pair tasks also every bag's main terms and the selected pairs: one
 * set for a single split, one per fold model when cross-fitted (bag k boosts set k / bagsPerFold()).
 * All pointers point into one block (`block`), which the context owns.
 */
export class TaskCtx {
  phase: i32 = PHASE_DONE;
  u: i32 = 0;
  nTrain: i32 = 0;
  crossFit: bool = false;
  nBags: i32 = 0;
  // the phase's tasks run bags first .. first + tasks - 1 (task k is bag first + k): every bag, or a batch of them
  // while a gate is still open (bags.ts nextGatedBatch)
  first: i32 = 0;
  tasks: i32 = 0;
  kinds: usize = 0; // i32 [u]: 0 numeric, 1 categorical
  nBins: usize = 0; // i32 [u]
  ys: usize = 0; // f64 [nTrain]
  hash: usize = 0; // u64 [nTrain]: entity hash of each training position
  fold: usize = 0; // u8 [nTrain]
  bins: usize = 0; // u8 [c * nTrain + q]
  bagTerms: usize = 0; // f64 [nBags * u * BIN_STRIDE] (pairs, trees)
  bagIntercepts: usize = 0; // f64 [nBags] (pairs, trees)
  pairLogits: usize = 0; // f64 [nBags * nTrain] (trees): each bag's kept pair terms at every training position; 0: none
  pairSets: Array<PairSet> = new Array<PairSet>(0); // views into the block (pairs); never freed on their own
  block: usize = 0;
  blockLen: i32 = 0;

  /** The pair set bag k boosts (PHASE_PAIRS). */
  setOf(k: i32): PairSet { return this.pairSets[this.crossFit ? k / this.bagsPerFold() : 0]; }
  /** Bags of each fold model (cross-fitted): the block's bags are CROSS_FOLDS folds of equal count. */
  bagsPerFold(): i32 { return this.nBags / CROSS_FOLDS; }

  free(): void {
    for (let i = 0; i < this.pairSets.length; i++) { release(this.pairSets[i].offs); this.pairSets[i].offs = 0; }
    this.pairSets = new Array<PairSet>(0);
    release(this.block); this.block = 0; this.blockLen = 0; this.phase = PHASE_DONE; this.first = 0; this.tasks = 0;
  }
}

/** Bytes of the part every block has. */
function commonBytes(u: i32, nTrain: i32): i32 {
  return HEADER_BYTES + 2 * pad8(u << 2) + (nTrain << 3) * 2 + pad8(nTrain) + pad8(u * nTrain);
}

/** Bytes of a pair phase's own part: the bags' main terms, the sets' pair counts, then each set. */
function pairBytes(u: i32, nBags: i32, nSets: i32, counts: usize): i32 {
  let b = ((nBags * u * BIN_STRIDE) << 3) + (nBags << 3) + pad8(nSets << 2);
  for (let i = 0; i < nSets; i++) b += pad8(ldi(counts, i) * 4 * 4) + pad8(u * BIN_STRIDE * 4) + pad8(u << 2);
  return b;
}

/** Bytes of a tree phase's own part: the bags' main terms, then (when pairs were kept) their pair logits. */
function treeBytes(u: i32, nBags: i32, nTrain: i32, pairLogits: bool): i32 {
  return ((nBags * u * BIN_STRIDE) << 3) + (nBags << 3) + (pairLogits ? (nBags * nTrain) << 3 : 0);
}

/** Points the context's fields into its block (the header says the sizes). */
function bindBlock(ctx: TaskCtx): void {
  const p = ctx.block;
  ctx.phase = ldi(p, 0); ctx.u = ldi(p, 1); ctx.nTrain = ldi(p, 2); ctx.crossFit = ldi(p, 3) != 0; ctx.nBags = ldi(p, 4);
  ctx.first = ldi(p, 7); ctx.tasks = ldi(p, 8);
  const nSets = ldi(p, 5);
  const u = ctx.u, nTrain = ctx.nTrain, nBags = ctx.nBags;
  let at = p + <usize>HEADER_BYTES;
  ctx.kinds = at; at += <usize>pad8(u << 2);
  ctx.nBins = at; at += <usize>pad8(u << 2);
  ctx.ys = at; at += <usize>(nTrain << 3);
  ctx.hash = at; at += <usize>(nTrain << 3);
  ctx.fold = at; at += <usize>pad8(nTrain);
  ctx.bins = at; at += <usize>pad8(u * nTrain);
  ctx.pairSets = new Array<PairSet>(0);
  ctx.pairLogits = 0;
  if (ctx.phase == PHASE_TREES) {
    ctx.bagTerms = at; at += <usize>((nBags * u * BIN_STRIDE) << 3);
    ctx.bagIntercepts = at; at += <usize>(nBags << 3);
    if (ldi(p, 6) != 0) ctx.pairLogits = at;
  }
  if (ctx.phase == PHASE_PAIRS) {
    ctx.bagTerms = at; at += <usize>((nBags * u * BIN_STRIDE) << 3);
    ctx.bagIntercepts = at; at += <usize>(nBags << 3);
    const counts = at; at += <usize>pad8(nSets << 2);
    for (let i = 0; i < nSets; i++) {
      const count = ldi(counts, i);
      const ps = new PairSet();
      ps.count = count; ps.u = u; ps.nBags = nBags; ps.nBins = ctx.nBins;
      ps.cols = at; at += <usize>pad8(count * 4 * 4);
      ps.coarseOf = at; at += <usize>pad8(u * BIN_STRIDE * 4);
      ps.nCoarse = at; at += <usize>pad8(u << 2);
      ctx.pairSets.push(ps);
    }
  }
}

/**
 * Builds the block of a phase from the fit's arrays (main instance). `bins` is the fit's full binned
 * matrix [c * n + row] and `trainRows` the training rows; for PHASE_PAIRS the pair sets (a null set tries no
 * pair: its bags' tasks boost nothing).
 */
export function buildBlock(ctx: TaskCtx, phase: i32, u: i32, nTrain: i32, crossFit: bool, nBags: i32, kinds: usize,
  nBins: usize, yTrain: usize, rowHash: usize, foldOf: usize, bins: usize, n: i32, trainRows: usize,
  bagTerms: usize, bagIntercepts: usize, sets: Array<PairSet | null>, pairLogits: usize = 0): void {
  ctx.free();
  const nSets = phase == PHASE_PAIRS ? sets.length : 0;
  const counts = allocI32(nSets > 0 ? nSets : 1);
  for (let i = 0; i < nSets; i++) sti(counts, i, sets[i] == null ? 0 : sets[i]!.count);
  const own = phase == PHASE_PAIRS ? pairBytes(u, nBags, nSets, counts) : (phase == PHASE_TREES ? treeBytes(u, nBags, nTrain, pairLogits != 0) : 0);
  const len = commonBytes(u, nTrain) + own;
  ctx.block = allocU8(len); ctx.blockLen = len;
  const p = ctx.block;
  sti(p, 0, phase); sti(p, 1, u); sti(p, 2, nTrain); sti(p, 3, crossFit ? 1 : 0); sti(p, 4, nBags); sti(p, 5, nSets);
  sti(p, 6, phase == PHASE_TREES && pairLogits != 0 ? 1 : 0);
  sti(p, 7, 0); sti(p, 8, nBags);
  if (phase == PHASE_PAIRS) memory.copy(p + <usize>(commonBytes(u, nTrain) + ((nBags * u * BIN_STRIDE) << 3) + (nBags << 3)), counts, <usize>nSets << 2);
  release(counts);
  bindBlock(ctx);
  memory.copy(ctx.kinds, kinds, <usize>u << 2);
  memory.copy(ctx.nBins, nBins, <usize>u << 2);
  memory.copy(ctx.ys, yTrain, <usize>nTrain << 3);
  for (let q = 0; q < nTrain; q++) {
    const r = ldi(trainRows, q);
    stl(ctx.hash, q, ldl(rowHash, r));
    stb(ctx.fold, q, crossFit ? ldb(foldOf, q) : 0);
  }
  for (let c = 0; c < u; c++) {
    const src = bins + <usize>c * <usize>n, dst = ctx.bins + <usize>c * <usize>nTrain;
    for (let q = 0; q < nTrain; q++) store<u8>(dst + <usize>q, load<u8>(src + <usize>ldi(trainRows, q)));
  }
  if (phase == PHASE_PAIRS || phase == PHASE_TREES) {
    memory.copy(ctx.bagTerms, bagTerms, <usize>(nBags * u * BIN_STRIDE) << 3);
    memory.copy(ctx.bagIntercepts, bagIntercepts, <usize>nBags << 3);
  }
  if (ctx.pairLogits != 0) memory.copy(ctx.pairLogits, pairLogits, <usize>(nBags * nTrain) << 3);
  if (phase == PHASE_PAIRS) {
    for (let i = 0; i < nSets; i++) {
      if (sets[i] == null) continue;
      const ps = ctx.pairSets[i], src = sets[i]!;
      memory.copy(ps.cols, src.cols, <usize>(src.count * 4) << 2);
      ps.layout();
      memory.copy(ps.coarseOf, src.coarseOf, <usize>(u * BIN_STRIDE) << 2);
      memory.copy(ps.nCoarse, src.nCoarse, <usize>u << 2);
    }
  }
}

/** Narrows the phase's tasks to bags first .. first + tasks - 1 (and its block, for the helpers that load it next). */
export function setTaskRange(ctx: TaskCtx, first: i32, tasks: i32): void {
  sti(ctx.block, 7, first); sti(ctx.block, 8, tasks);
  ctx.first = first; ctx.tasks = tasks;
}

/** A helper instance takes a block copied from the main instance (the host allocated and filled it). */
export function loadBlock(ctx: TaskCtx, ptr: usize, len: i32): bool {
  ctx.free();
  if (len < HEADER_BYTES) return false;
  const phase = ldi(ptr, 0), u = ldi(ptr, 1), nTrain = ldi(ptr, 2), nBags = ldi(ptr, 4), nSets = ldi(ptr, 5);
  if ((phase != PHASE_BAGS && phase != PHASE_PAIRS && phase != PHASE_TREES) || u < 1 || nTrain < 1 || nBags < 1) return false;
  if (phase == PHASE_PAIRS ? nSets < 1 || nSets > nBags : nSets != 0) return false;
  const first = ldi(ptr, 7), tasks = ldi(ptr, 8);
  if (first < 0 || tasks < 1 || first > nBags - tasks) return false;
  const common = commonBytes(u, nTrain);
  if (phase == PHASE_BAGS) {
    if (common != len) return false;
  } else if (phase == PHASE_TREES) {
    const logits = ldi(ptr, 6);
    if ((logits != 0 && logits != 1) || common + treeBytes(u, nBags, nTrain, logits == 1) != len) return false;
  } else {
    const countsAt = common + ((nBags * u * BIN_STRIDE) << 3) + (nBags << 3);
    if (countsAt + (nSets << 2) > len) return false;
    for (let i = 0; i < nSets; i++) if (ldi(ptr + <usize>countsAt, i) < 0) return false;
    if (common + pairBytes(u, nBags, nSets, ptr + <usize>countsAt) != len) return false;
  }
  ctx.block = ptr; ctx.blockLen = len;
  bindBlock(ctx);
  for (let i = 0; i < ctx.pairSets.length; i++) {
    const ps = ctx.pairSets[i];
    for (let p = 0; p < ps.count; p++) {
      const a = ps.colA(p), b = ps.colB(p), c = ps.colC(p);
      if (a < 0 || a >= u || b < 0 || b >= u || c < -1 || c >= u) { ctx.pairSets = new Array<PairSet>(0); return false; }
    }
    ps.layout(); // its own offsets: the one part of a set's view not in the block
  }
  return true;
}

// ---- running one task ----

/** The positions one bag draws from, their labels, how many. */
class BagRows {
  rows: usize = 0; // i32 [count]: training positions
  ys: usize = 0; // f64 [count]
  count: i32 = 0;
  free(): void { release(this.rows); release(this.ys); }
}

/** Bag bg's pool: every training position, or (cross-fitted) those outside the bag's fold. */
function bagPool(ctx: TaskCtx, bg: i32): BagRows {
  const from = new BagRows();
  const nTrain = ctx.nTrain;
  from.rows = allocI32(nTrain); from.ys = allocF64(nTrain);
  const f = ctx.crossFit ? bg / ctx.bagsPerFold() : -1;
  let k = 0;
  for (let q = 0; q < nTrain; q++) {
    if (ctx.crossFit && ldb(ctx.fold, q) == f) continue;
    sti(from.rows, k, q); stf(from.ys, k, ldf(ctx.ys, q)); k++;
  }
  from.count = k;
  return from;
}

// u64 key of each row of the bag being drawn
let bagKey: usize = 0;

/**
 * Draws bag bg from its pool: a stratified 15% validation part keyed on (bag, entity hash), so whole
 * entities move together, and a stratified training part of at most MAX_BAG_TRAIN rows; each gathered
 * into contiguous column-major bins.
 */
function drawBag(ctx: TaskCtx, bg: i32, from: BagRows): Bag {
  const rows = from.rows, ys = from.ys, nR = from.count;
  const u = ctx.u, nTrain = ctx.nTrain, bins = ctx.bins;
  const seed: u64 = mix64(<u64>(bg + 1) * 0x9e3779b97f4a7c15);
  bagKey = allocF64(nR);
  const posList = allocI32(nR), negList = allocI32(nR), inValid = allocU8(nR);
  let np = 0, nn = 0;
  for (let q = 0; q < nR; q++) {
    stl(bagKey, q, mix64(ldl(ctx.hash, ldi(rows, q)) ^ seed));
    if (ldf(ys, q) == 1) sti(posList, np++, q); else sti(negList, nn++, q);
  }
  // inValid: 0 unused, 1 validation, 2 training (both stratified, drawn in bag-key order)
  const validShare = Math.min(BAG_VALID_FRACTION, MAX_BAG_VALID / <f64>nR);
  const vp = <i32>Math.round(<f64>np * validShare), vn = <i32>Math.round(<f64>nn * validShare);
  const trainShare = Math.min(1.0, MAX_BAG_TRAIN / <f64>(nR - vp - vn));
  const tp = <i32>Math.round(<f64>(np - vp) * trainShare), tn = <i32>Math.round(<f64>(nn - vn) * trainShare);
  // each list's first vp + tp (vn + tn) in key order: = sortIndices(list, by key), radix; only those are read
  firstByU64Key(posList, np, vp + tp, bagKey);
  firstByU64Key(negList, nn, vn + tn, bagKey);
  for (let q = 0; q < vp; q++) stb(inValid, ldi(posList, q), 1);
  for (let q = 0; q < vn; q++) stb(inValid, ldi(negList, q), 1);
  for (let q = vp; q < vp + tp; q++) stb(inValid, ldi(posList, q), 2);
  for (let q = vn; q < vn + tn; q++) stb(inValid, ldi(negList, q), 2);
  const bag = new Bag();
  bag.u = u; bag.kinds = ctx.kinds; bag.nBins = ctx.nBins;
  const nV = vp + vn, nT = tp + tn;
  bag.nV = nV; bag.nT = nT;
  const binsT = allocU8(u * nT), binsV = allocU8(u * nV), yT = allocF64(nT), yV = allocF64(nV), vIdx = allocI32(nV);
  const tIdx = allocI32(nT);
  bag.binsT = binsT; bag.binsV = binsV; bag.yT = yT; bag.yV = yV; bag.vIdx = vIdx; bag.tIdx = tIdx;
  // each role's rows in pool order, then their bins gathered a column at a time (a row at a time, every row
  // touched u scattered cache lines of the columns it read and of the bag's columns it wrote)
  const rT = allocI32(nT), rV = allocI32(nV);
  let it = 0, iv = 0;
  for (let q = 0; q < nR; q++) {
    const role = ldb(inValid, q);
    if (role == 0) continue;
    if (role == 1) {
      stf(yV, iv, ldf(ys, q)); sti(vIdx, iv, q); sti(rV, iv, ldi(rows, q)); iv++;
    } else {
      stf(yT, it, ldf(ys, q)); sti(tIdx, it, q); sti(rT, it, ldi(rows, q)); it++;
    }
  }
  for (let c = 0; c < u; c++) {
    const src = bins + <usize>c * <usize>nTrain;
    const dstV = binsV + <usize>c * <usize>nV, dstT = binsT + <usize>c * <usize>nT;
    for (let i = 0; i < nV; i++) store<u8>(dstV + <usize>i, load<u8>(src + <usize>ldi(rV, i)));
    for (let i = 0; i < nT; i++) store<u8>(dstT + <usize>i, load<u8>(src + <usize>ldi(rT, i)));
  }
  release(rT); release(rV);
  bag.seed = seed;
  release(bagKey); bagKey = 0;
  release(posList); release(negList); release(inValid);
  return bag;
}

// Output layouts (f64 arrays):
//   bag task:  [0] intercept [1] rounds [2] nV [3] validation loss, terms [u * BIN_STRIDE],
//              then per validation row its position in the bag's pool and its logit under the bag's mains
//   pair task: [0] gate gain [1] nV, tables [the set's totalSlots: each term's table, pairs.ts layout],
//              then per validation row its logit under the bag's mains and pairs
//   tree task: [0] gate gain [1] nV [2] trees kept [3] rounds, the trees [kept * RAW_TREE] (residual-trees.ts),
//              then per validation row its logit under the bag's mains, kept pairs and trees
export const BAG_OUT_HEAD: i32 = 4;
export const PAIR_OUT_HEAD: i32 = 2;
export const TREE_OUT_HEAD: i32 = 4;

/** Runs task k of the context's phase; returns its output (f64 array, caller releases) and its length. */
export function runTaskOf(ctx: TaskCtx, k: i32): usize {
  const from = bagPool(ctx, k);
  const bag = drawBag(ctx, k, from);
  const u = ctx.u, nV = bag.nV;
  let out: usize = 0;
  if (ctx.phase == PHASE_BAGS) {
    outLen = BAG_OUT_HEAD + u * BIN_STRIDE + 2 * nV;
    out = allocF64(outLen);
    const terms = out + (<usize>BAG_OUT_HEAD << 3);
    if (ctx.crossFit) {
      bag.smoothRounds = SMOOTH_ROUNDS;
      boostStagewise(bag, terms, STAGEWISE_LEARNING_RATE, STAGEWISE_PATIENCE, STAGEWISE_MAX_ROUNDS);
    } else {
      boostMains(bag, terms, LEARNING_RATE, PATIENCE, MAX_ROUNDS);
    }
    stf(out, 0, bag.intercept); stf(out, 1, <f64>bag.rounds); stf(out, 2, <f64>nV); stf(out, 3, bag.validLoss);
    const idx = terms + (<usize>(u * BIN_STRIDE) << 3), logit = idx + (<usize>nV << 3);
    for (let i = 0; i < nV; i++) stf(idx, i, <f64>ldi(bag.vIdx, i));
    scoreBinned(bag.binsV, nV, u, terms, bag.intercept, logit);
  } else if (ctx.phase == PHASE_TREES) {
    out = treeTask(ctx, k, bag, from);
  } else {
    const ps = ctx.setOf(k);
    outLen = PAIR_OUT_HEAD + ps.totalSlots + nV;
    out = allocF64(outLen);
    const tables = out + (<usize>PAIR_OUT_HEAD << 3);
    const terms = ctx.bagTerms + (<usize>(k * u * BIN_STRIDE) << 3);
    const intercept = ldf(ctx.bagIntercepts, k);
    bag.intercept = intercept;
    // a fold with no pair to try (cross-fitted) has nothing to boost; its output is not read
    const gain = ps.count == 0 ? 0.0 : boostPairsBag(ps, bag, terms, tables, LEARNING_RATE, PAIR_PATIENCE, PAIR_MAX_ROUNDS);
    stf(out, 0, gain); stf(out, 1, <f64>nV);
    const logit = tables + (<usize>ps.totalSlots << 3);
    scoreBinned(bag.binsV, nV, u, terms, intercept, logit);
    ps.addTableLogits(tables, bag.binsV, nV, logit);
  }
  bag.free();
  from.free();
  return out;
}

/**
 * A bag whose training rows are `bag`'s training rows followed by its validation rows (bins and labels copied; the
 * caller releases binsT and yT), its validation rows, columns and seed `bag`'s own (not copied: not released).
 */
function withValidationRows(bag: Bag): Bag {
  const u = bag.u, nT = bag.nT, nV = bag.nV, m = nT + nV;
  const all = new Bag();
  all.u = u; all.nT = m; all.nV = nV; all.kinds = bag.kinds; all.nBins = bag.nBins; all.seed = bag.seed;
  all.binsV = bag.binsV; all.yV = bag.yV;
  all.binsT = allocU8(u * m); all.yT = allocF64(m);
  for (let c = 0; c < u; c++) {
    const to = all.binsT + <usize>c * <usize>m;
    memory.copy(to, bag.binsT + <usize>c * <usize>nT, <usize>nT);
    memory.copy(to + <usize>nT, bag.binsV + <usize>c * <usize>nV, <usize>nV);
  }
  memory.copy(all.yT, bag.yT, <usize>nT << 3);
  memory.copy(all.yT + (<usize>nT << 3), bag.yV, <usize>nV << 3);
  return all;
}

/**
 * A single split of a wide record, whose trees take the wide settings (tunables.ts TREE_WIDE_LR): at least
 * TREE_CROSS_WIDE_FROM usable columns and fewer than TREE_LARGE_FROM training rows (so none of its bags is large).
 */
function isWideSingle(u: i32, nTrain: i32): bool {
  return u >= TREE_CROSS_WIDE_FROM && nTrain < TREE_LARGE_FROM;
}

/**
 * Bag k's residual trees (residual-trees.ts boostTrees) on top of its main terms and, when pairs were kept, its
 * pair terms (their logits at each training position, computed by the fit's instance).
 */
function treeTask(ctx: TaskCtx, k: i32, bag: Bag, from: BagRows): usize {
  const u = ctx.u, nT = bag.nT, nV = bag.nV;
  const sT = allocF64(nT), sV = allocF64(nV);
  const terms = ctx.bagTerms + (<usize>(k * u * BIN_STRIDE) << 3);
  const intercept = ldf(ctx.bagIntercepts, k);
  scoreBinned(bag.binsT, nT, u, terms, intercept, sT);
  scoreBinned(bag.binsV, nV, u, terms, intercept, sV);
  if (ctx.pairLogits != 0) {
    const extra = ctx.pairLogits + (<usize>k * <usize>ctx.nTrain << 3);
    for (let i = 0; i < nT; i++) stf(sT, i, ldf(sT, i) + ldf(extra, ldi(from.rows, ldi(bag.tIdx, i))));
    for (let i = 0; i < nV; i++) stf(sV, i, ldf(sV, i) + ldf(extra, ldi(from.rows, ldi(bag.vIdx, i))));
  }
  // The trees' settings. Cross-fitted: a wide record's leaves are shrunk less and stepped further
  // (tunables.ts TREE_CROSS_WIDE_FROM). A wide single split: TREE_WIDE_LR on a share of the columns, a fixed count
  // of trees in large bags (TREE_WIDE_FIXED_FROM). Other single splits: a large bag takes larger steps
  // (TREE_LARGE_FROM).
  const wide = u >= TREE_CROSS_WIDE_FROM;
  let lr = nT >= TREE_LARGE_FROM ? TREE_LARGE_LR : TREE_LEARNING_RATE, l2 = RESIDUAL_TREE_L2, colFraction = TREE_COL_FRACTION;
  let patience = TREE_PATIENCE, rounds = TREE_MAX_ROUNDS, stopHalf = 0;
  if (ctx.crossFit) {
    lr = wide ? TREE_CROSS_WIDE_LR : TREE_CROSS_LR; l2 = wide ? TREE_CROSS_WIDE_L2 : RESIDUAL_TREE_L2;
    patience = TREE_CROSS_PATIENCE; rounds = TREE_CROSS_ROUNDS; stopHalf = TREE_CROSS_STOP_HALF; colFraction = TREE_CROSS_COL_FRACTION;
  } else if (isWideSingle(u, ctx.nTrain)) {
    lr = TREE_WIDE_LR; colFraction = TREE_WIDE_COL_FRACTION;
    if (nT >= TREE_WIDE_FIXED_FROM) { patience = 0; rounds = TREE_WIDE_FIXED_ROUNDS; }
  }
  let run: TreeRun;
  if (ctx.crossFit && wide && TREE_CROSS_WIDE_ALL_ROWS) {
    // a wide record's cross-fitted trees also learn from the bag's validation rows (tunables.ts
    // TREE_CROSS_WIDE_ALL_ROWS): the rows follow the training rows, with their logits
    const grown = withValidationRows(bag), sAll = allocF64(nT + nV);
    memory.copy(sAll, sT, <usize>nT << 3);
    memory.copy(sAll + (<usize>nT << 3), sV, <usize>nV << 3);
    run = boostTrees(grown, sAll, sV, lr, l2, patience, rounds, stopHalf, colFraction);
    release(grown.binsT); release(grown.yT); release(sAll);
  } else run = boostTrees(bag, sT, sV, lr, l2, patience, rounds, stopHalf, colFraction);
  outLen = TREE_OUT_HEAD + run.count * RAW_TREE + nV;
  const out = allocF64(outLen);
  stf(out, 0, run.gateGain); stf(out, 1, <f64>nV); stf(out, 2, <f64>run.count); stf(out, 3, <f64>run.rounds);
  memory.copy(out + (<usize>TREE_OUT_HEAD << 3), run.trees, <usize>(run.count * RAW_TREE) << 3);
  memory.copy(out + (<usize>(TREE_OUT_HEAD + run.count * RAW_TREE) << 3), sV, <usize>nV << 3);
  release(run.trees); release(sT); release(sV);
  return out;
}

/** Length (f64 slots) of the output runTaskOf returned last. */
export let outLen: i32 = 0;
