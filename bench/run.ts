// `npm run bench`: speed, side-by-side quality and honesty of the engine in one run; writes
// docs/benchmark-results.md (machine notes, every number, each target met or missed) and prints a summary.
import { execSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { FitPool, fitTable, loadEngine, scoreCases } from '../host/engine/index.ts';
import { rowsToTable } from '../host/table/rows.ts';
import {
  featureColumns,
  loadTelco,
  outcomeVector,
  realTables,
  repoRoot,
  syntheticTable,
  type Dataset,
  type TableInfo,
} from './datasets.ts';
import { debianVersion, ensureDebianPackages, type DebianInstall } from './debian.ts';
import { currentResults, RESULTS_PATH, sectionAsItStands, wrapMarkdown } from './results-file.ts';
import { formatHonestyMarkdown, HONESTY_TARGET, runHonesty, type HonestyRow } from './honesty.ts';
import { PYTHON_DEBIAN_PACKAGES, resetPythonProbe } from './peers/python.ts';
import { formatScaleMarkdown, runScaleBench, type ScaleBench } from './scale.ts';
import { formatServiceMarkdown, runServiceBench, type ServiceBench } from './service.ts';
import { formatClusterMarkdown, runClusterBench, type ClusterBench } from './cluster.ts';
import {
  compareTable,
  ENGINE_MODEL,
  formatQualityMarkdown,
  runQuality,
  type EngineFit,
  type QualityResults,
  type TableComparison,
} from './quality.ts';
import { formatProductMarkdown, runProductBench, type ProductBench } from './product.ts';
import { formatOverloadMarkdown, runOverloadBench, type OverloadBench } from './overload.ts';
import {
  engineInput,
  runChild,
  sampleCases,
  scoringThroughput,
  timeEngineFit,
  speedTable,
  timeHgbNative,
  timePythonPeers,
  timeXgboostFit,
  type ChildOutcome,
  type SpeedKind,
  type EngineFitTimes,
  type ScoringThroughput,
  type SyntheticFit,
  type XgbFitTimes,
  type XgbSyntheticFit,
} from './speed.ts';

const num = (name: string, fallback: number) => (process.env[name] === undefined ? fallback : Number(process.env[name]));
const OPTIONS = {
  BENCH_PERMUTATIONS: num('BENCH_PERMUTATIONS', 100),
  BENCH_PERMUTATIONS_LARGE: num('BENCH_PERMUTATIONS_LARGE', 20),
  BENCH_HONESTY_LARGE_ROWS: num('BENCH_HONESTY_LARGE_ROWS', 20_000),
  BENCH_FLIGHTS_ROWS: num('BENCH_FLIGHTS_ROWS', 50_000),
  BENCH_JS_PEERS: num('BENCH_JS_PEERS', 1),
  BENCH_JS_PEER_MAX_CELLS: num('BENCH_JS_PEER_MAX_CELLS', 250_000),
  BENCH_XGB_HIST_CELLS: num('BENCH_XGB_HIST_CELLS', 2_000_000),
  BENCH_SPLITS: num('BENCH_SPLITS', 3),
  BENCH_TELCO_RUNS: num('BENCH_TELCO_RUNS', 5),
  BENCH_SYNTH_ROWS: num('BENCH_SYNTH_ROWS', 100_000),
  BENCH_SYNTH_COLS: num('BENCH_SYNTH_COLS', 30),
  BENCH_SYNTH_RUNS: num('BENCH_SYNTH_RUNS', 3),
  BENCH_XGB_SUBSAMPLE: num('BENCH_XGB_SUBSAMPLE', 10_000),
  BENCH_XGB_FULL_CAP_S: num('BENCH_XGB_FULL_CAP_S', 150),
  BENCH_SCORE_CASES: num('BENCH_SCORE_CASES', 10_000),
  BENCH_PYTHON: num('BENCH_PYTHON', 1),
  BENCH_SERVICE: num('BENCH_SERVICE', 1),
  BENCH_CLUSTER: num('BENCH_CLUSTER', 1),
  BENCH_PRODUCT: num('BENCH_PRODUCT', 1),
  BENCH_OVERLOAD: num('BENCH_OVERLOAD', 1),
  BENCH_BROWSER: num('BENCH_BROWSER', 1),
  BENCH_SCALE: num('BENCH_SCALE', 1),
  BENCH_SCALE_PROBE_RATE: num('BENCH_SCALE_PROBE_RATE', 20),
  BENCH_INSTALL: num('BENCH_INSTALL', 1),
};
/** Comma-separated options: the scale curve's sizes, and an optional subset of the real tables by name. */
const LIST_OPTIONS = {
  BENCH_SCALE_SIZES: process.env.BENCH_SCALE_SIZES ?? '10000,100000,300000,1000000',
  // the realistic record (bench/scale.ts realisticScaleRow) at these sizes too
  BENCH_SCALE_REALISTIC_SIZES: process.env.BENCH_SCALE_REALISTIC_SIZES ?? '1000000',
  BENCH_TABLES: process.env.BENCH_TABLES ?? '',
};
const sizesOf = (list: string) =>
  list
    .split(',')
    .map((x) => Number(x.trim()))
    .filter((x) => Number.isInteger(x) && x > 0)
    .sort((a, b) => a - b);
const scaleSizes = sizesOf(LIST_OPTIONS.BENCH_SCALE_SIZES);
const realisticScaleSizes = sizesOf(LIST_OPTIONS.BENCH_SCALE_REALISTIC_SIZES);
const SYNTH_SEED = 7;
const started = performance.now();
const log = (line: string) => process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);

// ---- machine ----

function sh(cmd: string): string {
  try {
    return execSync(cmd, { encoding: 'utf8' }).trimEnd();
  } catch {
    return '(unavailable)';
  }
}
/** The machine's CPU time so far from /proc/stat (all cores, ticks): the total and the share the hypervisor took (steal). */
function cpuTicks(): { total: number; steal: number } | null {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return { total: f.slice(0, 8).reduce((a, b) => a + b, 0), steal: f[7] ?? 0 };
  } catch {
    return null;
  }
}
const stealShare = (a: ReturnType<typeof cpuTicks>, b: ReturnType<typeof cpuTicks>) =>
  a && b && b.total > a.total ? `${(((b.steal - a.steal) / (b.total - a.total)) * 100).toFixed(1)}%` : 'unavailable';

const cpuModel = (() => {
  try {
    return readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.*)$/m)?.[1] ?? '(unknown)';
  } catch {
    return '(unknown)';
  }
})();
const machine = {
  nproc: sh('nproc'),
  free: sh('free -g'),
  node: process.version,
  cpu: cpuModel,
  kernel: `${os.type()} ${os.release()}`,
  loadBefore: os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' '),
  cpuBefore: cpuTicks(),
};
/** Which engine was measured: the tree changes under us, so say exactly which wasm and commit. */
const engineVersion = {
  coreHash: (await loadEngine()).coreHash,
  commit: sh('git rev-parse --short HEAD'),
  dirty: sh('git status --porcelain -- assembly host/engine host/table') !== '',
};

// ---- speed ----

interface SpeedResults {
  telco: EngineFitTimes;
  telcoXgb: XgbFitTimes;
  scoring: ScoringThroughput;
  synthetic: ChildOutcome<SyntheticFit>;
  subsample: EngineFitTimes;
  subsampleXgb: ChildOutcome<XgbSyntheticFit>;
  fullXgb: ChildOutcome<XgbSyntheticFit> | null;
  telcoPython: PythonTimes | null;
  syntheticPython: PythonTimes | null;
  /** The realistic 100,000 x 30 table and diamonds' training rows (bench/speed.ts SpeedKind), each beside HGB. */
  realistic: AgainstHgb;
  diamonds: AgainstHgb;
}
type PythonTimes = Awaited<ReturnType<typeof timePythonPeers>>;
interface AgainstHgb {
  ours: ChildOutcome<SyntheticFit>;
  oneHot: PythonTimes | null;
  native: Awaited<ReturnType<typeof timeHgbNative>> | null;
}

/** Our fit (child process, default fit pool) of a speed table, then one HGB fit of it one-hot and one natively. */
async function againstHgb(kind: SpeedKind, rows: number, cols: number): Promise<AgainstHgb> {
  log(`speed: ${kind} ${kind === 'diamonds' ? 'diamonds training rows' : `${rows} x ${cols}`}, engine fit in a child process`);
  const ours = await runChild<SyntheticFit>('engine-synthetic', [rows, cols, SYNTH_SEED, OPTIONS.BENCH_SYNTH_RUNS, kind], 1_800_000);
  if (OPTIONS.BENCH_PYTHON === 0) return { ours, oneHot: null, native: null };
  log(`speed: ${kind}, HistGradientBoosting (one thread) one-hot and with native categories`);
  const ds = speedTable(kind, rows, cols, SYNTH_SEED);
  return { ours, oneHot: await timePythonPeers(ds, ['sklearn_hist_gb']), native: await timeHgbNative(ds) };
}

async function runSpeed(): Promise<SpeedResults> {
  const telcoDs = loadTelco();
  log(`speed: Telco engine fit, 1 warm-up + ${OPTIONS.BENCH_TELCO_RUNS} runs`);
  const telco = await timeEngineFit(telcoDs, OPTIONS.BENCH_TELCO_RUNS);
  log(`speed: Telco ml-xgboost fit, 1 warm-up + 3 runs`);
  const telcoXgb = await timeXgboostFit(telcoDs, 3);
  log(`speed: scoring ${OPTIONS.BENCH_SCORE_CASES} Telco cases (tinybench)`);
  const { table } = engineInput(telcoDs);
  const scoring = await scoringThroughput(telco.result.model!, sampleCases(table, telcoDs.outcomeColumn, OPTIONS.BENCH_SCORE_CASES, 4242));
  const { BENCH_SYNTH_ROWS: rows, BENCH_SYNTH_COLS: cols, BENCH_XGB_SUBSAMPLE: sub } = OPTIONS;
  log(`speed: synthetic ${rows} x ${cols} engine fit in a child process, ${OPTIONS.BENCH_SYNTH_RUNS} runs`);
  const synthetic = await runChild<SyntheticFit>('engine-synthetic', [rows, cols, SYNTH_SEED, OPTIONS.BENCH_SYNTH_RUNS], 900_000);
  log(`speed: synthetic first ${sub} rows, engine fit in-process (1 warm-up + 3 runs)`);
  const subsample = await timeEngineFit(syntheticTable(sub, cols, SYNTH_SEED), 3);
  log(`speed: synthetic first ${sub} rows, ml-xgboost in a child process`);
  const subsampleXgb = await runChild<XgbSyntheticFit>('xgb-synthetic', [sub, cols, SYNTH_SEED], 600_000);
  let fullXgb: ChildOutcome<XgbSyntheticFit> | null = null;
  if (OPTIONS.BENCH_XGB_FULL_CAP_S > 0 && sub < rows) {
    log(`speed: synthetic ${rows} x ${cols}, ml-xgboost in a child process, capped at ${OPTIONS.BENCH_XGB_FULL_CAP_S} s`);
    fullXgb = await runChild<XgbSyntheticFit>('xgb-synthetic', [rows, cols, SYNTH_SEED], OPTIONS.BENCH_XGB_FULL_CAP_S * 1000);
  }
  let telcoPython: PythonTimes | null = null;
  let syntheticPython: PythonTimes | null = null;
  if (OPTIONS.BENCH_PYTHON !== 0) {
    log('speed: Python peers (one thread) on all Telco rows');
    telcoPython = await timePythonPeers(telcoDs);
    log(`speed: Python logistic regression and HistGradientBoosting (one thread) on the synthetic ${rows} x ${cols}`);
    // Logistic regression and HistGradientBoosting only: Python XGBoost takes about 40 s here and the issue's
    // speed goal is against HistGradientBoosting.
    syntheticPython = await timePythonPeers(syntheticTable(rows, cols, SYNTH_SEED), ['sklearn_logistic', 'sklearn_hist_gb']);
  }
  const realistic = await againstHgb('realistic', rows, cols);
  let diamonds: AgainstHgb;
  try {
    diamonds = await againstHgb('diamonds', 0, 0);
  } catch (err) {
    // the table is read through Rscript (Debian r-cran-ggplot2): absent, it is reported, not thrown
    diamonds = { ours: { ok: false, reason: (err as Error).message, wallMs: 0 }, oneHot: null, native: null };
  }
  return { telco, telcoXgb, scoring, synthetic, subsample, subsampleXgb, fullXgb, telcoPython, syntheticPython, realistic, diamonds };
}

// ---- quality: our engine plugged into the side-by-side harness ----

const engineFit: EngineFit = async (train, test, meta) => {
  const mod = await loadEngine();
  const table = rowsToTable(train);
  const outcome = Float64Array.from(train, (r) => (r[meta.outcomeColumn] === meta.positiveValue ? 1 : 0));
  const t0 = performance.now();
  const r = await fitTable(table, { entityColumn: meta.entityColumn, outcomeColumn: meta.outcomeColumn, outcome });
  const fitMs = performance.now() - t0;
  // A refused fit still carries the model it tested; only a fit without a model (not_yet) scores the base rate.
  const baseRate = outcome.reduce((a, b) => a + b, 0) / outcome.length;
  const p = r.model ? scoreCases(mod, r.model, rowsToTable(test)).p : new Float64Array(test.length).fill(baseRate);
  return { p, fitMs, state: r.state };
};

// ---- report ----

const f0 = (x: number) => x.toFixed(0);
const f1 = (x: number) => x.toFixed(1);
const f3 = (x: number | null | undefined) => (x === null || x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(3));
const ms = (x: number) => (x >= 10_000 ? `${f1(x / 1000)} s` : `${f0(x)} ms`);
const big = (x: number) => Math.round(x).toLocaleString('en-US');
const verdict = (ok: boolean) => (ok ? 'met' : '**MISSED**');
/** A gap with its sign; 4 decimals, so a gap just past -0.005 does not print as -0.005. */
const signed = (x: number) => (Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${x.toFixed(4)}` : 'n/a');

interface Target {
  name: string;
  measured: string;
  ok: boolean;
}

/** The AUC / log loss / ECE goals judged per table (quality) and the honesty rate (all tables), for the matrix. */
const ECE_MIN_ROWS = 5_000;
const AUC_FLOOR = -0.005;

function targets(speed: SpeedResults, quality: QualityResults, honesty: HonestyRow[], scale: ScaleBench | undefined): Target[] {
  const out: Target[] = [];
  out.push({
    name: 'Telco whole fit < 1 s (median, in-process)',
    measured: `${ms(speed.telco.medianMs)} (CPU ${ms(speed.telco.cpuMedianMs)})`,
    ok: speed.telco.medianMs < 1000,
  });
  const s = speed.synthetic;
  const label = `${big(OPTIONS.BENCH_SYNTH_ROWS)} x ${OPTIONS.BENCH_SYNTH_COLS}`;
  out.push({
    name: `synthetic ${label} fit < 10 s`,
    measured: s.ok
      ? `median ${ms(s.value.fitMs)} (runs ${s.value.runsMs.map((x) => ms(x)).join(', ')}; CPU ${ms(s.value.cpuMs)})`
      : s.reason,
    ok: s.ok && s.value.fitMs < 10_000,
  });
  const hgb = speed.syntheticPython?.ok ? speed.syntheticPython.fitMs.sklearn_hist_gb : undefined;
  const hgbCpu = speed.syntheticPython?.ok ? speed.syntheticPython.cpuMs.sklearn_hist_gb : undefined;
  out.push({
    name: `synthetic ${label} fit <= 0.5 x one HistGradientBoosting fit (one thread, same rows, this run)`,
    measured:
      s.ok && hgb !== undefined
        ? `ours ${ms(s.value.fitMs)} / HGB ${ms(hgb)} = ${(s.value.fitMs / hgb).toFixed(2)}${hgbCpu !== undefined && Number.isFinite(hgbCpu) ? ` (CPU time: ours ${ms(s.value.cpuMs)} / HGB ${ms(hgbCpu)} = ${(s.value.cpuMs / hgbCpu).toFixed(2)})` : ''}`
        : `not measured (${!s.ok ? s.reason : 'Python peers absent'})`,
    ok: s.ok && hgb !== undefined && s.value.fitMs <= 0.5 * hgb,
  });
  out.push({
    name: `synthetic ${label} peak RSS < 1 GB`,
    measured: s.ok ? `${f0(s.value.peakRssMb)} MB` : s.reason,
    ok: s.ok && s.value.peakRssMb < 1024,
  });
  out.push({
    name: 'scoring >= 1,000,000 cases/s inside the engine',
    measured: `${big(speed.scoring.engine.casesPerSec)} cases/s`,
    ok: speed.scoring.engine.casesPerSec >= 1e6,
  });
  for (const [what, a, bar] of [
    [`realistic ${label}`, speed.realistic, 0.5],
    ['diamonds 40,455 x 9 (training rows of the first bench split)', speed.diamonds, 1.0],
  ] as const) {
    const o = a.ours.ok ? a.ours.value : null;
    const oh = a.oneHot?.ok ? a.oneHot.fitMs.sklearn_hist_gb : undefined;
    const nat = a.native?.ok ? a.native.fitMs : undefined;
    out.push({
      name: `${what} fit <= ${bar.toFixed(1)} x one HistGradientBoosting fit (one thread, same rows, this run; one-hot and native categories)`,
      measured: o
        ? `ours ${ms(o.fitMs)} (CPU ${ms(o.cpuMs)}); HGB one-hot ${oh === undefined ? 'not run' : `${ms(oh)} = ${(o.fitMs / oh).toFixed(2)}`}; native ${nat === undefined ? 'not run' : `${ms(nat)} = ${(o.fitMs / nat).toFixed(2)}`}`
        : `not measured (${a.ours.ok ? '' : a.ours.reason})`,
      ok: !!o && oh !== undefined && nat !== undefined && o.fitMs <= bar * oh && o.fitMs <= bar * nat,
    });
  }
  const million = scale?.points.find((p) => p.rows === 1_000_000 && p.kind === 'friendly');
  const realMillion = scale?.points.find((p) => p.rows === 1_000_000 && p.kind === 'realistic');
  out.push({
    name: 'realistic 1,000,000 x 13 stored record, cold start: ask -> answer < 12 s, service peak RSS < 1 GB',
    measured: realMillion
      ? `${ms(realMillion.cold.answerMs)} (${realMillion.cold.state}; first reply ${ms(realMillion.cold.firstReplyMs)}), ${f0(realMillion.cold.peakRssMb)} MB`
      : 'not measured in this run (BENCH_SCALE=0 or 1000000 not in BENCH_SCALE_REALISTIC_SIZES)',
    ok: !!realMillion && realMillion.cold.answerMs < 12_000 && realMillion.cold.state === 'answered' && realMillion.cold.peakRssMb < 1024,
  });
  out.push({
    name: '1,000,000 x 13 stored record, cold start: ask -> answer < 12 s',
    measured: million
      ? `${ms(million.cold.answerMs)} (${million.cold.state}; first reply ${ms(million.cold.firstReplyMs)})`
      : 'not measured in this run (BENCH_SCALE=0 or 1000000 not in BENCH_SCALE_SIZES)',
    ok: !!million && million.cold.answerMs < 12_000 && million.cold.state === 'answered',
  });
  out.push({
    name: '1,000,000 x 13 stored record, cold start: service peak RSS < 1 GB',
    measured: million ? `${f0(million.cold.peakRssMb)} MB` : 'not measured in this run',
    ok: !!million && million.cold.peakRssMb < 1024,
  });
  const comps = quality.tables.map(compareTable).filter((c): c is TableComparison => c !== null);
  if (comps.length) {
    const meanGap = comps.reduce((a, c) => a + c.aucGap, 0) / comps.length;
    out.push({
      name: `mean AUC gap (ours - best peer) over all ${comps.length} tables >= 0`,
      measured: signed(meanGap),
      ok: meanGap >= 0,
    });
    const worst = [...comps].sort((a, b) => a.aucGap - b.aucGap)[0];
    const below = comps.filter((c) => c.aucGap < AUC_FLOOR);
    out.push({
      name: 'AUC gap never below -0.005 on any table',
      measured: `worst ${worst.table} ${signed(worst.aucGap)}${below.length ? `; below: ${below.map((c) => `${c.table} ${signed(c.aucGap)}`).join(', ')}` : ''}`,
      ok: below.length === 0,
    });
    const llOk = comps.filter((c) => c.logLossGap <= 0);
    out.push({
      name: "log loss at or below the best peer's on most tables",
      measured: `${llOk.length} of ${comps.length} (not: ${
        comps
          .filter((c) => c.logLossGap > 0)
          .map((c) => `${c.table} ${signed(c.logLossGap)}`)
          .join(', ') || 'none'
      })`,
      ok: llOk.length * 2 > comps.length,
    });
    const large = comps.filter((c) => c.rows >= ECE_MIN_ROWS);
    const eceMissed = large.filter((c) => c.eceGap > 0);
    out.push({
      name: `ECE at or below the best peer's on every table of ${big(ECE_MIN_ROWS)} rows or more`,
      measured: `${large.length - eceMissed.length} of ${large.length} (not: ${eceMissed.map((c) => `${c.table} ${f3(c.ours.ece)} vs ${f3(c.bestEce.ece)}`).join(', ') || 'none'})`,
      ok: large.length > 0 && eceMissed.length === 0,
    });
  }
  const telcoQ = quality.tables.find((t) => t.table === 'telco_churn')?.models.find((m) => m.model === ENGINE_MODEL);
  if (telcoQ) out.push({ name: 'Telco AUC >= 0.850 (bench splits, mean)', measured: f3(telcoQ.auc), ok: telcoQ.auc >= 0.85 });
  const own = speed.telco.auc ?? NaN;
  out.push({ name: "Telco AUC >= 0.850 (engine's own held-out part, all rows)", measured: f3(own), ok: own >= 0.85 });
  const fits = honesty.reduce((a, r) => a + r.fits, 0);
  const okFits = honesty.reduce((a, r) => a + r.refused + r.notYet, 0);
  const lowTables = honesty.filter((r) => r.rate < HONESTY_TARGET);
  out.push({
    name: `permuted labels refused or not_yet >= 99% on every table (${honesty.length} tables, wide ones included)`,
    measured: `${okFits}/${fits} = ${f1((100 * okFits) / fits)}% in all; ${lowTables.length ? `below on ${lowTables.map((r) => `${r.table} ${r.refused + r.notYet}/${r.fits}`).join(', ')}` : 'no table below'}`,
    ok: honesty.length > 0 && lowTables.length === 0,
  });
  return out;
}

/** Per-table matrix of the quality and honesty goals: a reader sees met / not met for each table at once. */
function perTableMarkdown(quality: QualityResults, honesty: HonestyRow[]): string {
  const byTable = new Map(honesty.map((h) => [h.table, h]));
  const lines = [
    `| table | rows | AUC: ours - best >= ${AUC_FLOOR} | log loss: ours <= best | ECE: ours <= best (tables >= ${big(ECE_MIN_ROWS)} rows) | permuted labels refused or not_yet >= 99% |`,
    '|---|---|---|---|---|---|',
  ];
  const names = [...new Set([...quality.tables.map((t) => t.table), ...honesty.map((h) => h.table)])];
  for (const name of names) {
    const t = quality.tables.find((q) => q.table === name);
    const c = t ? compareTable(t) : null;
    const h = byTable.get(name);
    const cell = (ok: boolean, text: string) => `${text} ${ok ? 'met' : '**not met**'}`;
    lines.push(
      `| ${name} | ${big(t?.rows ?? h?.rows ?? 0)} | ${c ? cell(c.aucGap >= AUC_FLOOR, signed(c.aucGap)) : '-'} | ${c ? cell(c.logLossGap <= 0, signed(c.logLossGap)) : '-'} | ${
        c ? (c.rows >= ECE_MIN_ROWS ? cell(c.eceGap <= 0, signed(c.eceGap)) : `${signed(c.eceGap)} (not judged)`) : '-'
      } | ${h ? cell(h.rate >= HONESTY_TARGET, `${h.refused + h.notYet}/${h.fits}`) : 'not run'} |`,
    );
  }
  return lines.join('\n');
}

/** Where each real table comes from: the catalogue in bench/datasets.ts with what was loaded. */
function tablesMarkdown(loaded: LoadedTable[], absent: Array<{ info: TableInfo; reason: string }>, install: DebianInstall | null): string {
  const lines = [
    'Every loader is deterministic and documented in bench/datasets.ts. Columns: feature columns given to every model (entity and outcome excluded); the peers one-hot the categorical ones.',
    '',
    '| table | rows | columns | positives | outcome (positive when) | fills | source | licence | package version |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const { info, ds } of loaded) {
    const pos = outcomeVector(ds).reduce((a, b) => a + b, 0);
    const versions =
      info.debian.map((p) => `${p} ${debianVersion(p) ?? '?'}`).join(', ') ||
      (info.source.startsWith('npm') ? npmVersion(info.source) : '');
    lines.push(
      `| ${info.name} | ${big(ds.rows.length)} | ${featureColumns(ds).length} | ${big(pos)} (${f1((100 * pos) / ds.rows.length)}%) | ${info.outcome} | ${info.fills || '(original set)'} | ${info.source} | ${info.licence} | ${versions} |`,
    );
  }
  for (const { info, reason } of absent)
    lines.push(`| ${info.name} | absent: ${reason} | | | ${info.outcome} | ${info.fills} | ${info.source} | ${info.licence} | |`);
  if (install && (install.installed.length || install.missing.length))
    lines.push(
      '',
      `Debian packages: installed by this run: ${install.installed.join(', ') || 'none'}; missing: ${install.missing.map((m) => `${m.name} (${m.reason})`).join(', ') || 'none'}.`,
    );
  return lines.join('\n');
}

function npmVersion(source: string): string {
  const name = source.split(' ')[1];
  try {
    return `${name} ${JSON.parse(readFileSync(join(repoRoot, 'node_modules', name, 'package.json'), 'utf8')).version}`;
  } catch {
    return '';
  }
}

function childLine(c: ChildOutcome<XgbSyntheticFit> | null, ours: number, what: string): string {
  if (!c) return `| ml-xgboost, ${what} | not run (BENCH_XGB_FULL_CAP_S=0) | | |`;
  if (!c.ok) {
    // Only a run stopped at the cap bounds the ratio; a crash says nothing about ml-xgboost's speed.
    const bound = /cap/.test(c.reason) ? `ours / ml-xgboost < ${(ours / c.wallMs).toFixed(3)}` : 'no ratio';
    return `| ml-xgboost, ${what} | did not finish: ${c.reason} (wall ${ms(c.wallMs)}) | | ${bound} |`;
  }
  return `| ml-xgboost, ${what} | ${ms(c.value.fitMs)} (1 run, ${c.value.features} one-hot features) | ${f0(c.value.peakRssMb)} MB | ours / ml-xgboost = ${(ours / c.value.fitMs).toFixed(3)} |`;
}

function pythonLines(t: PythonTimes | null, ours: number, what: string): string[] {
  if (!t) return [`| Python peers, ${what} | not run (BENCH_PYTHON=0) | | |`];
  if (!t.ok) return [`| Python peers, ${what} | absent: ${t.reason} | | |`];
  return Object.entries(t.fitMs).map(
    ([model, fitMs]) =>
      `| ${model} (Python, one thread), ${what} (${t.features} features) | ${ms(fitMs)} (1 run; CPU time ${ms(t.cpuMs[model])}) | | ours / ${model} = ${(ours / fitMs).toFixed(2)} |`,
  );
}

/** Rows of the fit-time table for a table fitted beside HGB (againstHgb). */
function againstHgbLines(a: AgainstHgb, what: string): string[] {
  if (!a.ours.ok) return [`| ours, ${what} | failed: ${a.ours.reason} | | |`];
  const o = a.ours.value;
  const lines = [
    `| ours, ${what}: ${big(o.rows)} x ${o.cols}, child process | median ${ms(o.fitMs)} of ${o.runsMs.length} (runs ${o.runsMs.map((x) => ms(x)).join(', ')}; CPU time median ${ms(o.cpuMs)}); ${o.state}, held-out AUC ${f3(o.auc)}, ${o.pairs} pairs, mean rounds ${f1(o.meanRounds)} | peak RSS ${f0(o.peakRssMb)} MB | |`,
  ];
  if (a.oneHot) lines.push(...pythonLines(a.oneHot, o.fitMs, `${what}, one-hot`));
  if (a.native)
    lines.push(
      a.native.ok
        ? `| sklearn_hist_gb (Python, one thread), ${what}, native categories (${a.native.features} features) | ${ms(a.native.fitMs)} (1 run; CPU time ${ms(a.native.cpuMs)}; ${a.native.iterations} iterations) | | ours / sklearn_hist_gb native = ${(o.fitMs / a.native.fitMs).toFixed(2)} |`
        : `| HistGradientBoosting with native categories, ${what} | ${a.native.reason} | | |`,
    );
  return lines;
}

function speedMarkdown(s: SpeedResults): string {
  const { telco, telcoXgb, scoring, synthetic, subsample, subsampleXgb, fullXgb } = s;
  const rows = OPTIONS.BENCH_SYNTH_ROWS,
    cols = OPTIONS.BENCH_SYNTH_COLS,
    sub = OPTIONS.BENCH_XGB_SUBSAMPLE;
  const syn = synthetic.ok ? synthetic.value : null;
  const lines = [
    '### Fit time',
    '',
    '| what | time | memory | ratio |',
    '|---|---|---|---|',
    `| ours, Telco 7,043 rows, whole fit in-process | median ${ms(telco.medianMs)} of ${telco.runsMs.length} (runs ${telco.runsMs.map(f0).join(', ')} ms; cold warm-up ${f0(telco.warmupMs)} ms; of which encoding the cells ${f0(telco.encodeMedianMs)} ms); CPU time median ${ms(telco.cpuMedianMs)}; ${telco.state}, held-out AUC ${f3(telco.auc)}, ${telco.pairs} pairs | | |`,
    `| ml-xgboost, Telco, all rows (${telcoXgb.features} one-hot features) | median ${ms(telcoXgb.medianMs)} of ${telcoXgb.runsMs.length} (runs ${telcoXgb.runsMs.map(f0).join(', ')} ms) | | ours / ml-xgboost = ${(telco.medianMs / telcoXgb.medianMs).toFixed(3)} |`,
    syn
      ? `| ours, synthetic ${big(rows)} x ${cols} (seed ${SYNTH_SEED}), child process | median ${ms(syn.fitMs)} of ${syn.runsMs.length} (runs ${syn.runsMs.map((x) => ms(x)).join(', ')}; after a 2,000-row warm-up fit; CPU time median ${ms(syn.cpuMs)}); ${syn.state}, held-out AUC ${f3(syn.auc)}, ${syn.pairs} pairs, mean rounds ${f1(syn.meanRounds)} | peak RSS ${f0(syn.peakRssMb)} MB after the first fit (${f0(syn.peakRssAllRunsMb)} MB after all runs; RSS ${f0(syn.rssBeforeFitMb)} MB just before the first fit, table already built in JS) | |`
      : `| ours, synthetic ${big(rows)} x ${cols} | failed: ${synthetic.ok ? '' : synthetic.reason} | | |`,
    `| ours, synthetic first ${big(sub)} rows x ${cols}, in-process | median ${ms(subsample.medianMs)} of ${subsample.runsMs.length} (runs ${subsample.runsMs.map(f0).join(', ')} ms; encoding ${f0(subsample.encodeMedianMs)} ms; CPU time median ${ms(subsample.cpuMedianMs)}); ${subsample.state}, AUC ${f3(subsample.auc)}, ${subsample.pairs} pairs | | |`,
    childLine(subsampleXgb, subsample.medianMs, `synthetic first ${big(sub)} rows (child process)`),
    childLine(fullXgb, syn?.fitMs ?? NaN, `synthetic ${big(rows)} rows (child process, capped at ${OPTIONS.BENCH_XGB_FULL_CAP_S} s)`),
    ...pythonLines(s.telcoPython, telco.medianMs, 'Telco, all rows'),
    ...pythonLines(s.syntheticPython, syn?.fitMs ?? NaN, `synthetic ${big(rows)} x ${cols}`),
    ...againstHgbLines(s.realistic, `realistic ${big(rows)} x ${cols} (bench/datasets.ts realisticTable, seed ${SYNTH_SEED})`),
    ...againstHgbLines(s.diamonds, 'diamonds, training rows of the first bench split'),
    '',
    `Ours is the whole fit: encoding the cells, copying in, canonical order, held-out split, binning, 8 bags of cyclic boosting with early stopping, pair screening and boosting, combining, calibration check and the held-out decision. ml-xgboost is its \`train\` call only (200 rounds, depth 5, on the one-hot matrix built beforehand), one model, no held-out check. The first ${big(sub)} rows of the seeded synthetic table are exactly \`syntheticTable(${sub}, ${cols}, ${SYNTH_SEED})\`, so the subsample ratio compares the two on identical rows.`,
    '',
    ...(fullXgb && !fullXgb.ok && /memory access/.test(fullXgb.reason)
      ? [
          `ml-xgboost could not fit the full ${big(rows)}-row table: its wasm build has a fixed 16 MB heap (\`TOTAL_MEMORY=16777216\`, no memory growth, in node_modules/ml-xgboost/dist/wasm/xgboost.js), so inputs past roughly 15,000 rows x 70 features trap. Its ratio is therefore given on the first ${big(sub)} rows; at full size the comparison is against Python XGBoost 1.7 (one thread) above.`,
          '',
        ]
      : []),
    '### Scoring throughput',
    '',
    `Telco model (${scoring.columns} columns used, ${scoring.pairs} pairs), ${big(scoring.cases)} cases drawn (seeded) from the Telco rows; tinybench median latency per batch of ${big(scoring.cases)}.`,
    '',
    '| path | median per batch | cases/s | samples |',
    '|---|---|---|---|',
    `| engine: one wasm \`score\` call (p, contributions, bins, reasons), inputs already in wasm memory | ${scoring.engine.p50Ms.toFixed(2)} ms | ${big(scoring.engine.casesPerSec)} | ${scoring.engine.samples} |`,
    `| bridge: \`scoreEncoded\` (copy model and columns in, score, copy outputs out) | ${scoring.bridge.p50Ms.toFixed(2)} ms | ${big(scoring.bridge.casesPerSec)} | ${scoring.bridge.samples} |`,
    `| end to end: \`scoreCases\` (plus typing the raw cells in JS) | ${scoring.endToEnd.p50Ms.toFixed(2)} ms | ${big(scoring.endToEnd.casesPerSec)} | ${scoring.endToEnd.samples} |`,
  ];
  return lines.join('\n');
}

/** Plain words for each quality split where the engine did not answer (its AUC there is not a model's). */
function stateNotes(quality: QualityResults): string[] {
  return quality.tables.flatMap((t) => {
    const ours = t.models.find((m) => m.model === ENGINE_MODEL);
    if (!ours?.states) return [];
    const count = (s: string) => ours.states!.filter((x) => x === s).length;
    const notes: string[] = [];
    if (count('not_yet'))
      notes.push(
        `- ${t.table}: not_yet on ${count('not_yet')} of ${ours.states.length} splits (too few rows of the rarer class for the engine's own held-out check on 75% of the table), so no model and the base rate scored: AUC 0.5 there.`,
      );
    if (count('refused'))
      notes.push(
        `- ${t.table}: refused on ${count('refused')} of ${ours.states.length} splits (split AUCs ${ours.perSplitAuc.map((a) => f3(a)).join(', ')}); the refused fit's tested model still scored the test rows.`,
      );
    return notes;
  });
}

function markdown(speed: SpeedResults, quality: QualityResults, honesty: HonestyRow[], ts: Target[], totalS: number): string {
  return [
    '# Benchmark results',
    '',
    'The whole last run of `npm run bench`, section by section; [benchmarks](benchmarks.md) sums it up beside the targets.',
    '',
    `Written by \`npm run bench\` (bench/run.ts) on ${new Date().toISOString().slice(0, 10)}; the whole run took ${f0(totalS)} s.`,
    `Options (environment variables): ${[...Object.entries(OPTIONS), ...Object.entries(LIST_OPTIONS)]
      .map(([k, v]) => `\`${k}=${v}\``)
      .join(', ')}.`,
    '',
    `Engine measured: build/engine.wasm core_hash \`${engineVersion.coreHash.slice(0, 16)}…\`, commit ${engineVersion.commit}${engineVersion.dirty ? ' with uncommitted changes in assembly/, host/engine/ or host/table/' : ''}.`,
    '',
    '## Machine',
    '',
    `- CPU: ${machine.cpu}, \`nproc\` = ${machine.nproc}; ${machine.kernel}; Node ${machine.node}.`,
    `- Load average before the run: ${machine.loadBefore}; after: ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}.`,
    `- Sections (start time into the run, 1-minute load average then): ${sections.map((x) => `${x.name} ${f0(x.atS)} s (load ${x.load})`).join('; ')}.`,
    `- CPU time stolen by the hypervisor during the run (/proc/stat steal): ${stealShare(machine.cpuBefore, cpuTicks())} of all CPU time. This is a shared virtual machine: stalls of about 50 ms were seen in the server's event loop and, at the same size, in an idle client process beside it, so a p99 latency here measures the host as much as the service.`,
    '- `free -g`:',
    '',
    '```',
    machine.free,
    '```',
    '',
    'The machine is shared with other work and noisy (see the load averages: above 2 means the 2 cores were oversubscribed during the run): wall times move by tens of percent, up to 2x, between runs. Fit rows also give the process CPU time, which other load disturbs less. Targets are judged on wall time; ratios to a peer timed in the same run are less disturbed than absolute times.',
    '',
    '## Targets',
    '',
    '| target | measured | |',
    '|---|---|---|',
    ...ts.map((t) => `| ${t.name} | ${t.measured} | ${verdict(t.ok)} |`),
    '',
    'Per table (AUC, log loss and ECE are means over the quality splits; "best" is the best peer of that measure):',
    '',
    perTableMarkdown(quality, honesty),
    '',
    '## Tables',
    '',
    tablesMarkdown(loadedTables, absentTables, install),
    '',
    '## Quality, side by side',
    '',
    formatQualityMarkdown(quality),
    '',
    ...(stateNotes(quality).length ? ['Where the engine did not answer:', '', ...stateNotes(quality), ''] : []),
    `\`${ENGINE_MODEL}\` is our engine fitted on the train rows only (its own held-out check and bags inside them: small tables, under about 1,334 labelled train rows, are cross-fitted; larger ones hold out 25% by entity hash), then scoring the test rows; a refused fit still scores with the model it tested, a not_yet fit (no model) would score the train base rate. ${quality.splitSource === 'sklearn' ? "The splits are scikit-learn's train_test_split(stratify=y, test_size=0.25, random_state=1337+s), the splits earlier reference numbers of these tables were measured on, so the peers' figures are comparable with those." : "The splits are our seeded stratified 75/25 splits (bench/splits.ts; scikit-learn was not installed), not the reference numbers' own, so the peers' figures differ from those."} A cross-fitted served model learns from all the train rows, as the peers do; a held-out one learns from 75% of them (the rest is its own held-out check).`,
    '',
    'What each engine choice was measured at on these splits, and what was tried and not kept: [engine history](engine-history.md).',
    '',
    '## Speed',
    '',
    speedMarkdown(speed),
    '',
    '## Honesty: permuted labels',
    '',
    `Seeded label permutations of every table (mulberry32 Fisher-Yates on the outcome vector, seeds 50000 + 1000 x table + k, table in the order of the table list above; features untouched), each a full fit in a 2-worker pool: ${OPTIONS.BENCH_PERMUTATIONS} per table (BENCH_PERMUTATIONS), ${OPTIONS.BENCH_PERMUTATIONS_LARGE} per table of ${big(OPTIONS.BENCH_HONESTY_LARGE_ROWS)} rows or more (BENCH_PERMUTATIONS_LARGE, to keep the run time sane). The one-hot tables are the wide indicator tables the issue asks for. With no pattern left, every fit should be refused or not_yet.`,
    '',
    formatHonestyMarkdown(honesty),
    '',
    ...(service ? [formatServiceMarkdown(service)] : []),
    ...(scale
      ? [formatScaleMarkdown(scale), '']
      : ['## Scale: a stored record from a cold start', '', 'Not measured in this run (BENCH_SCALE=0).', '']),
    ...(product ? [formatProductMarkdown(product)] : []),
    ...(overload ? [formatOverloadMarkdown(overload), ''] : []),
    ...browserSection(),
    ...sectionAsItStands('## Track record'),
    ...(cluster ? ['', formatClusterMarkdown(cluster), ''] : []),
  ].join('\n');
}

/** issue "in-browser preview": bench/browser.ts (Chromium against Node, same fit) run as its own process. */
function browserSection(): string[] {
  if (!browserBench) return ['## In-browser fit', '', 'Not measured in this run (BENCH_BROWSER=0 or no /usr/bin/chromium).', ''];
  return ['## In-browser fit (Telco churn, Chromium vs Node)', '', browserBench, ''];
}

// ---- main ----

interface LoadedTable {
  info: TableInfo;
  ds: Dataset;
}
const sections: Array<{ name: string; atS: number; load: string }> = [];
const section = (name: string) => sections.push({ name, atS: (performance.now() - started) / 1000, load: os.loadavg()[0].toFixed(2) });

log(`machine: ${machine.cpu}, ${machine.nproc} cores, Node ${machine.node}, load ${machine.loadBefore}`);
const fullCatalogue = realTables(OPTIONS.BENCH_FLIGHTS_ROWS).map((t) => t.name);
const catalogue = realTables(OPTIONS.BENCH_FLIGHTS_ROWS).filter(
  (t) => !LIST_OPTIONS.BENCH_TABLES || LIST_OPTIONS.BENCH_TABLES.split(',').includes(t.name),
);
// Bench-only Debian packages: the Python peers and the R dataset packages (never part of the service's install).
section('install');
const wantedDebian = [...(OPTIONS.BENCH_PYTHON !== 0 ? PYTHON_DEBIAN_PACKAGES : []), ...catalogue.flatMap((t) => t.debian)];
const install: DebianInstall | null = wantedDebian.length ? ensureDebianPackages(wantedDebian, log, OPTIONS.BENCH_INSTALL !== 0) : null;
if (install?.installed.length) resetPythonProbe();
for (const m of install?.missing ?? []) log(`absent: ${m.name}: ${m.reason}`);
section('tables');
const loadedTables: LoadedTable[] = [];
const absentTables: Array<{ info: TableInfo; reason: string }> = [];
for (const info of catalogue) {
  try {
    loadedTables.push({ info, ds: await info.load() });
  } catch (err) {
    absentTables.push({ info, reason: (err as Error).message });
    log(`table ${info.name} absent: ${(err as Error).message}`);
  }
}
log(`tables: ${loadedTables.map((t) => `${t.info.name} ${t.ds.rows.length}`).join(', ')}`);
section('speed');
const speed = await runSpeed();
section('quality');
log('quality: engine and peers on the same splits');
const quality = await runQuality(engineFit, {
  datasets: loadedTables.map((t) => t.ds),
  splits: OPTIONS.BENCH_SPLITS,
  pythonPeers: OPTIONS.BENCH_PYTHON !== 0,
  jsPeers: OPTIONS.BENCH_JS_PEERS !== 0,
  jsPeerMaxCells: OPTIONS.BENCH_JS_PEER_MAX_CELLS,
  xgbHistCells: OPTIONS.BENCH_XGB_HIST_CELLS,
  log: (l) => log(`quality: ${l}`),
});
section('honesty');
log(
  `honesty: ${OPTIONS.BENCH_PERMUTATIONS} permutations per table (${OPTIONS.BENCH_PERMUTATIONS_LARGE} from ${OPTIONS.BENCH_HONESTY_LARGE_ROWS} rows)`,
);
const pool = new FitPool(2);
let honesty: HonestyRow[];
try {
  honesty = await runHonesty(
    loadedTables.map((t) => t.ds),
    (ds) => (ds.rows.length >= OPTIONS.BENCH_HONESTY_LARGE_ROWS ? OPTIONS.BENCH_PERMUTATIONS_LARGE : OPTIONS.BENCH_PERMUTATIONS),
    pool,
    log,
    // seeds follow the table's place in the whole catalogue, so BENCH_TABLES subsets reproduce the full run's fits
    (ds) => fullCatalogue.indexOf(ds.name),
  );
} finally {
  await pool.close();
}
let service: ServiceBench | undefined;
if (OPTIONS.BENCH_SERVICE !== 0) {
  section('service');
  log('service: REST latency, load, datasets, uploads, events shape');
  service = await runServiceBench((l) => log(`service: ${l}`));
}
let cluster: ClusterBench | undefined;
if (OPTIONS.BENCH_CLUSTER !== 0) {
  log('cluster: SQLite vs PostgreSQL, 1 to 3 nodes behind HAProxy, 100 MB upload on each store');
  cluster = await runClusterBench((l) => log(`cluster: ${l}`));
}
let scale: ScaleBench | undefined;
if (OPTIONS.BENCH_SCALE !== 0 && scaleSizes.length) {
  section('scale');
  log(`scale: stored 13-column records of ${scaleSizes.join(', ')} rows, cold asks, HistGradientBoosting beside`);
  scale = await runScaleBench(scaleSizes, {
    probeRate: OPTIONS.BENCH_SCALE_PROBE_RATE,
    python: OPTIONS.BENCH_PYTHON !== 0,
    log: (l) => log(`scale: ${l}`),
  });
  if (realisticScaleSizes.length) {
    log(`scale: the realistic record at ${realisticScaleSizes.join(', ')} rows`);
    const realistic = await runScaleBench(realisticScaleSizes, {
      kind: 'realistic',
      probeRate: 0,
      python: OPTIONS.BENCH_PYTHON !== 0,
      log: (l) => log(`scale: ${l}`),
    });
    scale.points.push(...realistic.points);
  }
}
// docs/guides/ship-a-product.md: model_ref scoring beside the cached ask by ids, and the export of a 100,000-case rank
let product: ProductBench | undefined;
if (OPTIONS.BENCH_PRODUCT !== 0) {
  log('product: scoring by model_ref, exports');
  product = await runProductBench((l) => log(`product: ${l}`));
}
// docs/guides/overload.md: cold asks above capacity for minutes beside cached asks, on the service's default settings
let overload: OverloadBench | undefined;
if (OPTIONS.BENCH_OVERLOAD !== 0) {
  log('overload: 150 s of cold asks above capacity, cached asks beside');
  overload = await runOverloadBench({
    seconds: 150,
    rate: 9.5,
    workspaces: 3,
    rows: 10_000,
    columns: 30,
    probeRate: 20,
    log: (l) => log(`overload: ${l}`),
  });
}
let browserBench: string | undefined;
if (OPTIONS.BENCH_BROWSER !== 0 && existsSync('/usr/bin/chromium')) {
  section('browser');
  log('browser: Telco fit in Chromium and in Node');
  try {
    browserBench = execSync('npx tsx bench/browser.ts', {
      cwd: repoRoot,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      timeout: 600_000,
    }).trim();
  } catch (err) {
    browserBench = `failed: ${(err as Error).message.split('\n')[0]}`;
  }
}
const ts = targets(speed, quality, honesty, scale);
const totalS = (performance.now() - started) / 1000;
// The section `npm run bench:uploads-events` writes (bench/uploads-events.ts, last in the file) is carried over as it stands.
const keptSection = /\n## Uploads in pieces and task events[\s\S]*$/.exec(currentResults())?.[0] ?? '';
writeFileSync(RESULTS_PATH, wrapMarkdown(markdown(speed, quality, honesty, ts, totalS).trimEnd() + '\n' + keptSection));

const width = Math.max(...ts.map((t) => t.name.length));
console.log(`\nBenchmark summary (${f0(totalS)} s; details in docs/benchmark-results.md)\n`);
for (const t of ts) console.log(`${t.ok ? ' ok  ' : 'MISS '} ${t.name.padEnd(width)}  ${t.measured}`);
const missed = ts.filter((t) => !t.ok).length;
console.log(`\n${ts.length - missed} targets met, ${missed} missed.`);
