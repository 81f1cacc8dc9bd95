// Side-by-side quality bench: every peer (and our engine, when given) on the same 3 stratified splits per table.
import { pathToFileURL } from 'node:url';
import { loadRealDatasets, outcomeVector, featureColumns, type Cell, type Dataset, type TableRows } from './datasets.ts';
import { sklearnSplits, stratifiedSplits } from './splits.ts';
import { auc, logLoss, brier } from './metrics.ts';
import { encodeFeatures } from './peers/encode.ts';
import { fitMlLogisticRegression } from './peers/ml-logistic-regression.ts';
import { fitMlXgboost } from './peers/ml-xgboost.ts';
import { runPythonPeers, PYTHON_MODELS } from './peers/python.ts';
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
  fitMs: number;
  perSplitAuc: number[];
  /** Engine answer state per split, when the engine reports one. */
  states?: string[];
}
export interface TableQuality {
  table: string;
  rows: number;
  positives: number;
  models: ModelQuality[];
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
    fitMs: runs.reduce((s, r) => s + r.fitMs, 0) / runs.length,
    perSplitAuc: runs.map((r, i) => auc(yTests[i], r.p)),
    ...(states.length ? { states } : {}),
  };
}

/** Runs the available peers (and the engine, when given) on every table and split. */
export async function runQuality(engineFit?: EngineFit, options: QualityOptions = {}): Promise<QualityResults> {
  const { splits: count = 3, seed = 1337, jsPeers = true, pythonPeers = true, log = () => {} } = options;
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
    const inputs: PeerInput[] = splits.map((s) => {
      const enc = encodeFeatures(
        Array.from(s.train, (i) => ds.rows[i]),
        Array.from(s.test, (i) => ds.rows[i]),
        featureColumns(ds),
      );
      return { xTrain: enc.xTrain, yTrain: Uint8Array.from(s.train, (i) => y[i]), xTest: enc.xTest };
    });
    for (const [k, s] of splits.entries()) {
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
      if (jsPeers) {
        log(`${ds.name} split ${k}: ml_logistic_regression, ml_xgboost`);
        add('ml_logistic_regression', fitMlLogisticRegression(inputs[k]));
        add('ml_xgboost', await fitMlXgboost(inputs[k]));
      }
    }
    if (pythonPeers) {
      log(`${ds.name}: python peers`);
      const py = await runPythonPeers(inputs);
      if (py.available) {
        results.pythonVersions = py.versions;
        for (const [model, rs] of Object.entries(py.models)) rs.forEach((r) => add(model, r));
      } else if (!results.absent.includes(py.reason)) results.absent.push(py.reason);
    }
    const models = [...runs].map(([model, rs]) => summarise(model, rs, yTests));
    results.tables.push({ table: ds.name, rows: ds.rows.length, positives: y.reduce((a, b) => a + b, 0), models });
  }
  return results;
}

function withoutColumn(row: Record<string, Cell>, column: string): Record<string, Cell> {
  const { [column]: _dropped, ...rest } = row;
  return rest;
}

const f3 = (v: number) => (Number.isFinite(v) ? v.toFixed(3) : 'n/a');

/** Markdown: per table, each model's mean AUC / log loss / Brier, the best peer's AUC, ours minus best; then fit times. */
export function formatQualityMarkdown(results: QualityResults): string {
  const models = [...new Set(results.tables.flatMap((t) => t.models.map((m) => m.model)))];
  const head = (cols: string[]) => [`| ${cols.join(' | ')} |`, `|${cols.map(() => '---').join('|')}|`];
  const lines = [
    `Mean over ${results.splits} stratified 75/25 splits (seed ${results.seed}). Cells: AUC / log loss / Brier.`,
    '',
    ...head(['table', 'rows (pos)', ...models, 'best peer AUC', `${ENGINE_MODEL} - best`]),
  ];
  for (const t of results.tables) {
    const by = new Map(t.models.map((m) => [m.model, m]));
    const peers = t.models.filter((m) => m.model !== ENGINE_MODEL).sort((a, b) => b.auc - a.auc);
    const ours = by.get(ENGINE_MODEL);
    const cells = models.map((name) => {
      const m = by.get(name);
      return m ? `${f3(m.auc)} / ${f3(m.logLoss)} / ${f3(m.brier)}` : '-';
    });
    const best = peers[0] ? `${f3(peers[0].auc)} (${peers[0].model})` : '-';
    const delta = ours && peers[0] ? `${ours.auc >= peers[0].auc ? '+' : ''}${f3(ours.auc - peers[0].auc)}` : '-';
    lines.push(`| ${t.table} | ${t.rows} (${t.positives}) | ${cells.join(' | ')} | ${best} | ${delta} |`);
  }
  lines.push('', 'Mean fit time (ms):', '', ...head(['table', ...models]));
  for (const t of results.tables) {
    const by = new Map(t.models.map((m) => [m.model, m]));
    lines.push(`| ${t.table} | ${models.map((n) => (by.has(n) ? by.get(n)!.fitMs.toFixed(0) : '-')).join(' | ')} |`);
  }
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
