// One fit, start to finish (docs/design/engine.md#steps), as named steps over one FitState: canonical
// order, held-out split, binning and guards, the not-yet check, bags, pairs, combine, calibration and
// the held-out decision. The steps of the model itself (bags to calibration) are in bags.ts.
import * as A from './abi';
import { ldf, stf, ldi, sti, ldb, stb, ldl, stl, allocF64, allocI32, allocU8, release } from './mem';
import { fnv1a64, mix64 } from './hash';
import { sortIndices, sortIndicesByU64Hash } from './sort';
import { ColumnBins, binNumeric, binCategorical, numericBin, categoricalBin, BIN_STRIDE } from './binning';
import { aucDeLong, aucZ, topLift, constLogLoss, sigmoid, clusteredMeanSe } from './stats';
import { FitOutputs, FitState } from './fit-state';
import {
  startBags, putTask, afterBags, startPairs, afterPairs, nextGatedBatch, notePairs, combine, scoreHeldOut, finishFolds,
  crossTempered,
} from './bags';
import { startTrees, afterTrees, keepFoldTrees, calibrateSingle } from './tree-stage';
import { TaskCtx, PHASE_DONE, PHASE_BAGS, PHASE_PAIRS, PHASE_TREES, runTaskOf, outLen, loadBlock } from './tasks';
import { buildModel } from './model';
import { reportProgress } from './progress';
import {
  HELD_OUT_FRACTION, MIN_CROSS_TRAIN_MINORITY, MIN_HELD_CLASS, MIN_TRAIN_MINORITY, RESTATES_AUC, Z_AUC, Z_AUC_CROSS, Z_LOG_LOSS,
  Z_INTERVAL, PAIR_MIN_ROWS, CROSS_FOLDS, MIN_BAGS_AGREE, TREE_AGREE, BAGS_PER_FOLD, NARROW_CROSS_ROWS, NARROW_CROSS_COLS,
  NARROW_BAGS_PER_FOLD, NARROW_CROSS_FROM, CROSS_WIDE_MIN_ROWS, TREE_CROSS_WIDE_FROM,
} from './tunables';

export { CROSS_FOLDS } from './tunables';

/** The last fit's results, read by the host through index.ts. */
export const outputs = new FitOutputs();

// The fit between fitStart and its last phase (null when none is under way).
let current: FitState | null = null;
// A helper instance's task block (loadTasks) and its last task's output.
const helper = new TaskCtx();
let helperOut: usize = 0;
let helperOutLen: i32 = 0;

/**
 * Starts a fit: steps 1-4 and the not-yet check. Inputs are pointers into this instance's memory (see
 * index.ts for the ABI). Returns OK or an error status; then the fit is either done (state in
 * `outputs`: not_yet, no predictor) or in its bag phase: the host runs every task of each phase
 * (runTask here, or on helper instances and putTask) and calls fitAdvance after each phase.
 */
export function fitStart(
  n: i32, m: i32, eBytes: usize, eOffs: usize, y: usize, t: usize, k: usize, d: usize, c: usize,
): i32 {
  if (n < 1 || m < 0 || eOffs == 0 || y == 0 || (m > 0 && (k == 0 || d == 0 || c == 0))) return A.ERR_BAD_INPUT;
  for (let j = 0; j < m; j++) {
    const kj = ldi(k, j);
    if (kj != A.KIND_SKIP && ldi(d, j) == 0) return A.ERR_BAD_INPUT;
    if (kj == A.KIND_CATEGORICAL && ldi(c, j) < 0) return A.ERR_BAD_INPUT;
  }
  if (current != null) { current!.free(); current = null; }
  outputs.reset(n, m);
  const s = new FitState(outputs);
  s.n = n; s.m = m; s.entBytes = eBytes; s.entOffs = eOffs; s.outcome = y; s.times = t;
  s.kinds = k; s.data = d; s.cards = c;

  orderRows(s); // 1
  reportProgress(A.P_ORDER, n, n);
  splitEntities(s); // 2
  splitRows(s);
  reportProgress(s.crossFit ? A.P_SPLIT_FOLDS : A.P_SPLIT, s.nTrain, s.nHeld);
  binColumns(s); // 3-4
  if (notYet(s) || noPredictors(s)) { s.free(); return A.OK; } // 9a
  startBags(s); // 5-6: the bag phase
  current = s;
  return A.OK;
}

/** The phase under way (tasks.ts PHASE_*), PHASE_DONE when the fit is finished. */
export function fitPhase(): i32 { return current == null ? PHASE_DONE : current!.ctx.phase; }
/** Tasks of the phase under way: one per bag, or a batch of the bags (tasks.ts TaskCtx.first). */
export function fitTaskCount(): i32 { return current == null ? 0 : current!.ctx.tasks; }

/**
 * After every task of the phase is in: the next phase (pairs after bags), or the rest of the fit
 * (combine, calibration, the held-out decision and the model), which ends it.
 */
export function fitAdvance(): i32 {
  if (current == null) return A.ERR_BAD_INPUT;
  const s = current!;
  if (s.tasksLeft != 0) return A.ERR_BAD_INPUT;
  const phase = s.ctx.phase;
  if (phase == PHASE_BAGS) {
    afterBags(s);
    reportProgress(A.P_PAIRS, 0, 1);
    if (startPairs(s)) return A.OK; // 7: the pair phase
  } else if (phase == PHASE_PAIRS) {
    // a single split's gate still open after a batch of bags: the next batch (bags.ts nextGatedBatch)
    if (nextGatedBatch(s, s.pairGains, MIN_BAGS_AGREE)) return A.OK;
    afterPairs(s);
  } else {
    if (nextGatedBatch(s, s.treeGains, TREE_AGREE)) return A.OK;
    afterTrees(s);
  }
  if (phase != PHASE_TREES && startTrees(s)) return A.OK; // 7b: the residual trees' phase
  if (s.crossFit) {
    finishFolds(s); // the fold models are complete: their out-of-fold logits
    keepFoldTrees(s); // with their trees when the out-of-fold rows say so
  }
  notePairs(s);
  s.ctx.free();
  combine(s); // 8
  if (!s.crossFit) {
    calibrateSingle(s); // 10, and whether the trees are kept (cross-fitted: temper, in combine)
    scoreHeldOut(s);
  }
  reportProgress(A.P_DECIDE, 0, 1);
  decide(s); // 9b
  // the model is served whatever the state, so a refusal can still be explained and compared
  buildModel(s);
  s.free();
  current = null;
  return A.OK;
}

/**
 * Runs task k of the phase under way on this instance and takes its output (the fit's own instance), or,
 * on a helper instance (loadTasks), keeps the output for the host to read (taskOutput).
 */
export function runTask(k: i32): i32 {
  if (current != null) {
    const s = current!;
    if (k < 0 || k >= s.ctx.tasks) return A.ERR_BAD_INPUT;
    const out = runTaskOf(s.ctx, s.ctx.first + k);
    const ok = putTask(s, s.ctx.first + k, out, outLen);
    release(out);
    return ok ? A.OK : A.ERR_BAD_INPUT;
  }
  if (helper.phase == PHASE_DONE || k < 0 || k >= helper.tasks) return A.ERR_BAD_INPUT;
  release(helperOut);
  helperOut = runTaskOf(helper, helper.first + k);
  helperOutLen = outLen;
  return A.OK;
}

/** The task block of the phase under way (for helper instances), and its length in bytes. */
export function taskBlock(): usize { return current == null ? 0 : current!.ctx.block; }
export function taskBlockLength(): i32 { return current == null ? 0 : current!.ctx.blockLen; }

/** A helper instance takes a task block the host copied into its memory (it owns it from now on). */
export function loadTasks(ptr: usize, len: i32): i32 {
  if (current != null) return A.ERR_BAD_INPUT;
  return loadBlock(helper, ptr, len) ? A.OK : A.ERR_BAD_INPUT;
}
export function taskOutput(): usize { return helperOut; }
export function taskOutputLength(): i32 { return helperOutLen; }

/** The fit's instance takes task k's output (f64 [len]) computed on a helper instance. */
export function putTaskOutput(k: i32, ptr: usize, len: i32): i32 {
  if (current == null) return A.ERR_BAD_INPUT;
  const s = current!;
  if (k < 0 || k >= s.ctx.tasks) return A.ERR_BAD_INPUT;
  return putTask(s, s.ctx.first + k, ptr, len) ? A.OK : A.ERR_BAD_INPUT;
}

/** A whole fit on this instance: fitStart, then every task of every phase here, in task order. */
export function runFit(
  n: i32, m: i32, eBytes: usize, eOffs: usize, y: usize, t: usize, k: usize, d: usize, c: usize,
): i32 {
  const st = fitStart(n, m, eBytes, eOffs, y, t, k, d, c);
  if (st != A.OK) return st;
  while (current != null) {
    const count = current!.ctx.tasks;
    for (let i = 0; i < count; i++) {
      const r = runTask(i);
      if (r != A.OK) return r;
    }
    const r2 = fitAdvance();
    if (r2 != A.OK) return r2;
  }
  return A.OK;
}

// ---- 1. canonical row order: (entity hash, entity bytes, time, values, outcome) ----

// The fit whose rows the comparators order (AS function pointers carry no closure).
let sorting: FitState | null = null;

function orderRows(s: FitState): void {
  const n = s.n, entOffs = s.entOffs;
  const rowHash = allocF64(n);
  s.rowHash = rowHash;
  for (let i = 0; i < n; i++) {
    const st = ldi(entOffs, i);
    stl(rowHash, i, fnv1a64(s.entBytes + <usize>st, ldi(entOffs, i + 1) - st));
  }
  const ord = allocI32(n);
  s.order = ord;
  for (let i = 0; i < n; i++) sti(ord, i, i);
  sorting = s;
  // Readable version: sortIndices(ord, n, cmpCanonical); cmpCanonical compares the entity hashes first.
  sortIndicesByU64Hash(ord, n, rowHash, cmpCanonical);

  // entities: adjacent in canonical order
  const entityOfRow = allocI32(n);
  s.entityOfRow = entityOfRow;
  let nEnt = 0;
  for (let q = 0; q < n; q++) {
    const r = ldi(ord, q);
    if (q > 0) {
      const prev = ldi(ord, q - 1);
      if (ldl(rowHash, prev) != ldl(rowHash, r) || cmpEntity(s, prev, r) != 0) nEnt++;
    }
    sti(entityOfRow, r, nEnt);
  }
  nEnt++;
  s.nEntities = nEnt;
  s.out.setMetric(A.M_ENTITIES, <f64>nEnt);
}

function cmpCanonical(a: i32, b: i32): i32 {
  const s = sorting!;
  const ha = ldl(s.rowHash, a), hb = ldl(s.rowHash, b);
  if (ha != hb) return ha < hb ? -1 : 1;
  const c = cmpEntity(s, a, b);
  if (c != 0) return c;
  if (s.times != 0) {
    const c2 = cmpNum(ldf(s.times, a), ldf(s.times, b));
    if (c2 != 0) return c2;
  }
  for (let j = 0; j < s.m; j++) {
    const k = ldi(s.kinds, j);
    if (k == A.KIND_SKIP) continue;
    const p = <usize>ldi(s.data, j);
    const c3 = k == A.KIND_NUMERIC ? cmpNum(ldf(p, a), ldf(p, b)) : ldi(p, a) - ldi(p, b);
    if (c3 != 0) return c3 < 0 ? -1 : 1;
  }
  return cmpNum(ldf(s.outcome, a), ldf(s.outcome, b));
}

/** NaN sorts first; otherwise numeric order. */
@inline function cmpNum(x: f64, y: f64): i32 {
  const nx = x != x, ny = y != y;
  if (nx || ny) return nx && ny ? 0 : (nx ? -1 : 1);
  return x < y ? -1 : (x > y ? 1 : 0);
}

function cmpEntity(s: FitState, a: i32, b: i32): i32 {
  const entOffs = s.entOffs, entBytes = s.entBytes;
  const sa = ldi(entOffs, a), la = ldi(entOffs, a + 1) - sa;
  const sb = ldi(entOffs, b), lb = ldi(entOffs, b + 1) - sb;
  const m = la < lb ? la : lb;
  for (let i = 0; i < m; i++) {
    const x = <i32>load<u8>(entBytes + <usize>(sa + i)), y = <i32>load<u8>(entBytes + <usize>(sb + i));
    if (x != y) return x < y ? -1 : 1;
  }
  return la == lb ? 0 : (la < lb ? -1 : 1);
}

// ---- 2. held-out split by entity: hash, or out of time ----

/** Which entities are held out (single split) and each entity's fold (cross-fitted). */
function splitEntities(s: FitState): void {
  const n = s.n, nEnt = s.nEntities, entityOfRow = s.entityOfRow;
  s.entHeld = allocU8(nEnt);
  s.entFold = allocU8(nEnt);
  const entLabeled = allocU8(nEnt);
  const entHash = allocF64(nEnt);
  for (let i = 0; i < n; i++) {
    stl(entHash, ldi(entityOfRow, i), ldl(s.rowHash, i));
    const yi = ldf(s.outcome, i);
    if (yi == 0 || yi == 1) stb(entLabeled, ldi(entityOfRow, i), 1);
  }
  if (s.times != 0) {
    s.out.setMetric(A.M_SCHEME, 1);
    const entTime = allocF64(nEnt);
    s.entTime = entTime;
    for (let e = 0; e < nEnt; e++) stf(entTime, e, -Infinity);
    for (let i = 0; i < n; i++) {
      const ti = ldf(s.times, i);
      const e = ldi(entityOfRow, i);
      if (ti == ti && ti > ldf(entTime, e)) stf(entTime, e, ti);
    }
    let nLab = 0;
    const eord = allocI32(nEnt);
    for (let e = 0; e < nEnt; e++) if (ldb(entLabeled, e) != 0) { sti(eord, nLab, e); nLab++; }
    sorting = s;
    sortIndices(eord, nLab, cmpEntityTime);
    const nHeld = <i32>Math.ceil(<f64>nLab * HELD_OUT_FRACTION);
    for (let q = nLab - nHeld; q < nLab; q++) stb(s.entHeld, ldi(eord, q), 1);
    release(eord);
  } else {
    // entity hash: fold f holds the entities whose hash lands in [f / K, (f + 1) / K) of the range;
    // fold 0 is also the single split's held-out 25% (K = 4)
    for (let e = 0; e < nEnt; e++) {
      const u = mix64(ldl(entHash, e)) % 10000;
      if (<f64>u < HELD_OUT_FRACTION * 10000) stb(s.entHeld, e, 1);
      stb(s.entFold, e, <i32>(u * <u64>CROSS_FOLDS / 10000));
    }
  }
  release(entLabeled); release(entHash);
}

function cmpEntityTime(a: i32, b: i32): i32 {
  const entTime = sorting!.entTime;
  return cmpNum(ldf(entTime, a), ldf(entTime, b));
}

/**
 * The scheme and the row lists. A record whose single-split training part would be too small for pair
 * terms, or whose held-out part too few of the rarer class (isCrossFitted), is cross-fitted instead (every
 * labeled row is held out once; see CROSS_FOLDS), others keep the split. Labeled rows in canonical order go
 * to training and held-out (cross-fitted: all of them to both, and foldOf says which fold each training
 * position belongs to).
 */
function splitRows(s: FitState): void {
  const n = s.n, outcome = s.outcome, out = s.out;
  let labeled = 0, positives = 0;
  for (let i = 0; i < n; i++) {
    const yi = ldf(outcome, i);
    if (yi == 0 || yi == 1) { labeled++; if (yi == 1) positives++; }
  }
  s.labeled = labeled; s.positives = positives;
  const columns = sentColumns(s);
  s.wide = columns >= TREE_CROSS_WIDE_FROM;
  const small = s.times == 0 && isCrossFitted(labeled, min(positives, labeled - positives), s.wide);
  const narrow = !small && s.times == 0 && isNarrowCrossFitted(labeled, columns);
  const crossFit = small || narrow;
  s.crossFit = crossFit;
  s.bagsPerFold = small ? BAGS_PER_FOLD : (narrow ? NARROW_BAGS_PER_FOLD : 0);
  if (crossFit) out.setMetric(A.M_SCHEME, 2);
  out.setMetric(A.M_FOLDS, crossFit ? <f64>CROSS_FOLDS : 1);

  const trainRows = allocI32(n), heldRows = allocI32(n), foldOf = allocU8(n);
  const foldRowCount = allocI32(CROSS_FOLDS), foldPositives = allocI32(CROSS_FOLDS);
  s.trainRows = trainRows; s.heldRows = heldRows; s.foldOf = foldOf;
  s.foldRowCount = foldRowCount; s.foldPositives = foldPositives;
  const ord = s.order, entityOfRow = s.entityOfRow, rowSplit = out.rowSplit;
  let nTrain = 0, nHeld = 0, trainPos = 0, heldPos = 0;
  for (let q = 0; q < n; q++) {
    const r = ldi(ord, q);
    const yr = ldf(outcome, r);
    if (yr != 0 && yr != 1) { stb(rowSplit, r, A.ROW_UNLABELED); continue; }
    const e = ldi(entityOfRow, r);
    if (crossFit) {
      const f = ldb(s.entFold, e);
      stb(foldOf, nTrain, f);
      sti(foldRowCount, f, ldi(foldRowCount, f) + 1);
      if (yr == 1) sti(foldPositives, f, ldi(foldPositives, f) + 1);
      sti(trainRows, nTrain++, r); sti(heldRows, nHeld++, r);
      if (yr == 1) { trainPos++; heldPos++; }
      stb(rowSplit, r, A.ROW_HELD_OUT);
    } else if (ldb(s.entHeld, e) != 0) {
      sti(heldRows, nHeld++, r); if (yr == 1) heldPos++;
      stb(rowSplit, r, A.ROW_HELD_OUT);
    } else {
      sti(trainRows, nTrain++, r); if (yr == 1) trainPos++;
      stb(rowSplit, r, A.ROW_TRAIN);
    }
  }
  s.nTrain = nTrain; s.nHeld = nHeld; s.trainPos = trainPos; s.heldPos = heldPos;
  out.setMetric(A.M_LABELED_ROWS, <f64>labeled);
  out.setMetric(A.M_POSITIVES, <f64>positives);
  out.setMetric(A.M_TRAIN_ROWS, <f64>nTrain);
  out.setMetric(A.M_HELD_ROWS, <f64>nHeld);
  out.setMetric(A.M_HELD_LABELED, <f64>nHeld);
  out.setMetric(A.M_HELD_POSITIVES, <f64>heldPos);
  out.setMetric(A.M_TRAIN_POSITIVES, <f64>trainPos);
  out.setMetric(A.M_TRAIN_BASE_RATE, nTrain > 0 ? <f64>trainPos / <f64>nTrain : 0);
  out.setMetric(A.M_HELD_BASE_RATE, nHeld > 0 ? <f64>heldPos / <f64>nHeld : 0);
  out.setMetric(A.M_CAL_SLOPE, 1);
}

/** Whether a record of this many labeled rows, `minority` of them of the rarer class (and no time column), is
 * cross-fitted: its single split's training part would be too small for pair terms (a wide record's: under
 * CROSS_WIDE_MIN_ROWS, docs/decisions/0101-wide-records-cross-fitted-to-2000-rows.md), or its held-out part would
 * hold too few of the rarer class to check anything (docs/decisions/0082-small-records.md). */
function isCrossFitted(labeled: i32, minority: i32, wide: bool): bool {
  return <f64>labeled * (1 - HELD_OUT_FRACTION) < <f64>(wide ? CROSS_WIDE_MIN_ROWS : PAIR_MIN_ROWS)
    || <f64>minority < requiredMinority(MIN_TRAIN_MINORITY, false);
}

/** Whether a narrow record (fewer than NARROW_CROSS_COLS columns sent) that isCrossFitted leaves to a single split
 * is cross-fitted with NARROW_BAGS_PER_FOLD bag a fold: its single split would train on NARROW_CROSS_FROM to
 * NARROW_CROSS_ROWS rows, and the quarter it holds out would cost its served model more than cross-fitting costs (tunables.ts;
 * docs/decisions/0099-narrow-records-cross-fitted.md). */
function isNarrowCrossFitted(labeled: i32, columns: i32): bool {
  const train = <f64>labeled * (1 - HELD_OUT_FRACTION);
  return columns < NARROW_CROSS_COLS && train >= <f64>NARROW_CROSS_FROM && train < <f64>NARROW_CROSS_ROWS;
}

/** Columns the caller sent as predictors (every column not marked skip). */
function sentColumns(s: FitState): i32 {
  let k = 0;
  for (let j = 0; j < s.m; j++) if (ldi(s.kinds, j) != A.KIND_SKIP) k++;
  return k;
}

// ---- 3-4. binning and guards on the training part ----

function binColumns(s: FitState): void {
  const n = s.n, m = s.m, nTrain = s.nTrain, trainRows = s.trainRows, out = s.out;
  const colBins = new Array<ColumnBins>(m);
  s.colBins = colBins;
  const usableIdx = allocI32(m > 0 ? m : 1);
  s.usableIdx = usableIdx;
  let u = 0;
  const binsAll = allocU8(m * n > 0 ? m * n : 1); // [usable * n + row]
  s.binsAll = binsAll;
  const yTrain = allocF64(nTrain > 0 ? nTrain : 1);
  s.yTrain = yTrain;
  for (let q = 0; q < nTrain; q++) stf(yTrain, q, ldf(s.outcome, ldi(trainRows, q)));
  for (let j = 0; j < m; j++) {
    reportProgress(A.P_BINNING, j, m);
    const kj = ldi(s.kinds, j);
    if (kj == A.KIND_SKIP) { sti(out.exclusions, j, A.EXCL_HOST); colBins[j] = new ColumnBins(); continue; }
    const p = <usize>ldi(s.data, j);
    const cb = kj == A.KIND_NUMERIC ? binNumeric(p, trainRows, nTrain) : binCategorical(p, trainRows, nTrain, ldi(s.cards, j));
    colBins[j] = cb;
    const dst = binsAll + <usize>u * <usize>n;
    const aux = cb.aux, nAux = cb.nAux;
    for (let i = 0; i < n; i++) {
      const b = kj == A.KIND_NUMERIC ? numericBin(ldf(p, i), aux, nAux) : categoricalBin(ldi(p, i), aux, nAux);
      store<u8>(dst + <usize>i, <u8>b);
    }
    // constant on the training part: all training rows share one bin
    let first = -1, distinctBins = 0;
    for (let q = 0; q < nTrain; q++) {
      const b = <i32>load<u8>(dst + <usize>ldi(trainRows, q));
      if (q == 0) { first = b; distinctBins = 1; } else if (b != first) { distinctBins = 2; break; }
    }
    if (distinctBins < 2) { sti(out.exclusions, j, A.EXCL_CONSTANT); continue; }
    const auc = univariateAuc(kj, dst, trainRows, nTrain, yTrain, cb.nBins);
    stf(out.columnAuc, j, auc);
    if (auc >= RESTATES_AUC) { sti(out.exclusions, j, A.EXCL_RESTATES); continue; }
    sti(usableIdx, u, j);
    u++;
  }
  reportProgress(A.P_BINNING, m, m);
  s.u = u;
  out.setMetric(A.M_USABLE_COLUMNS, <f64>u);
  // the usable columns as the bags see them
  s.uKinds = allocI32(u); s.uBins = allocI32(u);
  for (let c = 0; c < u; c++) {
    const j = ldi(usableIdx, c);
    sti(s.uKinds, c, ldi(s.kinds, j) == A.KIND_NUMERIC ? 0 : 1);
    sti(s.uBins, c, colBins[j].nBins);
  }
}

/**
 * Held-in AUC of one column on its own: numeric columns rank by bin order (missing rows left out),
 * categorical columns by each bin's training positive rate. Reported as max(AUC, 1 - AUC). From the
 * per-bin class counts: the Mann-Whitney count (ties half) is a sum of integers and halves, exact in
 * f64, divided once by positives x negatives (a sort of every row per column cost more than the
 * rest of steps 1-4 together on 100,000 rows).
 */
function univariateAuc(kind: i32, bins: usize, rows: usize, nRows2: i32, ys: usize, nBins: i32): f64 {
  memory.fill(AUC_POS, 0, <usize>BIN_STRIDE << 3);
  memory.fill(AUC_NEG, 0, <usize>BIN_STRIDE << 3);
  for (let q = 0; q < nRows2; q++) {
    const b = <i32>load<u8>(bins + <usize>ldi(rows, q));
    if (kind == A.KIND_NUMERIC && b == 0) continue;
    if (ldf(ys, q) > 0.5) stf(AUC_POS, b, ldf(AUC_POS, b) + 1); else stf(AUC_NEG, b, ldf(AUC_NEG, b) + 1);
  }
  // bins in score order: numeric by bin, categorical by positive rate (ties share a score)
  let k = 0;
  for (let b = kind == A.KIND_NUMERIC ? 1 : 0; b < nBins; b++) {
    const c = ldf(AUC_POS, b) + ldf(AUC_NEG, b);
    if (c == 0) continue;
    stf(AUC_SCORE, b, kind == A.KIND_NUMERIC ? <f64>b : ldf(AUC_POS, b) / c);
    sti(AUC_ORDER, k, b);
    k++;
  }
  if (kind != A.KIND_NUMERIC) {
    for (let i = 1; i < k; i++) { // insertion sort by score (k <= 256)
      const b = ldi(AUC_ORDER, i);
      const r = ldf(AUC_SCORE, b);
      let j = i - 1;
      while (j >= 0 && ldf(AUC_SCORE, ldi(AUC_ORDER, j)) > r) { sti(AUC_ORDER, j + 1, ldi(AUC_ORDER, j)); j--; }
      sti(AUC_ORDER, j + 1, b);
    }
  }
  let nPos = 0.0, nNeg = 0.0, wins = 0.0, negBelow = 0.0;
  let i = 0;
  while (i < k) {
    const score = ldf(AUC_SCORE, ldi(AUC_ORDER, i));
    let posIn = 0.0, negIn = 0.0;
    while (i < k && ldf(AUC_SCORE, ldi(AUC_ORDER, i)) == score) {
      const b = ldi(AUC_ORDER, i);
      posIn += ldf(AUC_POS, b); negIn += ldf(AUC_NEG, b);
      i++;
    }
    wins += posIn * negBelow + 0.5 * posIn * negIn;
    negBelow += negIn; nPos += posIn; nNeg += negIn;
  }
  if (nPos == 0 || nNeg == 0) return 0.5;
  const auc = wins / (nPos * nNeg);
  return auc >= 0.5 ? auc : 1 - auc;
}

const AUC_POS = allocF64(BIN_STRIDE);
const AUC_NEG = allocF64(BIN_STRIDE);
const AUC_SCORE = allocF64(BIN_STRIDE);
const AUC_ORDER = allocI32(BIN_STRIDE);

// ---- 9a. not_yet, or no predictor left ----

/**
 * not_yet: too few labeled rows or positives to check anything. Cross-fitted, every labeled row is held
 * out once and each fold's model trains on the other folds' rows, so the training bar applies to the
 * expected share (K-1)/K of each class (not to the folds as the hash happened to cut them: the state must
 * not flip on which entity landed in which fold). Returns true (state set) when the fit stops here.
 */
function notYet(s: FitState): bool {
  const out = s.out, crossFit = s.crossFit;
  const labeled = s.labeled, positives = s.positives;
  const nTrain = s.nTrain, nHeld = s.nHeld, trainPos = s.trainPos, heldPos = s.heldPos;
  const heldNeg = nHeld - heldPos;
  // The bars do not grow with the number of columns: a boosted additive model with early stopping does
  // not need rows in proportion to columns, and the held-out test decides between answered and refused.
  const minorityNeed = crossFit ? MIN_CROSS_TRAIN_MINORITY : MIN_TRAIN_MINORITY;
  const trainShare = crossFit ? 1.0 - 1.0 / <f64>CROSS_FOLDS : 1.0;
  const trainMinority = <i32>Math.floor(<f64>min(trainPos, nTrain - trainPos) * trainShare);
  const trainPosShare = <i32>Math.floor(<f64>trainPos * trainShare);
  let emptyFold = false;
  if (crossFit) for (let f = 0; f < CROSS_FOLDS; f++) if (ldi(s.foldRowCount, f) == 0) emptyFold = true;
  let reasons = 0;
  if (positives == 0) reasons |= A.R_NO_POSITIVES;
  if (nHeld == 0 || nTrain == 0 || emptyFold) reasons |= A.R_TOO_FEW_TO_HOLD_OUT;
  if (heldPos < MIN_HELD_CLASS || heldNeg < MIN_HELD_CLASS || trainMinority < minorityNeed) {
    reasons |= A.R_TOO_FEW_LABELED_ROWS;
    const posMinority = positives <= labeled - positives;
    if (posMinority && (heldPos < MIN_HELD_CLASS || trainPosShare < minorityNeed)) reasons |= A.R_TOO_FEW_POSITIVES;
  }
  if (reasons == 0) return false;
  out.setMetric(A.M_STATE, <f64>A.STATE_NOT_YET);
  out.setMetric(A.M_REASONS, <f64>reasons);
  // needs: labeled rows at the observed prevalence that would clear both bars in expectation,
  // under the scheme a record of that size gets
  const minority = min(positives, labeled - positives);
  let required = requiredMinority(minorityNeed, crossFit);
  if (minority == 0) {
    out.setMetric(A.M_NEEDS_LABELED, -1);
    out.setMetric(A.M_NEEDS_POSITIVES, positives == 0 ? required : 0);
  } else {
    const rate = <f64>minority / <f64>labeled;
    let target = Math.ceil(required / rate);
    if (crossFit && !isCrossFitted(<i32>Math.min(target, 1e9), <i32>Math.min(required, 1e9), s.wide)) {
      required = requiredMinority(MIN_TRAIN_MINORITY, false);
      target = Math.ceil(required / rate);
    }
    out.setMetric(A.M_NEEDS_LABELED, Math.max(1, target - <f64>labeled));
    const posMinority = positives <= labeled - positives;
    out.setMetric(A.M_NEEDS_POSITIVES, posMinority ? Math.max(0, required - <f64>positives) : 0);
  }
  return true;
}

/** Rows of the rarer class that clear the held-out and training bars in expectation. */
function requiredMinority(minorityNeed: i32, crossFitted: bool): f64 {
  const heldShare = crossFitted ? 1.0 : HELD_OUT_FRACTION;
  const trainShare = crossFitted ? 1.0 - 1.0 / <f64>CROSS_FOLDS : 1.0 - HELD_OUT_FRACTION;
  return Math.max(Math.ceil(<f64>MIN_HELD_CLASS / heldShare), Math.ceil(<f64>minorityNeed / trainShare));
}

/** Refused with too_few_predictors when the guards left no usable column; returns true when so. */
function noPredictors(s: FitState): bool {
  if (s.u != 0) return false;
  s.out.setMetric(A.M_STATE, <f64>A.STATE_REFUSED);
  s.out.setMetric(A.M_REASONS, <f64>A.R_TOO_FEW_PREDICTORS);
  s.out.setMetric(A.M_NEEDS_COLUMNS, 1);
  return true;
}

// ---- 9b. the held-out decision ----

/**
 * Answered only when the held-out logits beat chance on AUC and the base rate on log loss (docs/design/engine.md
 * step 9); writes the held-out quality numbers and each held-out row's logit. A cross-fitted record's AUC must
 * clear Z_AUC_CROSS (docs/decisions/0068-cross-fitted-refusal-bar.md: its folds' out-of-fold scores are correlated).
 */
function decide(s: FitState): void {
  const out = s.out, nHeld = s.nHeld, sH = s.heldLogit, baseH = s.heldBase;
  const yH = allocF64(nHeld);
  // the case of each held-out row (dense ids): a case of several rows is one piece of evidence, not several
  const caseOf = allocI32(nHeld), caseId = allocI32(s.nEntities);
  for (let e = 0; e < s.nEntities; e++) sti(caseId, e, -1);
  let nCases = 0;
  for (let q = 0; q < nHeld; q++) {
    const r = ldi(s.heldRows, q);
    stf(yH, q, ldf(s.outcome, r));
    stf(out.heldLogits, r, ldf(sH, q));
    const e = ldi(s.entityOfRow, r);
    if (ldi(caseId, e) < 0) { sti(caseId, e, nCases); nCases++; }
    sti(caseOf, q, ldi(caseId, e));
  }
  const auc = aucDeLong(sH, yH, nHeld, caseOf, nCases);
  const zAuc = aucZ(auc.auc, auc.se, yH, nHeld);
  // the chances tested: a single split's held-out logits are the served model's; cross-fitted, each fold model's
  // out-of-fold logits scaled as the served model is, by a temperature chosen on the other folds (bags.ts
  // crossTempered). The AUC above reads the fold models' own logits (a temperature keeps a fold's ranking).
  const sL = s.crossFit ? crossTempered(s, sH) : sH;
  let llSum = 0.0, llBaseSum = 0.0, brier = 0.0;
  const diffs = allocF64(nHeld);
  for (let q = 0; q < nHeld; q++) {
    const sq = ldf(sL, q), yq = ldf(yH, q);
    const ll = clippedLogLoss(sq, yq);
    const lb = constLogLoss(ldf(baseH, q), yq);
    llSum += ll; llBaseSum += lb;
    stf(diffs, q, lb - ll);
    const p = sigmoid(sq);
    brier += (p - yq) * (p - yq);
  }
  const meanDiff = (llBaseSum - llSum) / <f64>nHeld;
  let ssd = 0.0;
  for (let q = 0; q < nHeld; q++) { const d2 = ldf(diffs, q) - meanDiff; ssd += d2 * d2; }
  const sdDiff = nHeld > 1 ? Math.sqrt(ssd / <f64>(nHeld - 1)) : 0;
  let seDiff = sdDiff / Math.sqrt(<f64>nHeld);
  if (nCases < nHeld) { // some case has several held-out rows: the larger of the two errors
    const seC = clusteredMeanSe(diffs, nHeld, caseOf, nCases, meanDiff);
    if (seC > seDiff) seDiff = seC;
  }
  const zLl = seDiff > 0 ? meanDiff / seDiff : (meanDiff > 0 ? 1e9 : 0);
  out.setMetric(A.M_AUC, auc.auc);
  out.setMetric(A.M_AUC_LO, Math.max(0, auc.auc - Z_INTERVAL * auc.se));
  out.setMetric(A.M_AUC_HI, Math.min(1, auc.auc + Z_INTERVAL * auc.se));
  out.setMetric(A.M_AUC_Z, zAuc);
  out.setMetric(A.M_LOG_LOSS, llSum / <f64>nHeld);
  out.setMetric(A.M_LOG_LOSS_BASE, llBaseSum / <f64>nHeld);
  out.setMetric(A.M_LOG_LOSS_Z, zLl);
  out.setMetric(A.M_BRIER, brier / <f64>nHeld);
  out.setMetric(A.M_TOP_DECILE_LIFT, topLift(sH, yH, nHeld, 0.1));
  out.setMetric(A.M_REALISED_LIFT, topLift(sH, yH, nHeld, 0.2));
  if (zAuc >= (s.crossFit ? Z_AUC_CROSS : Z_AUC) && zLl >= Z_LOG_LOSS) {
    out.setMetric(A.M_STATE, <f64>A.STATE_ANSWERED);
  } else {
    out.setMetric(A.M_STATE, <f64>A.STATE_REFUSED);
    out.setMetric(A.M_REASONS, <f64>A.R_NO_FINDING_CLEARED);
  }
  if (s.crossFit) release(sL);
  release(yH); release(diffs); release(caseOf); release(caseId);
}

@inline function clippedLogLoss(s: f64, y: f64): f64 {
  const p = sigmoid(s);
  return constLogLoss(p, y);
}
