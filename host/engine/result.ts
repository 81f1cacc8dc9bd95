// Turns a fit's raw numbers into the typed result the operations use: state, reason codes,
// needs/have, quality (docs/reference/ask.md#answer) and the Model.
import { EXCL_CONSTANT, EXCL_RESTATES, M, REASON_BITS, STATE_NAMES, type AnswerState } from './abi.ts';
import type { EncodedTable, ExclusionWhy } from './encode.ts';
import type { RawFitOutput } from './fit-core.ts';
import { Model, type ModelColumn } from './model.ts';

export interface Quality {
  /**
   * How the held-out check was made (docs/design/engine.md#step-2): one 25% part by entity hash or by time, or,
   * on records too small for that to be fair (assembly/tunables.ts CROSS_FOLDS), `folds` folds by entity
   * hash, each held out once from a model fitted on the others. Read from the fit (M_FOLDS).
   */
  validation_scheme: 'entity_hash' | 'out_of_time' | 'entity_hash_folds';
  folds: number;
  auc: number | null;
  auc_interval: [number, number] | null;
  top_decile_lift: number | null;
  realised_lift: number | null;
  brier: number | null;
  log_loss: number | null;
  base_rate: number;
  training_rows: number;
  held_out_rows: number;
  held_out_positives: number;
  excluded_columns: Array<{ column: string; why: ExclusionWhy }>;
}

export interface FitResult {
  state: AnswerState;
  reasons: string[];
  needs: { labeled_rows: number | null; positives: number; columns?: number } | null;
  /**
   * What the record gave the fit (docs/reference/ask.md#answer `have`): `columns` the columns read as candidate
   * predictors (every column but the outcome, the entity, time and group columns, identifiers, wholly blank
   * ones and those a profile excludes), `predictive_columns` those left after the training part's guards (not
   * constant there, not restating the outcome). Absent when no fit ran (an empty record).
   */
  have: { labeled_rows: number; positives: number; columns?: number; predictive_columns?: number };
  quality: Quality;
  /** Present unless the state is not_yet or no predictor was left. */
  model: Model | null;
  /** Diagnostics that stay inside the service (tests, preflight, drift). */
  diagnostics: {
    aucZ: number;
    logLossZ: number;
    logLossBase: number;
    calibrationSlope: number;
    calibrationApplied: boolean;
    meanRounds: number;
    /** Interaction terms kept: pairs and tree terms (assembly/pairs.ts). */
    pairs: number;
    /** Interaction terms tried. */
    pairsTried: number;
    /** Residual trees kept (assembly/residual-trees.ts): 0 when the stage was not kept. */
    trees: number;
    /** Residual trees the bags boosted (0: the stage was not tried; the bags a failed gate left unrun boosted none). */
    treesTried: number;
    usableColumns: number;
    columnAuc: Record<string, number>;
    rowSplit: Uint8Array;
    /** Logit of each held-out row under the model tested on it (NaN elsewhere). */
    heldLogits: Float64Array;
  };
}

const SCHEMES: Array<Quality['validation_scheme']> = ['entity_hash', 'out_of_time', 'entity_hash_folds'];

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

export function interpretFit(raw: RawFitOutput, table: EncodedTable, coreHash: string): FitResult {
  const mt = raw.metrics;
  const state = STATE_NAMES[mt[M.STATE]];
  const bits = mt[M.REASONS];
  const reasons = REASON_BITS.filter(([bit]) => (bits & bit) !== 0).map(([, name]) => name);
  const excluded: Quality['excluded_columns'] = [];
  const columnAuc: Record<string, number> = {};
  table.columns.forEach((c, j) => {
    if (c.kind === 'skip') {
      if (c.why && c.why !== 'outcome') excluded.push({ column: c.name, why: c.why });
    } else if (raw.exclusions[j] === EXCL_CONSTANT) excluded.push({ column: c.name, why: 'constant' });
    else if (raw.exclusions[j] === EXCL_RESTATES) excluded.push({ column: c.name, why: 'restates_outcome' });
    if (Number.isFinite(raw.columnAuc[j])) columnAuc[c.name] = raw.columnAuc[j];
  });
  const tested = state !== 'not_yet' && !reasons.includes('too_few_predictors');
  const quality: Quality = {
    validation_scheme: SCHEMES[mt[M.SCHEME]] ?? 'entity_hash',
    folds: mt[M.FOLDS],
    auc: tested ? round6(mt[M.AUC]) : null,
    auc_interval: tested ? [round6(mt[M.AUC_LO]), round6(mt[M.AUC_HI])] : null,
    top_decile_lift: tested ? round6(mt[M.TOP_DECILE_LIFT]) : null,
    realised_lift: tested ? round6(mt[M.REALISED_LIFT]) : null,
    brier: tested ? round6(mt[M.BRIER]) : null,
    log_loss: tested ? round6(mt[M.LOG_LOSS]) : null,
    base_rate: round6(mt[M.HELD_BASE_RATE]),
    training_rows: mt[M.TRAIN_ROWS],
    held_out_rows: mt[M.HELD_ROWS],
    held_out_positives: mt[M.HELD_POSITIVES],
    excluded_columns: excluded,
  };
  let needs: FitResult['needs'] = null;
  if (state === 'not_yet') {
    needs = { labeled_rows: mt[M.NEEDS_LABELED] < 0 ? null : mt[M.NEEDS_LABELED], positives: mt[M.NEEDS_POSITIVES] };
  } else if (reasons.includes('too_few_predictors')) {
    needs = { labeled_rows: 0, positives: 0, columns: mt[M.NEEDS_COLUMNS] };
  }
  let model: Model | null = null;
  if (raw.model.length > 0) {
    const columns: ModelColumn[] = table.columns.map((c, j) => {
      const used = c.kind !== 'skip' && raw.exclusions[j] === 0;
      if (!used) return { name: c.name, kind: 'unused' };
      return c.kind === 'categorical' ? { name: c.name, kind: 'categorical', dictionary: c.dictionary } : { name: c.name, kind: 'numeric' };
    });
    model = new Model({ format: 'oq-model', version: 1, core_hash: coreHash, columns }, raw.model);
  }
  return {
    state,
    reasons,
    needs,
    have: {
      labeled_rows: mt[M.LABELED_ROWS],
      positives: mt[M.POSITIVES],
      columns: table.columns.filter((c) => c.kind !== 'skip').length,
      predictive_columns: mt[M.USABLE_COLUMNS],
    },
    quality,
    model,
    diagnostics: {
      aucZ: mt[M.AUC_Z],
      logLossZ: mt[M.LOG_LOSS_Z],
      logLossBase: mt[M.LOG_LOSS_BASE],
      calibrationSlope: mt[M.CAL_SLOPE],
      calibrationApplied: mt[M.CAL_APPLIED] === 1,
      meanRounds: mt[M.MEAN_ROUNDS],
      pairs: mt[M.PAIRS],
      pairsTried: mt[M.PAIRS_TRIED],
      trees: mt[M.TREES],
      treesTried: mt[M.TREES_TRIED],
      usableColumns: mt[M.USABLE_COLUMNS],
      columnAuc,
      rowSplit: raw.rowSplit,
      heldLogits: raw.heldLogits,
    },
  };
}

/**
 * A record with no rows: nothing to check, and no prevalence to say how many rows would do. No fit runs,
 * so the folds are the ones the engine says a record this small would get (EngineModule.crossFolds).
 */
export function emptyRecordResult(crossFolds: number): FitResult {
  return {
    state: 'not_yet',
    reasons: ['too_few_labeled_rows'],
    needs: { labeled_rows: null, positives: 0 },
    have: { labeled_rows: 0, positives: 0 },
    quality: {
      validation_scheme: 'entity_hash_folds',
      folds: crossFolds,
      auc: null,
      auc_interval: null,
      top_decile_lift: null,
      realised_lift: null,
      brier: null,
      log_loss: null,
      base_rate: 0,
      training_rows: 0,
      held_out_rows: 0,
      held_out_positives: 0,
      excluded_columns: [],
    },
    model: null,
    diagnostics: {
      aucZ: 0,
      logLossZ: 0,
      logLossBase: 0,
      calibrationSlope: 1,
      calibrationApplied: false,
      meanRounds: 0,
      pairs: 0,
      pairsTried: 0,
      trees: 0,
      treesTried: 0,
      usableColumns: 0,
      columnAuc: {},
      rowSplit: new Uint8Array(0),
      heldLogits: new Float64Array(0),
    },
  };
}
