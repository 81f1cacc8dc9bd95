// The engine ABI in one place: column kinds, status codes, metric slots and the model layout.
// Only numbers cross the boundary (docs/design/engine.md, docs/design/house-rules.md#rules). host/engine/abi.ts mirrors this
// file and test/engine/abi.test.ts fails when the two disagree, so every constant here is a plain
// `export const NAME: type = literal;` line that the test can read.

// Column kinds given by the host for each input column.
export const KIND_NUMERIC: i32 = 0; // f64 per row, NaN = missing
export const KIND_CATEGORICAL: i32 = 1; // i32 code per row into a host dictionary sorted by value; -1 missing
export const KIND_SKIP: i32 = 2; // excluded by the host (entity, time, identifier, outcome, empty); no data

// Status codes returned by every export.
export const OK: i32 = 0;
export const ERR_BAD_INPUT: i32 = 1; // sizes or pointers do not make sense
export const ERR_BAD_MODEL: i32 = 2; // the model bytes are not a model of this engine version

// Phases of a fit in progress (fit.ts fitStart): each phase is fitTaskCount() tasks, one per bag (a single split's
// pairs and trees: a batch of the bags, then the rest while their gate can pass, bags.ts nextGatedBatch).
export const PHASE_DONE: i32 = 0;
export const PHASE_BAGS: i32 = 1; // boost each bag's main terms
export const PHASE_PAIRS: i32 = 2; // boost the selected pairs on top of each bag's main terms
export const PHASE_TREES: i32 = 3; // boost residual trees on top of each bag's main terms and kept pairs

// Answer states (docs/reference/ask.md#states).
export const STATE_ANSWERED: i32 = 0;
export const STATE_REFUSED: i32 = 1;
export const STATE_NOT_YET: i32 = 2;

// Reason code bits (docs/reference/ask.md#answer).
export const R_NO_FINDING_CLEARED: i32 = 1;
export const R_TOO_FEW_PREDICTORS: i32 = 2;
export const R_TOO_FEW_LABELED_ROWS: i32 = 4;
export const R_TOO_FEW_POSITIVES: i32 = 8;
export const R_NO_POSITIVES: i32 = 16;
export const R_TOO_FEW_TO_HOLD_OUT: i32 = 32;

// Per-column exclusion codes written by a fit (docs/reference/ask.md#quality quality.excluded_columns `why`).
export const EXCL_NONE: i32 = 0;
export const EXCL_CONSTANT: i32 = 1;
export const EXCL_RESTATES: i32 = 2;
export const EXCL_HOST: i32 = 3; // the host passed KIND_SKIP; it knows why

// Per-row split codes written by a fit (original row order).
export const ROW_TRAIN: u8 = 0;
export const ROW_HELD_OUT: u8 = 1;
export const ROW_UNLABELED: u8 = 2;

// Metric slots of the fit result (f64 array of METRIC_COUNT).
export const M_STATE: i32 = 0;
export const M_REASONS: i32 = 1;
export const M_AUC: i32 = 2;
export const M_AUC_LO: i32 = 3;
export const M_AUC_HI: i32 = 4;
export const M_AUC_Z: i32 = 5;
export const M_LOG_LOSS: i32 = 6;
export const M_LOG_LOSS_BASE: i32 = 7;
export const M_LOG_LOSS_Z: i32 = 8;
export const M_BRIER: i32 = 9;
export const M_HELD_BASE_RATE: i32 = 10;
export const M_TRAIN_BASE_RATE: i32 = 11;
export const M_TOP_DECILE_LIFT: i32 = 12;
export const M_REALISED_LIFT: i32 = 13;
export const M_TRAIN_ROWS: i32 = 14;
export const M_HELD_ROWS: i32 = 15;
export const M_HELD_POSITIVES: i32 = 16;
export const M_LABELED_ROWS: i32 = 17;
export const M_POSITIVES: i32 = 18;
export const M_NEEDS_LABELED: i32 = 19; // -1 = cannot be estimated (null)
export const M_NEEDS_POSITIVES: i32 = 20;
export const M_USABLE_COLUMNS: i32 = 21;
export const M_SCHEME: i32 = 22; // 0 entity_hash, 1 out_of_time, 2 entity_hash_folds (cross-fitted)
export const M_PAIRS: i32 = 23; // interaction terms kept: pairs and tree terms
export const M_CAL_SLOPE: i32 = 24;
export const M_CAL_APPLIED: i32 = 25;
export const M_MEAN_ROUNDS: i32 = 26;
export const M_ENTITIES: i32 = 27;
export const M_NEEDS_COLUMNS: i32 = 28;
export const M_TRAIN_POSITIVES: i32 = 29;
export const M_HELD_LABELED: i32 = 30;
export const M_PAIRS_TRIED: i32 = 31; // interaction terms tried: pairs and tree terms
export const M_FOLDS: i32 = 32; // folds of the held-out check: 1 for a single split
export const M_TREES: i32 = 33; // residual trees kept (residual-trees.ts): 0 when the stage was not kept
export const M_TREES_TRIED: i32 = 34; // residual trees the bags boosted (0: not tried; a bag left unrun: none)
export const METRIC_COUNT: i32 = 35;

// Progress codes of the imported reportProgress(stage, done, total) (progress.ts): `done` of `total`.
export const P_ORDER: i32 = 1; // rows in canonical order: n of n
export const P_SPLIT: i32 = 2; // single held-out split made: done = training rows, total = held-out rows
export const P_SPLIT_FOLDS: i32 = 3; // cross-fitted instead: done = training rows, total = held-out rows
export const P_BINNING: i32 = 4; // columns binned and guarded: j of m
export const P_BAG: i32 = 5; // bags boosted: k of n (0 of n when the bags begin)
export const P_PAIRS: i32 = 6; // pair terms: 0 of 1 when the check begins
export const P_DECIDE: i32 = 7; // the held-out decision: 0 of 1 when it begins

// Model layout: a flat f64 array (little-endian bytes when serialised).
//   [0] MODEL_MAGIC  [1] nCols  [2] intercept  [3] nPairs  [4] nBags  [5] calibration slope
//   [6 .. 6+nCols)            offset of each column section
//   [6+nCols .. 6+nCols+nPairs) offset of each pair section
// Column section: [0] kind (0 numeric, 1 categorical, 2 unused) [1] nBins [2] nAux
//   [3 .. 3+nAux) aux: numeric cut points (ascending) or categorical code -> bin
//   then six arrays of nBins: term, bags_positive, bags_negative, training count, min value, max value
//   Numeric bins: 0 = missing, b >= 1 holds values v with cut[b-2] <= v < cut[b-1].
//   Categorical bins: 0 = missing, 1 = other (rare or unseen), 2.. = one value each.
// Pair section: [0] column j [1] column k [2] coarse bins of j (cj) [3] coarse bins of k (ck)
//   then map j fine->coarse (nBins_j), map k fine->coarse (nBins_k), table cj*ck (row-major in j).
// Tree-term section (a pair section whose [0] is negative): [0] -1 - column j [1] column k [2] column l
//   [3] stride (k's bins) [4] l's bins (nl), then the table: cell ((bin_j x stride + bin_k) x nl + bin_l).
// Forest section (a pair section whose [0] is MODEL_FOREST; at most one, after the others): [1] trees, then
//   FOREST_TREE slots a tree (residual-trees.ts SERVED_TREE, an oblivious tree of 4 levels): each level's column
//   (-1: the level does not cut), each level's bins going right as 8 words of 32 bits, its distinct columns (-1
//   padding), and for each of the 16 patterns of sides (the first level's the highest bit) each distinct column's
//   contribution. Models stored before it have no such section and read as before.
export const MODEL_MAGIC: f64 = 1000001.0; // 1e6 + layout version 1
export const MODEL_HEADER: i32 = 6;
export const MODEL_FOREST: f64 = -1000000000.0;
export const FOREST_TREE: i32 = 104;
export const COL_TERM: i32 = 0;
export const COL_POS: i32 = 1;
export const COL_NEG: i32 = 2;
export const COL_COUNT: i32 = 3;
export const COL_MIN: i32 = 4;
export const COL_MAX: i32 = 5;

// Reason strength codes written by scoring: sign = direction, 2 = strong, 1 = moderate.
export const STRONG: i32 = 2;
export const MODERATE: i32 = 1;
