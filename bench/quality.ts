// Side-by-side quality bench: every peer (and our engine, when given) on the same 3 stratified splits per table.
import { pathToFileURL } from 'node:url';
import { loadRealDatasets, outcomeVector, featureColumns, type Cell, type Dataset, type TableRows } from './datasets.ts';
import { sklearnSplits, stratifiedSplits } from './splits.ts';
import { auc, logLoss, brier, ece } from './metrics.ts';
import { encodeFeatures } from './peers/encode.ts';
import { fitMlLogisticRegression } from './peers/ml-logistic-regression.ts';
import { fitMlXgboost } from './peers/ml-xgboost.ts';
import { runPythonSplits, toPythonSplit, PYTHON_MODELS, type PythonModel, type PythonSplit } from './peers/python.ts';
import type { PeerInput, PeerResult } from './peers/types.ts';

export type { TableRows } from './datasets.ts';

export interface EngineMeta {
  table: string;
  split: number;
  entityColumn: string;
  outcomeColumn: string;
  positiveValue: Cell;
}
/** Our engine: fits on train rows, scores test rows (given without the outcome column). */
export type EngineFit = (
  train: TableRows,
  test: TableRows,
  meta: EngineMeta,
) => Promise<{ p: Float64Array; fitMs: number; state?: string }>;

export const ENGINE_MODEL = 'ours';
export const PEER_MODELS = ['ml_logistic_regression', 'ml_xgboost', ...PYTHON_MODELS];

export interface ModelQuality {
  model: string;
  /** Means over the splits. */
  auc: number;
  logLoss: number;
  brier: number;
  /** Expected calibration error, 10 equal-count bins of the held-out chances (bench/metrics.ts ece). */
  ece: number;
  fitMs: number;
  perSplitAuc: number[];
  /** Engine answer state per split, when the engine reports one. */
  states?: string[];
}
export interface TableQuality {
  table: string;
  rows: number;
  positives: number;
  /** Encoded feature count the peers saw (one-hot), on the first split. */
  peerFeatures: number;
  models: ModelQuality[];
  /** Peers not run on this table, with the reason. */
  skipped: string[];
}
export interface QualityResults {
  splits: number;
  /** Whose 75/25 splits: scikit-learn's train_test_split (as the reference numbers) or bench/splits.ts. */
  splitSource?: 'sklearn' | 'seeded';
  seed: number;
  tables: TableQuality[];
  /** Peers that could not run, with the reason (never an error). */
  absent: string[];
  pythonVersions?: Record<string, string>;
}
export interface QualityOptions {
  datasets?: Dataset[];
  splits?: number;
  seed?: number;
  /** Skip the JS or Python peers (e.g. for a quick engine-only run). */
  jsPeers?: boolean;
  pythonPeers?: boolean;
  /**
   * The JS peers (ml-logistic-regression, ml-xgboost) run only when train rows x encoded features is at most
   * this: ml-xgboost's wasm has a fixed 16 MB heap (it traps past about 1,000,000 cells) and
   * ml-logistic-regression's 600 full-batch steps take minutes on large tables.
   */
  jsPeerMaxCells?: number;
  /** Python XGBoost fits with tree_method 'hist' instead of its 1.7 default (exact greedy) above this many train cells. */
  xgbHistCells?: number;
  /** Only these Python peers (all by default): tuned HistGradientBoosting takes hours on a large table under load. */
  pythonModels?: readonly PythonModel[];
  log?: (line: string) => void;
}

type Run = PeerResult & { state?: string };

function summarise(model: string, runs: Run[], yTests: Uint8Array[]): ModelQuality {
  const mean = (f: (y: Uint8Array, p: Float64Array) => number) => runs.reduce((s, r, i) => s + f(yTests[i], r.p), 0) / runs.length;
  const states = runs.map((r) => r.state).filter((s): s is string => s !== undefined);
  return {
    model,
    auc: mean(auc),
    logLoss: mean(logLoss),
    brier: mean(brier),
    ece: mean((y, p) => ece(y, p, 10)),
    fitMs: runs.reduce((s, r) => s + r.fitMs, 0) / runs.length,
    perSplitAuc: runs.map((r, i) => auc(yTests[i], r.p)),
    ...(states.length ? { states } : {}),
  };
}

/** Runs the available peers (and the engine, when given) on every table and split. */
export async function runQuality(engineFit?: EngineFit, options: QualityOptions = {}): Promise<QualityResults> {
  const {
    splits: count = 3,
    seed = 1337,
    jsPeers = true,
    pythonPeers = true,
    jsPeerMaxCells = 250_000,
    xgbHistCells = 2_000_000,
    log = () => {},
  } = options;
  const datasets = options.datasets ?? loadRealDatasets();
  const results: QualityResults = { splits: count, seed, tables: [], absent: [] };
  for (const ds of datasets) {
    const y = outcomeVector(ds);
    // The reference numbers' own splits when scikit-learn is here; our seeded ones otherwise.
    const fromSklearn = sklearnSplits(y, count, seed);
    const splits = fromSklearn ?? stratifiedSplits(y, count, seed);
    results.splitSource = fromSklearn ? 'sklearn' : 'seeded';
    const yTests = splits.map((s) => Uint8Array.from(s.test, (i) => y[i]));
    const runs = new Map<string, Run[]>();
    const add = (model: string, run: Run) => runs.set(model, [...(runs.get(model) ?? []), run]);
    const skipped: string[] = [];
    const pySplits: PythonSplit[] = [];
    let features = 0;
    let runJs = jsPeers;
    let xgbTreeMethod: 'auto' | 'hist' = 'auto';
    for (const [k, s] of splits.entries()) {
      // Each split is encoded (one-hot, learned on its train rows) when it is reached and kept only as flat
      // matrices for Python: a 50,000-row table with hundreds of indicators would not fit three times over as JS arrays.
      const enc = encodeFeatures(
        Array.from(s.train, (i) => ds.rows[i]),
        Array.from(s.test, (i) => ds.rows[i]),
        featureColumns(ds),
      );
      const input: PeerInput = { xTrain: enc.xTrain, yTrain: Uint8Array.from(s.train, (i) => y[i]), xTest: enc.xTest };
      if (k === 0) {
        features = enc.names.length;
        const cells = input.xTrain.length * features;
        if (pythonPeers && cells > xgbHistCells) {
          xgbTreeMethod = 'hist';
          skipped.push(
            `Python xgboost fitted with tree_method "hist" (XGBoost 2's default) instead of 1.7's default exact greedy: ${cells.toLocaleString('en-US')} train cells, over the ${xgbHistCells.toLocaleString('en-US')}-cell switch (exact greedy took over 2 minutes a split on flights)`,
          );
        }
        if (jsPeers && cells > jsPeerMaxCells) {
          runJs = false;
          skipped.push(
            `ml_logistic_regression and ml_xgboost not run: ${input.xTrain.length.toLocaleString('en-US')} train rows x ${features} encoded features = ${cells.toLocaleString('en-US')} cells, over the ${jsPeerMaxCells.toLocaleString('en-US')}-cell cap (BENCH_JS_PEER_MAX_CELLS; ml-xgboost's wasm heap is a fixed 16 MB)`,
          );
        }
      }
      if (engineFit) {
        log(`${ds.name} split ${k}: ${ENGINE_MODEL}`);
        const train = Array.from(s.train, (i) => ds.rows[i]);
        const test = Array.from(s.test, (i) => withoutColumn(ds.rows[i], ds.outcomeColumn));
        const meta = {
          table: ds.name,
          split: k,
          entityColumn: ds.entityColumn,
          outcomeColumn: ds.outcomeColumn,
          positiveValue: ds.positiveValue,
        };
        add(ENGINE_MODEL, await engineFit(train, test, meta));
      }
      if (runJs) {
        log(`${ds.name} split ${k}: ml_logistic_regression, ml_xgboost`);
        add('ml_logistic_regression', fitMlLogisticRegression(input));
        try {
          add('ml_xgboost', await fitMlXgboost(input));
        } catch (err) {
          runs.delete('ml_xgboost');
          skipped.push(
            `ml_xgboost failed on split ${k} (${(err as Error).message.split('\n')[0]}), so neither JS peer is reported for this table`,
          );
          runJs = false;
          runs.delete('ml_logistic_regression');
        }
      }
      if (pythonPeers) pySplits.push(toPythonSplit(input));
    }
    if (pythonPeers) {
      log(`${ds.name}: python peers`);
      const py = await runPythonSplits(pySplits, { xgbTreeMethod, models: options.pythonModels });
      if (py.available) {
        results.pythonVersions = py.versions;
        for (const [model, rs] of Object.entries(py.models)) rs.forEach((r) => add(model, r));
      } else if (!results.absent.includes(py.reason)) results.absent.push(py.reason);
    }
    const models = [...runs].map(([model, rs]) => summarise(model, rs, yTests));
    results.tables.push({
      table: ds.name,
      rows: ds.rows.length,
      positives: y.reduce((a, b) => a + b, 0),
      peerFeatures: features,
      models,
      skipped,
    });
  }
  return results;
}

function withoutColumn(row: Record<string, Cell>, column: string): Record<string, Cell> {
  const { [column]: _dropped, ...rest } = row;
  return rest;
}

const f3 = (v: number) => (Number.isFinite(v) ? v.toFixed(3) : 'n/a');
const signed = (v: number) => (Number.isFinite(v) ? `${v >= 0 ? '+' : ''}${v.toFixed(3)}` : 'n/a');

/** Ours against the best peer of each measure (the best may be a different peer for each). */
export interface TableComparison {
  table: string;
  rows: number;
  ours: ModelQuality;
  bestAuc: ModelQuality;
  bestLogLoss: ModelQuality;
  bestEce: ModelQuality;
  /** ours - best peer: AUC (higher is better for us), log loss and ECE (lower is better for us). */
  aucGap: number;
  logLossGap: number;
  eceGap: number;
}

export function compareTable(t: TableQuality): TableComparison | null {
  const ours = t.models.find((m) => m.model === ENGINE_MODEL);
  const peers = t.models.filter((m) => m.model !== ENGINE_MODEL);
  if (!ours || peers.length === 0) return null;
  const best = (key: (m: ModelQuality) => number, higher: boolean) =>
    [...peers].sort((a, b) => (higher ? key(b) - key(a) : key(a) - key(b)))[0];
  const bestAuc = best((m) => m.auc, true);
  const bestLogLoss = best((m) => m.logLoss, false);
  const bestEce = best((m) => m.ece, false);
  return {
    table: t.table,
    rows: t.rows,
    ours,
    bestAuc,
    bestLogLoss,
    bestEce,
    aucGap: ours.auc - bestAuc.auc,
    logLossGap: ours.logLoss - bestLogLoss.logLoss,
    eceGap: ours.ece - bestEce.ece,
  };
}

/**
 * Markdown: per table, each model's mean AUC / log loss / Brier / ECE, then ours against the best peer of each
 * measure (AUC: ours - best, higher is better; log loss and ECE: ours - best, lower is better); then fit times.
 */
export function formatQualityMarkdown(results: QualityResults): string {
  const models = [...new Set(results.tables.flatMap((t) => t.models.map((m) => m.model)))];
  const head = (cols: string[]) => [`| ${cols.join(' | ')} |`, `|${cols.map(() => '---').join('|')}|`];
  const lines = [
    `Mean over ${results.splits} stratified 75/25 splits (seed ${results.seed}). Cells: AUC / log loss / Brier / ECE (expected calibration error, 10 equal-count bins of the held-out chances). The last three columns put ours against the best peer of that measure (which may be a different peer each time): AUC ours - best (>= 0 is at least as good), log loss and ECE ours - best (<= 0 is at least as good).`,
    '',
    ...head(['table', 'rows (pos)', ...models, 'AUC: ours - best', 'log loss: ours - best', 'ECE: ours - best']),
  ];
  for (const t of results.tables) {
    const by = new Map(t.models.map((m) => [m.model, m]));
    const c = compareTable(t);
    const cells = models.map((name) => {
      const m = by.get(name);
      return m ? `${f3(m.auc)} / ${f3(m.logLoss)} / ${f3(m.brier)} / ${f3(m.ece)}` : '-';
    });
    const cmp = c
      ? [
          `${signed(c.aucGap)} (${c.bestAuc.model} ${f3(c.bestAuc.auc)})`,
          `${signed(c.logLossGap)} (${c.bestLogLoss.model} ${f3(c.bestLogLoss.logLoss)})`,
          `${signed(c.eceGap)} (${c.bestEce.model} ${f3(c.bestEce.ece)})`,
        ]
      : ['-', '-', '-'];
    lines.push(`| ${t.table} | ${t.rows} (${t.positives}) | ${cells.join(' | ')} | ${cmp.join(' | ')} |`);
  }
  const comps = results.tables.map(compareTable).filter((c): c is TableComparison => c !== null);
  if (comps.length) {
    const mean = (f: (c: TableComparison) => number) => comps.reduce((a, c) => a + f(c), 0) / comps.length;
    lines.push(
      `| mean over ${comps.length} tables | | ${models.map(() => '').join(' | ')} | ${signed(mean((c) => c.aucGap))} | ${signed(mean((c) => c.logLossGap))} | ${signed(mean((c) => c.eceGap))} |`,
    );
  }
  lines.push('', 'Mean fit time (ms):', '', ...head(['table', 'peer features', ...models]));
  for (const t of results.tables) {
    const by = new Map(t.models.map((m) => [m.model, m]));
    lines.push(`| ${t.table} | ${t.peerFeatures} | ${models.map((n) => (by.has(n) ? by.get(n)!.fitMs.toFixed(0) : '-')).join(' | ')} |`);
  }
  const skipped = results.tables.filter((t) => t.skipped.length);
  if (skipped.length) lines.push('', ...skipped.map((t) => `- ${t.table}: ${t.skipped.join('; ')}.`));
  const states = results.tables
    .filter((t) => t.models.some((m) => m.states))
    .map((t) => `${t.table}: ${t.models.find((m) => m.states)!.states!.join(', ')}`);
  if (states.length) lines.push('', `Engine states per split: ${states.join('; ')}.`);
  if (results.pythonVersions)
    lines.push(
      '',
      `Python peers: ${Object.entries(results.pythonVersions)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')} (one thread).`,
    );
  for (const a of results.absent) lines.push('', `Absent: ${a}.`);
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const results = await runQuality(undefined, { log: (l) => process.stderr.write(`${l}\n`) });
  console.log(formatQualityMarkdown(results));
}
