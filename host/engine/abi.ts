// Host mirror of assembly/abi.ts: the numeric ABI of build/engine.wasm. test/engine/abi.test.ts fails
// when a value here differs from the engine's or names nothing there; counts the engine decides
// (metric slots, folds) are read from the engine itself when it loads (wasm.ts).

export const KIND_NUMERIC = 0;
export const KIND_CATEGORICAL = 1;
export const KIND_SKIP = 2;

export const OK = 0;
export const ERR_BAD_INPUT = 1;
export const ERR_BAD_MODEL = 2;

/** Phases of a fit in progress (assembly/fit.ts fitStart): each is fitTaskCount() tasks, one per bag or a batch of them. */
export const PHASE_DONE = 0;
export const PHASE_BAGS = 1;
export const PHASE_PAIRS = 2;
export const PHASE_TREES = 3;

export const STATE_NAMES = ['answered', 'refused', 'not_yet'] as const;
export type AnswerState = (typeof STATE_NAMES)[number];

/** Reason code bits, in the order they are reported. */
export const REASON_BITS: ReadonlyArray<[number, string]> = [
  [16, 'no_positives'],
  [4, 'too_few_labeled_rows'],
  [8, 'too_few_positives'],
  [32, 'too_few_to_hold_out'],
  [2, 'too_few_predictors'],
  [1, 'no_finding_cleared'],
];

export const EXCL_NONE = 0;
export const EXCL_CONSTANT = 1;
export const EXCL_RESTATES = 2;
export const EXCL_HOST = 3;

// Progress codes of the engine's reportProgress(stage, done, total) import (assembly/progress.ts).
export const P_ORDER = 1;
export const P_SPLIT = 2;
export const P_SPLIT_FOLDS = 3;
export const P_BINNING = 4;
export const P_BAG = 5;
export const P_PAIRS = 6;
export const P_DECIDE = 7;

export const ROW_TRAIN = 0;
export const ROW_HELD_OUT = 1;
export const ROW_UNLABELED = 2;

export const M = {
  STATE: 0,
  REASONS: 1,
  AUC: 2,
  AUC_LO: 3,
  AUC_HI: 4,
  AUC_Z: 5,
  LOG_LOSS: 6,
  LOG_LOSS_BASE: 7,
  LOG_LOSS_Z: 8,
  BRIER: 9,
  HELD_BASE_RATE: 10,
  TRAIN_BASE_RATE: 11,
  TOP_DECILE_LIFT: 12,
  REALISED_LIFT: 13,
  TRAIN_ROWS: 14,
  HELD_ROWS: 15,
  HELD_POSITIVES: 16,
  LABELED_ROWS: 17,
  POSITIVES: 18,
  NEEDS_LABELED: 19,
  NEEDS_POSITIVES: 20,
  USABLE_COLUMNS: 21,
  SCHEME: 22,
  PAIRS: 23,
  CAL_SLOPE: 24,
  CAL_APPLIED: 25,
  MEAN_ROUNDS: 26,
  ENTITIES: 27,
  NEEDS_COLUMNS: 28,
  TRAIN_POSITIVES: 29,
  HELD_LABELED: 30,
  PAIRS_TRIED: 31,
  FOLDS: 32,
  TREES: 33,
  TREES_TRIED: 34,
} as const;
export const METRIC_COUNT = 35;

// Model layout (see assembly/abi.ts).
export const MODEL_MAGIC = 1.0e6 + 1;
export const MODEL_HEADER = 6;
/** The first value of the model's forest section (residual trees), and the slots of one of its trees. */
export const MODEL_FOREST = -1e9;
export const FOREST_TREE = 104;
export const COL_TERM = 0;
export const COL_POS = 1;
export const COL_NEG = 2;
export const COL_COUNT = 3;
export const COL_MIN = 4;
export const COL_MAX = 5;

// Reason strength codes written by scoring: sign = direction.
export const STRONG = 2;
export const MODERATE = 1;

/** The raw exports of build/engine.wasm. */
export interface EngineExports {
  memory: WebAssembly.Memory;
  alloc(bytes: number): number;
  release(ptr: number): void;
  fit(n: number, m: number, eb: number, eo: number, y: number, t: number, k: number, d: number, c: number): number;
  fitStart(n: number, m: number, eb: number, eo: number, y: number, t: number, k: number, d: number, c: number): number;
  fitPhase(): number;
  fitTaskCount(): number;
  fitAdvance(): number;
  runTask(k: number): number;
  taskBlock(): number;
  taskBlockLength(): number;
  loadTasks(ptr: number, len: number): number;
  taskOutput(): number;
  taskOutputLength(): number;
  putTaskOutput(k: number, ptr: number, len: number): number;
  fitMetrics(): number;
  fitExclusions(): number;
  fitColumnAuc(): number;
  fitRowSplit(): number;
  fitHeldLogits(): number;
  fitModel(): number;
  fitModelLength(): number;
  metricCount(): number;
  crossFolds(): number;
  score(
    model: number,
    len: number,
    n: number,
    cols: number,
    p: number,
    contrib: number,
    bins: number,
    reasons: number,
    strength: number,
  ): number;
}
