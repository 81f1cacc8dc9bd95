// Runs the Debian Python peers (scikit-learn, XGBoost) on the same encoded splits; absent -> reported, never thrown.
import { spawnSync, execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { PeerInput, PeerResult } from './types.ts';

export const PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('./python_peers.py', import.meta.url));
export const PYTHON_MODELS = ['sklearn_logistic', 'sklearn_hist_gb', 'xgboost', 'sklearn_random_forest', 'sklearn_hist_gb_cv'] as const;
export type PythonModel = (typeof PYTHON_MODELS)[number];
/** The Debian packages that provide the Python peers (bench/debian.ts installs them when missing). */
export const PYTHON_DEBIAN_PACKAGES = ['python3-sklearn', 'python3-xgboost'];

export type PythonRun =
  | { available: false; reason: string }
  | { available: true; versions: Record<string, string>; models: Record<string, PeerResult[]>; peakRssMb: number };

/** One split as flat row-major float64 matrices (d columns): what the Python side reads with numpy.fromfile. */
export interface PythonSplit {
  d: number;
  xTrain: Float64Array;
  yTrain: Uint8Array;
  xTest: Float64Array;
}

let probe: { ok: boolean; reason: string } | undefined;

/** True when /usr/bin/python3 can import sklearn and xgboost (checked once per process). */
export function pythonPeersAvailable(): { ok: boolean; reason: string } {
  if (!probe) {
    const r = spawnSync(PYTHON, ['-c', 'import sklearn, xgboost'], { encoding: 'utf8' });
    const reason = r.error ? r.error.message : (r.stderr || '').trim().split('\n').pop() || `exit ${r.status}`;
    probe = r.status === 0 ? { ok: true, reason: '' } : { ok: false, reason };
  }
  return probe;
}

/** Forget the cached probe (after an install). */
export function resetPythonProbe(): void {
  probe = undefined;
}

/** Flattens an encoded split (arrays of rows) into the matrices the Python side reads. */
export function toPythonSplit(s: PeerInput): PythonSplit {
  const d = s.xTrain[0]?.length ?? s.xTest[0]?.length ?? 0;
  const flat = (x: number[][]) => {
    const out = new Float64Array(x.length * d);
    x.forEach((row, i) => out.set(row, i * d));
    return out;
  };
  return { d, xTrain: flat(s.xTrain), yTrain: s.yTrain, xTest: flat(s.xTest) };
}

/** Fits every Python peer on every split (one process, single-threaded); results are in split order. */
export async function runPythonPeers(splits: PeerInput[], models?: readonly PythonModel[]): Promise<PythonRun> {
  return runPythonSplits(splits.map(toPythonSplit), models);
}

export interface PythonOptions {
  /** Which peers fit (all of PYTHON_MODELS by default). */
  models?: readonly PythonModel[];
  /** XGBoost's tree_method: its 1.7 default 'auto' (exact greedy on these sizes) or 'hist'. */
  xgbTreeMethod?: 'auto' | 'hist';
  timeoutMs?: number;
}

/** Same, on splits already flattened; `models` (or options) limits which peers fit (all by default). */
export async function runPythonSplits(splits: PythonSplit[], opts: readonly PythonModel[] | PythonOptions = {}): Promise<PythonRun> {
  const {
    models,
    xgbTreeMethod = 'auto',
    timeoutMs = 3_600_000,
  } = Array.isArray(opts) ? { models: opts as readonly PythonModel[] } : (opts as PythonOptions);
  const check = pythonPeersAvailable();
  if (!check.ok) return { available: false, reason: `python peers absent: ${check.reason}` };
  const dir = mkdtempSync(join(tmpdir(), 'bench-py-'));
  try {
    const bytes = (a: Float64Array | Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
    const payload = splits.map((s, k) => {
      writeFileSync(join(dir, `x_train_${k}.f64`), bytes(s.xTrain));
      writeFileSync(join(dir, `y_train_${k}.u8`), bytes(s.yTrain));
      writeFileSync(join(dir, `x_test_${k}.f64`), bytes(s.xTest));
      return {
        n_train: s.yTrain.length,
        n_test: s.d > 0 ? s.xTest.length / s.d : 0,
        d: s.d,
        x_train: `x_train_${k}.f64`,
        y_train: `y_train_${k}.u8`,
        x_test: `x_test_${k}.f64`,
      };
    });
    const inPath = join(dir, 'in.json');
    const outPath = join(dir, 'out.json');
    writeFileSync(inPath, JSON.stringify({ models: models ?? null, xgb_tree_method: xgbTreeMethod, splits: payload }));
    const env = { ...process.env, OMP_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1', PYTHONWARNINGS: 'ignore' };
    await promisify(execFile)(PYTHON, [SCRIPT, inPath, outPath], { env, maxBuffer: 1 << 24, timeout: timeoutMs, killSignal: 'SIGKILL' });
    const out = JSON.parse(readFileSync(outPath, 'utf8'));
    const fitted: Record<string, PeerResult[]> = {};
    for (const [name, runs] of Object.entries(out.models as Record<string, { p: number[]; fit_ms: number; fit_cpu_ms: number }[]>)) {
      fitted[name] = runs.map((r) => ({ p: Float64Array.from(r.p), fitMs: r.fit_ms, cpuMs: r.fit_cpu_ms }));
    }
    return { available: true, versions: out.versions, models: fitted, peakRssMb: out.peak_rss_mb };
  } catch (err) {
    return { available: false, reason: `python peers failed: ${(err as Error).message.split('\n')[0]}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
