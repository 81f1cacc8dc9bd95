// The state of one fit (fit.ts runs the steps over it) and the results the host reads afterwards.
// Every buffer a step allocates for later steps is a field here, and free() releases all of them.
import * as A from './abi';
import { stf, ldf, allocF64, allocI32, allocU8, release } from './mem';
import { ColumnBins } from './binning';
import { PairSet } from './pairs';
import { TaskCtx } from './tasks';

/** What a fit leaves for the host (index.ts): valid until the next fit on this instance. */
export class FitOutputs {
  metrics: usize = allocF64(A.METRIC_COUNT); // f64 [METRIC_COUNT]
  exclusions: usize = 0; // i32 [m]: EXCL_* per column
  columnAuc: usize = 0; // f64 [m]: univariate held-in AUC, NaN when not computed
  rowSplit: usize = 0; // u8 [n]: ROW_* per row
  heldLogits: usize = 0; // f64 [n]: logit of each held-out row under the model tested on it, NaN elsewhere
  model: usize = 0; // f64 [modelLen], layout in abi.ts
  modelLen: i32 = 0;

  /** Drops the previous fit's results and makes empty ones for n rows and m columns. */
  reset(n: i32, m: i32): void {
    memory.fill(this.metrics, 0, <usize>A.METRIC_COUNT << 3);
    release(this.exclusions); release(this.columnAuc); release(this.rowSplit); release(this.heldLogits);
    release(this.model);
    this.exclusions = allocI32(m);
    this.columnAuc = allocF64(m);
    for (let j = 0; j < m; j++) stf(this.columnAuc, j, NaN);
    this.rowSplit = allocU8(n);
    this.heldLogits = allocF64(n);
    for (let i = 0; i < n; i++) stf(this.heldLogits, i, NaN);
    this.model = 0; this.modelLen = 0;
  }

  @inline setMetric(slot: i32, v: f64): void { stf(this.metrics, slot, v); }
  @inline metric(slot: i32): f64 { return ldf(this.metrics, slot); }
}

/**
 * One fit's inputs and working state, filled step by step (fit.ts runFit). Row lists are in canonical
 * order; "usable" columns are the ones left after the guards, numbered 0..u-1.
 */
export class FitState {
  // ---- inputs: the host's blocks in this instance's memory (layout in index.ts), not owned ----
  n: i32 = 0;
  m: i32 = 0;
  entBytes: usize = 0;
  entOffs: usize = 0; // i32 [n + 1]
  outcome: usize = 0; // f64 [n]: 1, 0, NaN unlabeled
  times: usize = 0; // f64 [n] or 0 for no time column
  kinds: usize = 0; // i32 [m]
  data: usize = 0; // i32 [m]: pointer to each column's values
  cards: usize = 0; // i32 [m]
  out: FitOutputs;

  // ---- 1. canonical order ----
  rowHash: usize = 0; // u64 [n]: FNV-1a of each row's entity id
  order: usize = 0; // i32 [n]: rows in canonical order
  entityOfRow: usize = 0; // i32 [n]: entity index in canonical entity order
  nEntities: i32 = 0;

  // ---- 2. held-out split ----
  entHeld: usize = 0; // u8 [nEntities]: 1 when the entity is held out (single split)
  entFold: usize = 0; // u8 [nEntities]: the entity's fold (cross-fitted)
  entTime: usize = 0; // f64 [nEntities]: latest time of the entity (out of time)
  crossFit: bool = false;
  bagsPerFold: i32 = 0; // cross-fitted: bags of each fold model (tunables.ts BAGS_PER_FOLD, NARROW_BAGS_PER_FOLD)
  /** At least TREE_CROSS_WIDE_FROM columns sent (fit.ts sentColumns): the wide cross-fitting bar applies. */
  wide: bool = false;
  labeled: i32 = 0;
  positives: i32 = 0;
  trainRows: usize = 0; // i32 [nTrain]: labeled rows a model learns from
  heldRows: usize = 0; // i32 [nHeld]: labeled rows the decision is made on (cross-fitted: all of them, as trainRows)
  nTrain: i32 = 0;
  nHeld: i32 = 0;
  trainPos: i32 = 0;
  heldPos: i32 = 0;
  foldOf: usize = 0; // u8 [nTrain]: fold of each training position (cross-fitted)
  foldRowCount: usize = 0; // i32 [CROSS_FOLDS]
  foldPositives: usize = 0; // i32 [CROSS_FOLDS]

  // ---- 3-4. binning and guards ----
  colBins: Array<ColumnBins> = new Array<ColumnBins>(0); // per input column
  binsAll: usize = 0; // u8 [c * n + row]: bin of every row in each usable column c
  yTrain: usize = 0; // f64 [nTrain]
  usableIdx: usize = 0; // i32 [u]: input column of each usable column
  u: i32 = 0;
  uKinds: usize = 0; // i32 [u]: 0 numeric, 1 categorical
  uBins: usize = 0; // i32 [u]: bins of each usable column

  // ---- 5-7. bags and pairs: run as tasks (tasks.ts) the host may spread over engine instances ----
  ctx: TaskCtx = new TaskCtx(); // the current phase's task block
  taskDone: usize = 0; // u8 [nBags]: task k's output is in
  tasksLeft: i32 = 0;
  nBags: i32 = 0;
  bagTerms: usize = 0; // f64 [nBags * u * BIN_STRIDE]
  bagIntercepts: usize = 0; // f64 [nBags]
  bagRounds: usize = 0; // f64 [nBags]: each bag's kept round
  oobIdx: Array<usize> = new Array<usize>(0); // per bag, i32 [oobCount]: pool position of each validation row
  oobLogit: Array<usize> = new Array<usize>(0); // per bag, f64 [oobCount]: their logits under the bag's model
  oobCount: Array<i32> = new Array<i32>(0);
  candidatePairs: PairSet | null = null; // pairs being tried (pair phase)
  pairGains: usize = 0; // f64 [nBags]: each bag's gate gain from the pairs
  pairOob: Array<usize> = new Array<usize>(0); // per bag, f64 [oobCount]: validation logits with the pairs
  pairs: PairSet | null = null; // pairs kept
  foldPairs: Array<PairSet | null> = new Array<PairSet | null>(0); // cross-fitted: each fold model's kept pairs
  foldCandidates: Array<PairSet | null> = new Array<PairSet | null>(0); // cross-fitted: each fold's pairs being tried
  pairsTried: i32 = 0;
  // ---- the residual-tree stage (tree-stage.ts) ----
  treeGains: usize = 0; // f64 [nBags]: each bag's gate gain from its trees
  bagTrees: Array<usize> = new Array<usize>(0); // per bag, f64 [count * RAW_TREE]: its kept round's trees
  bagTreeCount: Array<i32> = new Array<i32>(0);
  treeOob: Array<usize> = new Array<usize>(0); // per bag, f64 [oobCount]: validation logits with the trees
  treeCandidate: usize = 0; // u8 [nBags]: the bag's trees passed its gate (0: not tried)
  servedTrees: usize = 0; // f64 [servedCount * RAW_TREE]: the trees kept
  servedCount: i32 = 0;
  treeWeight: f64 = 0; // each served tree's weight in the served logit (bag share times any rescale)
  treeMeanSum: f64 = 0; // sum of the served trees' mean values (their weighted sum is in the intercept)
  heldLogit: usize = 0; // f64 [nHeld]: held-out rows' logits under the model tested on them
  heldBase: usize = 0; // f64 [nHeld]: the base rate each could have been given without a model
  temperLogit: usize = 0; // f64 [nHeld] or 0: the out-of-fold logits the served temperature is chosen on (0: heldLogit)

  // ---- 8. the combined model ----
  counts: usize = 0; // f64 [u * BIN_STRIDE]: training rows per bin
  terms: usize = 0; // f64 [u * BIN_STRIDE]: bag-averaged, centred term of each bin
  posBags: usize = 0; // f64 [u * BIN_STRIDE]: bags whose centred term is positive
  negBags: usize = 0; // f64 [u * BIN_STRIDE]: and negative
  intercept: f64 = 0;

  constructor(out: FitOutputs) { this.out = out; }

  free(): void {
    release(this.rowHash); release(this.order); release(this.entityOfRow);
    release(this.entHeld); release(this.entFold); release(this.entTime);
    release(this.trainRows); release(this.heldRows);
    release(this.foldOf); release(this.foldRowCount); release(this.foldPositives);
    for (let j = 0; j < this.colBins.length; j++) release(this.colBins[j].aux);
    release(this.binsAll); release(this.yTrain); release(this.usableIdx); release(this.uKinds); release(this.uBins);
    this.ctx.free(); release(this.taskDone);
    release(this.bagTerms); release(this.bagIntercepts); release(this.bagRounds); release(this.pairGains);
    for (let bg = 0; bg < this.oobIdx.length; bg++) { release(this.oobIdx[bg]); release(this.oobLogit[bg]); }
    for (let bg = 0; bg < this.pairOob.length; bg++) release(this.pairOob[bg]);
    if (this.candidatePairs != null) this.candidatePairs!.free();
    if (this.pairs != null) this.pairs!.free();
    for (let f = 0; f < this.foldPairs.length; f++) if (this.foldPairs[f] != null) this.foldPairs[f]!.free();
    for (let f = 0; f < this.foldCandidates.length; f++) if (this.foldCandidates[f] != null) this.foldCandidates[f]!.free();
    release(this.treeGains); release(this.treeCandidate); release(this.servedTrees);
    for (let bg = 0; bg < this.bagTrees.length; bg++) { release(this.bagTrees[bg]); release(this.treeOob[bg]); }
    release(this.heldLogit); release(this.heldBase); release(this.temperLogit);
    release(this.counts); release(this.terms); release(this.posBags); release(this.negBags);
  }
}
