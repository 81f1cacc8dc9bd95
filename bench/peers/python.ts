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
export const PYTHON_MODELS = ['sklearn_logistic', 'sklearn_hist_gb', 'xgboost'] as const;

export type PythonRun =
  { available: false; reason: string } | { available: true; versions: Record<string, string>; models: Record<string, PeerResult[]> };

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

/** Fits every Python peer on every split (one process, single-threaded); results are in split order. */
export async function runPythonPeers(splits: PeerInput[]): Promise<PythonRun> {
  const check = pythonPeersAvailable();
  if (!check.ok) return { available: false, reason: `python peers absent: ${check.reason}` };
  const dir = mkdtempSync(join(tmpdir(), 'bench-py-'));
  try {
    const inPath = join(dir, 'in.json');
    const outPath = join(dir, 'out.json');
    const payload = splits.map((s) => ({ x_train: s.xTrain, y_train: Array.from(s.yTrain), x_test: s.xTest }));
    writeFileSync(inPath, JSON.stringify({ splits: payload }));
    const env = { ...process.env, OMP_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1', PYTHONWARNINGS: 'ignore' };
    await promisify(execFile)(PYTHON, [SCRIPT, inPath, outPath], { env, maxBuffer: 1 << 24, timeout: 3_600_000 });
    const out = JSON.parse(readFileSync(outPath, 'utf8'));
    const models: Record<string, PeerResult[]> = {};
    for (const [name, runs] of Object.entries(out.models as Record<string, { p: number[]; fit_ms: number }[]>)) {
      models[name] = runs.map((r) => ({ p: Float64Array.from(r.p), fitMs: r.fit_ms }));
    }
    return { available: true, versions: out.versions, models };
  } catch (err) {
    return { available: false, reason: `python peers failed: ${(err as Error).message.split('\n')[0]}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
