// Our whole fit against one single-threaded scikit-learn HistGradientBoosting fit of the same rows, in the same
// run, alternating, on the friendly synthetic table, the realistic one and the real diamonds table (bench/speed.ts
// SpeedKind). Ours runs as the service runs it: a fresh child process with the default fit pool (one worker per
// core, at most 4), a warm-up fit, then RUNS timed fits (median); HGB fits once with one-hot categories (the
// quality bench's peer) and once with native ones.
// Usage: npx tsx bench/speed-vs-hgb.ts [KINDS comma-separated] [ROUNDS]; ROWS, COLS, SEED, RUNS from the environment
// (100000, 30, 7, 3; diamonds ignores ROWS and COLS).
import os from 'node:os';
import { runChild, speedTable, timeHgbNative, timePythonPeers, SPEED_KINDS, type SpeedKind, type SyntheticFit } from './speed.ts';

const kinds = (process.argv[2] ?? SPEED_KINDS.join(',')).split(',') as SpeedKind[];
const rounds = Number(process.argv[3] ?? 2);
const env = (k: string, d: number) => Number(process.env[k] ?? d);
const ROWS = env('ROWS', 100_000),
  COLS = env('COLS', 30),
  SEED = env('SEED', 7),
  RUNS = env('RUNS', 3);
const s2 = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const load = () => os.loadavg()[0].toFixed(1);

console.log(
  '| table | round | ours: median fit (runs; CPU) | HGB one-hot (CPU) | HGB native categories (CPU) | ours / HGB one-hot | ours / HGB native | load |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (const kind of kinds) {
  const ds = speedTable(kind, ROWS, COLS, SEED);
  for (let r = 1; r <= rounds; r++) {
    const l0 = load();
    const ours = await runChild<SyntheticFit>('engine-synthetic', [ROWS, COLS, SEED, RUNS, kind], 1_800_000);
    const oneHot = await timePythonPeers(ds, ['sklearn_hist_gb']);
    const native = await timeHgbNative(ds);
    if (!ours.ok) {
      console.log(`| ${kind} | ${r} | failed: ${ours.reason} | | | | | ${l0} |`);
      continue;
    }
    const o = ours.value;
    const oh = oneHot.ok ? oneHot.fitMs.sklearn_hist_gb : NaN;
    const nat = native.ok ? native.fitMs : NaN;
    console.log(
      `| ${kind} ${o.rows.toLocaleString('en-US')} x ${o.cols} (${o.state}, AUC ${o.auc?.toFixed(4)}, ${o.pairs} pairs, mean rounds ${o.meanRounds.toFixed(1)}) | ${r} | ${s2(o.fitMs)} (${o.runsMs.map(s2).join(', ')}; CPU ${s2(o.cpuMs)}; peak RSS ${o.peakRssMb.toFixed(0)} MB) | ${oneHot.ok ? `${s2(oh)} (${s2(oneHot.cpuMs.sklearn_hist_gb)}; ${oneHot.features} features)` : oneHot.reason} | ${native.ok ? `${s2(nat)} (${s2(native.cpuMs)}; ${native.iterations} iterations)` : native.reason} | ${(o.fitMs / oh).toFixed(2)} | ${(o.fitMs / nat).toFixed(2)} | ${l0}-${load()} |`,
    );
  }
}
