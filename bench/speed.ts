// Speed bench: engine fit times (Telco in-process; a seeded synthetic table in a child process with
// its peak RSS), scoring throughput inside the engine (tinybench), and ml-xgboost fit times beside them.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Bench } from 'tinybench';
import {
  encodeCases,
  encodeTable,
  FitPool,
  fitTable,
  loadEngine,
  scoreCases,
  scoreEncoded,
  type FitResult,
  type Model,
} from '../host/engine/index.ts';
import { copyIn } from '../host/engine/fit-core.ts';
import { instantiate } from '../host/engine/wasm.ts';
import { rowsToTable } from '../host/table/rows.ts';
import type { RawTable } from '../host/table/types.ts';
import { featureColumns, loadDiamonds, outcomeVector, realisticTable, repoRoot, syntheticTable, type Dataset } from './datasets.ts';
import { sklearnSplits, stratifiedSplits } from './splits.ts';
import { encodeFeatures } from './peers/encode.ts';
import { fitMlXgboost } from './peers/ml-xgboost.ts';
import { PYTHON, pythonPeersAvailable, runPythonPeers, type PythonModel } from './peers/python.ts';

const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

/**
 * This process's peak RSS in MB: VmHWM of /proc/self/status. Not process.resourceUsage().maxRSS: Linux keeps
 * ru_maxrss across execve, and libuv forks, so a child's maxRSS starts at its parent's RSS at the fork (a child
 * of an 800 MB bench process reported 804 MB before doing anything; its VmHWM said 8 MB).
 */
export function peakRss(): number {
  try {
    const kb = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (kb) return Number(kb) / 1024;
  } catch {
    /* no /proc: fall back below */
  }
  return process.resourceUsage().maxRSS / 1024;
}

export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** A dataset as the engine takes it: the raw table and its fit options (outcome 1/0/NaN per row). */
export function engineInput(ds: Dataset) {
  const table = rowsToTable(ds.rows);
  const outcome = Float64Array.from(ds.rows, (r) => {
    const v = r[ds.outcomeColumn];
    return v === null || v === undefined ? NaN : v === ds.positiveValue ? 1 : 0;
  });
  return { table, opts: { entityColumn: ds.entityColumn, outcomeColumn: ds.outcomeColumn, outcome } };
}

export interface EngineFitTimes {
  warmupMs: number;
  runsMs: number[];
  medianMs: number;
  /** Process CPU time (user + system) per run: less sensitive than wall time to other load on a shared machine. */
  cpuRunsMs: number[];
  cpuMedianMs: number;
  state: string;
  auc: number | null;
  pairs: number;
  /** Median of 3 timings of the host-side encoding alone (typing the cells into typed arrays), part of every run. */
  encodeMedianMs: number;
  result: FitResult;
}

/**
 * Whole-fit wall time, in this thread: encode + copy in + the wasm fit (canonical order, split,
 * binning, all 8 bags, pairs, the held-out check) + reading the result. One warm-up first.
 */
export async function timeEngineFit(ds: Dataset, runs = 5): Promise<EngineFitTimes> {
  const { table, opts } = engineInput(ds);
  let t0 = performance.now();
  let result = await fitTable(table, opts);
  const warmupMs = performance.now() - t0;
  const runsMs: number[] = [];
  const cpuRunsMs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const c0 = process.cpuUsage();
    t0 = performance.now();
    result = await fitTable(table, opts);
    runsMs.push(performance.now() - t0);
    cpuRunsMs.push(cpuMs(process.cpuUsage(c0)));
  }
  const encodeMs: number[] = [];
  for (let i = 0; i < 3; i++) {
    t0 = performance.now();
    encodeTable(table, opts);
    encodeMs.push(performance.now() - t0);
  }
  return {
    warmupMs,
    runsMs,
    medianMs: median(runsMs),
    cpuRunsMs,
    cpuMedianMs: median(cpuRunsMs),
    state: result.state,
    auc: result.quality.auc,
    pairs: result.diagnostics.pairs,
    encodeMedianMs: median(encodeMs),
    result,
  };
}

export interface XgbFitTimes {
  runsMs: number[];
  medianMs: number;
  features: number;
  rows: number;
}

/** ml-xgboost (bench/peers/ml-xgboost.ts parameters) trained on all rows; train time only, one-hot encoding excluded. */
export async function timeXgboostFit(ds: Dataset, runs = 3, warmup = true): Promise<XgbFitTimes> {
  const enc = encodeFeatures(ds.rows, ds.rows.slice(0, 1), featureColumns(ds));
  const input = { xTrain: enc.xTrain, yTrain: outcomeVector(ds), xTest: enc.xTest };
  if (warmup) await fitMlXgboost(input);
  const runsMs: number[] = [];
  for (let i = 0; i < runs; i++) runsMs.push((await fitMlXgboost(input)).fitMs);
  return { runsMs, medianMs: median(runsMs), features: enc.names.length, rows: ds.rows.length };
}

// ---- child processes (fresh heap, so max RSS belongs to one measurement) ----

const SELF = fileURLToPath(import.meta.url);

export type ChildOutcome<T> = { ok: true; value: T; wallMs: number } | { ok: false; reason: string; wallMs: number };

/** Runs this file as `node --import tsx bench/speed.ts <mode> ...args` and reads its last stdout line as JSON. */
export function runChild<T>(mode: string, args: Array<string | number>, timeoutMs: number): Promise<ChildOutcome<T>> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', SELF, mode, ...args.map(String)],
      { cwd: repoRoot, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 1 << 20 },
      (err, stdout, stderr) => {
        const wallMs = performance.now() - t0;
        if (err) {
          const capped = (err as NodeJS.ErrnoException & { killed?: boolean }).killed;
          const errorLine = stderr
            .split('\n')
            .find((l) => /^\w*Error\b/.test(l.trim()))
            ?.trim();
          const reason = capped
            ? `stopped at the ${Math.round(timeoutMs / 1000)} s cap`
            : `child failed: ${errorLine ?? err.message.split('\n')[0]}`;
          return resolve({ ok: false, reason, wallMs });
        }
        try {
          resolve({ ok: true, value: JSON.parse(stdout.trim().split('\n').pop()!) as T, wallMs });
        } catch {
          resolve({ ok: false, reason: `unreadable child output: ${stdout.slice(-200)}`, wallMs });
        }
      },
    );
  });
}

/**
 * The tables of the speed benches, by kind: `friendly`, bench/datasets.ts syntheticTable (what the targets were
 * first met on: numbers of few distinct values a bin, categories of 3-7 levels); `realistic`, realisticTable
 * (normal values with three decimals, thousands of distinct values a column, categories of 10-50 levels,
 * correlated columns); `diamonds`, the real diamonds table's training part of the first bench split (40,455 of
 * 53,940 rows x 9 columns; rows and cols are ignored).
 */
export type SpeedKind = 'friendly' | 'realistic' | 'diamonds';
export const SPEED_KINDS: readonly SpeedKind[] = ['friendly', 'realistic', 'diamonds'];

export function speedTable(kind: SpeedKind, rows: number, cols: number, seed: number): Dataset {
  if (kind === 'friendly') return syntheticTable(rows, cols, seed);
  if (kind === 'realistic') return realisticTable(rows, cols, seed);
  return diamondsTrain();
}

/** Diamonds' training rows of the first bench split (scikit-learn's, seed 1337; our own split without Python). */
export function diamondsTrain(): Dataset {
  const ds = loadDiamonds();
  const y = outcomeVector(ds);
  const split = (sklearnSplits(y, 1, 1337) ?? stratifiedSplits(y, 1, 1337))[0];
  return { ...ds, name: 'diamonds_train', rows: Array.from(split.train, (i) => ds.rows[i]) };
}

export interface SyntheticFit {
  kind: SpeedKind;
  rows: number;
  cols: number;
  seed: number;
  /** Median over the runs (wall and CPU), every run's wall time. */
  fitMs: number;
  cpuMs: number;
  runsMs: number[];
  warmupMs: number;
  rssBeforeFitMb: number;
  /** Max RSS of the process after the first fit (the figure for one fit) and after all runs. */
  peakRssMb: number;
  peakRssAllRunsMb: number;
  state: string;
  auc: number | null;
  pairs: number;
  meanRounds: number;
}

/**
 * Child: a small warm-up fit, then the seeded `rows x cols` table built, then `runs` timed whole fits, each
 * in a fit pool of the service's default size (host/config.ts FIT_WORKERS: one worker per core, at most 4),
 * whose idle workers share the fit's bag tasks as they do in the service; its CPU time counts every thread.
 */
async function childEngineSynthetic(
  rows: number,
  cols: number,
  seed: number,
  runs: number,
  kind: SpeedKind = 'friendly',
): Promise<SyntheticFit> {
  const pool = new FitPool(Math.max(1, Math.min(os.availableParallelism(), 4)));
  let t0 = performance.now();
  const warm = engineInput(syntheticTable(2000, cols, seed + 1));
  await Promise.all([fitTable(warm.table, warm.opts, pool), fitTable(warm.table, warm.opts, pool)]);
  const warmupMs = performance.now() - t0;
  const ds = speedTable(kind, rows, cols, seed);
  rows = ds.rows.length;
  cols = featureColumns(ds).length;
  const { table, opts } = engineInput(ds);
  const rssBeforeFitMb = process.memoryUsage().rss / 2 ** 20;
  const runsMs: number[] = [];
  const cpuRunsMs: number[] = [];
  let peakRssMb = 0;
  let r: FitResult | undefined;
  for (let i = 0; i < Math.max(1, runs); i++) {
    const c0 = process.cpuUsage();
    t0 = performance.now();
    r = await fitTable(table, opts, pool);
    runsMs.push(performance.now() - t0);
    cpuRunsMs.push(cpuMs(process.cpuUsage(c0)));
    if (i === 0) peakRssMb = peakRss();
  }
  await pool.close();
  if (!r) throw new Error('no fit ran');
  return {
    kind,
    rows,
    cols,
    seed,
    fitMs: median(runsMs),
    cpuMs: median(cpuRunsMs),
    runsMs,
    warmupMs,
    rssBeforeFitMb,
    peakRssMb,
    peakRssAllRunsMb: peakRss(),
    state: r.state,
    auc: r.quality.auc,
    pairs: r.diagnostics.pairs,
    meanRounds: r.diagnostics.meanRounds,
  };
}

export interface XgbSyntheticFit {
  rows: number;
  fitMs: number;
  features: number;
  peakRssMb: number;
}

/** Child: ml-xgboost on the same seeded table (one run, its wasm already compiled by a 200-row warm-up). */
async function childXgbSynthetic(rows: number, cols: number, seed: number): Promise<XgbSyntheticFit> {
  await timeXgboostFit(syntheticTable(200, cols, seed + 1), 1, false);
  const t = await timeXgboostFit(syntheticTable(rows, cols, seed), 1, false);
  return { rows, fitMs: t.medianMs, features: t.features, peakRssMb: peakRss() };
}

/**
 * Debian scikit-learn / XGBoost 1.7 (bench/peers/python_peers.py, one thread) fitted once on all rows: fit ms
 * per model (`models`: which of them; all three by default).
 */
export async function timePythonPeers(
  ds: Dataset,
  models?: readonly PythonModel[],
): Promise<{ ok: true; fitMs: Record<string, number>; cpuMs: Record<string, number>; features: number } | { ok: false; reason: string }> {
  const enc = encodeFeatures(ds.rows, ds.rows.slice(0, 10), featureColumns(ds));
  const run = await runPythonPeers([{ xTrain: enc.xTrain, yTrain: outcomeVector(ds), xTest: enc.xTest }], models);
  if (!run.available) return { ok: false, reason: run.reason };
  return {
    ok: true,
    features: enc.names.length,
    fitMs: Object.fromEntries(Object.entries(run.models).map(([k, v]) => [k, v[0].fitMs])),
    cpuMs: Object.fromEntries(Object.entries(run.models).map(([k, v]) => [k, v[0].cpuMs ?? NaN])),
  };
}

/**
 * One scikit-learn HistGradientBoosting fit (library defaults, one thread) on all rows with the categorical
 * columns given natively (codes, missing as NaN) instead of one-hot (bench/peers/hgb_native.py): fewer columns
 * for it to scan, so its faster figure where a table has many-level categories.
 */
export async function timeHgbNative(
  ds: Dataset,
): Promise<{ ok: true; fitMs: number; cpuMs: number; iterations: number; features: number } | { ok: false; reason: string }> {
  const check = pythonPeersAvailable();
  if (!check.ok) return { ok: false, reason: `python peers absent: ${check.reason}` };
  const features = featureColumns(ds);
  const blank = (v: unknown) => v === null || v === undefined || (typeof v === 'string' && ['', 'NA', 'NaN'].includes(v.trim()));
  const categorical = features.map((c) => ds.rows.some((r) => !blank(r[c]) && !Number.isFinite(Number(r[c]))));
  const codes = features.map((c, j) => (categorical[j] ? new Map<string, number>() : null));
  const n = ds.rows.length,
    d = features.length;
  const x = new Float64Array(n * d);
  ds.rows.forEach((r, i) =>
    features.forEach((c, j) => {
      const v = r[c];
      const dict = codes[j];
      if (blank(v)) x[i * d + j] = NaN;
      else if (!dict) x[i * d + j] = Number(v);
      else {
        const key = String(v);
        if (!dict.has(key)) dict.set(key, dict.size);
        x[i * d + j] = dict.get(key)!;
      }
    }),
  );
  const dir = mkdtempSync(join(tmpdir(), 'bench-hgb-'));
  try {
    const y = outcomeVector(ds);
    writeFileSync(join(dir, 'x.f64'), Buffer.from(x.buffer));
    writeFileSync(join(dir, 'y.u8'), Buffer.from(y.buffer, y.byteOffset, y.byteLength));
    writeFileSync(join(dir, 'in.json'), JSON.stringify({ n, d, x: 'x.f64', y: 'y.u8', categorical }));
    const env = { ...process.env, OMP_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1', PYTHONWARNINGS: 'ignore' };
    await promisify(execFile)(PYTHON, [HGB_NATIVE, join(dir, 'in.json'), join(dir, 'out.json')], { env, timeout: 3_600_000 });
    const out = JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8'));
    return { ok: true, fitMs: out.fit_ms, cpuMs: out.fit_cpu_ms, iterations: out.n_iter, features: d };
  } catch (err) {
    return { ok: false, reason: `HistGradientBoosting (native categories) failed: ${(err as Error).message.split('\n')[0]}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const HGB_NATIVE = fileURLToPath(new URL('./peers/hgb_native.py', import.meta.url));

// ---- scoring throughput ----

export interface ScoringThroughput {
  cases: number;
  columns: number;
  pairs: number;
  /** Median latency (ms) and cases/s of: the wasm `score` call alone; plus the bridge's copies; plus JS cell encoding. */
  engine: { p50Ms: number; casesPerSec: number; samples: number };
  bridge: { p50Ms: number; casesPerSec: number; samples: number };
  endToEnd: { p50Ms: number; casesPerSec: number; samples: number };
}

/** `n` cases drawn (seeded, with replacement) from a table's rows, outcome column dropped. */
export function sampleCases(table: RawTable, outcomeColumn: string, n: number, seed: number): RawTable {
  let a = seed >>> 0;
  const idx = Array.from({ length: n }, () => {
    a = (Math.imul(a, 1664525) + 1013904223) >>> 0;
    return Math.floor((a / 4294967296) * table.rowCount);
  });
  const keep = table.columns.map((c, j) => [c, j] as const).filter(([c]) => c !== outcomeColumn);
  return { columns: keep.map(([c]) => c), data: keep.map(([, j]) => idx.map((i) => table.data[j][i])), rowCount: n };
}

export async function scoringThroughput(model: Model, cases: RawTable, timeMs = 1500): Promise<ScoringThroughput> {
  const mod = await loadEngine();
  const n = cases.rowCount;
  const m = model.columns.length;
  const cols = encodeCases(model, cases);
  // Engine only: inputs copied in once, outputs allocated once; each iteration is one `score` call.
  const ex = instantiate(mod);
  const mp = copyIn(ex, model.array);
  const colPtrs = new Int32Array(m);
  cols.forEach((c, j) => void (c && (colPtrs[j] = copyIn(ex, c))));
  const cp = copyIn(ex, colPtrs);
  const pp = ex.alloc(n * 8),
    kp = ex.alloc(n * m * 8),
    bp = ex.alloc(n * m * 4),
    rp = ex.alloc(n * 16),
    sp = ex.alloc(n * 16);
  let status = 0;
  const bench = new Bench({ time: timeMs, iterations: 20, warmupIterations: 5 });
  bench
    .add('engine', () => void (status |= ex.score(mp, model.array.length, n, cp, pp, kp, bp, rp, sp)))
    .add('bridge', () => void scoreEncoded(mod, model, cols, n))
    .add('endToEnd', () => void scoreCases(mod, model, cases));
  await bench.run();
  if (status !== 0) throw new Error(`engine score returned status ${status}`);
  const stat = (name: string) => {
    const r = bench.tasks.find((t) => t.name === name)!.result;
    if (r.state !== 'completed') throw new Error(`tinybench task ${name} ended ${r.state}`);
    return { p50Ms: r.latency.p50, casesPerSec: n / (r.latency.p50 / 1000), samples: r.latency.samplesCount };
  };
  return {
    cases: n,
    columns: model.usedColumns().length,
    pairs: model.pairCount,
    engine: stat('engine'),
    bridge: stat('bridge'),
    endToEnd: stat('endToEnd'),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [mode, ...rest] = process.argv.slice(2);
  const [rows, cols, seed, runs] = rest.map(Number);
  const kind = (rest[4] ?? 'friendly') as SpeedKind;
  if (!SPEED_KINDS.includes(kind)) throw new Error(`kind must be one of ${SPEED_KINDS.join(', ')}`);
  const out =
    mode === 'engine-synthetic'
      ? await childEngineSynthetic(rows, cols, seed, runs || 1, kind)
      : mode === 'xgb-synthetic'
        ? await childXgbSynthetic(rows, cols, seed)
        : null;
  if (!out)
    throw new Error(
      'usage: tsx bench/speed.ts engine-synthetic ROWS COLS SEED [RUNS [friendly|realistic|diamonds]] | xgb-synthetic ROWS COLS SEED',
    );
  process.stdout.write(`${JSON.stringify(out)}\n`);
}
