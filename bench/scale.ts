// Scale curve (issue: "a 1,000,000 x 13 stored record answered from a cold start"): for each size, a seeded
// 13-column record stored through the presigned upload, then a FRESH service process on that store answers
// its first ask (ask -> pending -> poll -> answer), with the process's peak RSS; beside it one scikit-learn
// HistGradientBoosting fit (one thread) on the same rows. At the largest size, the p99 of small cached asks
// sent at a steady pace to the same node while that fit runs. Run alone: npx tsx bench/scale.ts [ROWS,...] [friendly|realistic]
import { cpSync, rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { childServer, postJson, uploadCsv, type ChildServer } from './service.ts';
import { pacedLoad, type PacedResult } from './paced-load.ts';
import { runPythonSplits } from './peers/python.ts';

/** The record's 13 columns: id, 9 numeric, 2 categorical, the yes/no outcome. */
export const SCALE_HEADER = ['id', ...Array.from({ length: 9 }, (_, j) => `x${j}`), 'plan', 'region', 'y'];
const PLANS = ['basic', 'pro', 'team'];
const REGIONS = ['n', 's', 'e', 'w'];
// The realistic record's categories: 12 plans and 40 regions, of skewed frequency.
const REAL_PLANS = Array.from({ length: 12 }, (_, k) => `plan_${String(k).padStart(2, '0')}`);
const REAL_REGIONS = Array.from({ length: 40 }, (_, k) => `region_${String(k).padStart(2, '0')}`);

/**
 * `friendly`: scaleRow, what the targets were first met on (numbers with one decimal in [0, 100), 1,000
 * distinct values a column; 3 plans and 4 regions). `realistic`: realisticScaleRow, like the records users
 * send (normal values with three decimals, tens of thousands of distinct values a column; 12 plans and 40
 * regions).
 */
export type ScaleKind = 'friendly' | 'realistic';

export interface ScaleRow {
  id: string;
  x: number[];
  plan: number;
  region: number;
  y: 0 | 1;
}

/**
 * Row i of the seeded scale record, the same for every size (a smaller record is a prefix of a larger one).
 * Numbers in [0, 100) with one decimal from an integer hash of i; the outcome is drawn from a planted logit:
 * linear in x0, a step in x1, a bump in x2, a plan effect and a plan x x3 interaction; x4..x8 are noise.
 */
export function scaleRow(i: number): ScaleRow {
  let h = (Math.imul(i + 1, 0x9e3779b1) ^ 0x5bd1e995) >>> 0;
  const next = () => {
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
    h = Math.imul(h ^ (h >>> 12), 0x297a2d39) >>> 0;
    h = (h ^ (h >>> 15)) >>> 0;
    return h / 4294967296;
  };
  const x = Array.from({ length: 9 }, () => Math.floor(next() * 1000) / 10);
  const plan = Math.floor(next() * 3);
  const region = Math.floor(next() * 4);
  const z =
    -1 + (x[0] - 50) / 30 + (x[1] > 70 ? 1 : 0) - ((x[2] - 50) / 30) ** 2 + [-0.4, 0, 0.5][plan] + (plan === 2 ? (x[3] - 50) / 40 : 0);
  const y = next() < 1 / (1 + Math.exp(-z)) ? 1 : 0;
  return { id: `c${i}`, x, plan, region, y };
}

/**
 * Row i of the seeded realistic scale record (a smaller record is a prefix of a larger one): x0..x8 normal
 * values of their own centre and spread with three decimals, x0-x2, x3-x5 and x6-x8 each sharing a latent
 * factor (correlation about 0.5); plan one of 12 and region one of 40, level k drawn with weight 1 / (k + 1). The
 * outcome follows x0 (linear), x1 (a step), x2 (a bump), x3 x x6 (an interaction), the plan (level effects and a
 * plan x x4 interaction) and the region (small effects); x5, x7 and x8 only through their latent factors.
 */
export function realisticScaleRow(i: number): ScaleRow {
  let h = (Math.imul(i + 1, 0x85ebca6b) ^ 0x27d4eb2f) >>> 0;
  const next = () => {
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
    h = Math.imul(h ^ (h >>> 12), 0x297a2d39) >>> 0;
    h = (h ^ (h >>> 15)) >>> 0;
    return h;
  };
  const normal = () => {
    const u1 = (next() + 1) / 4294967297;
    const u2 = next() / 4294967296;
    return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  };
  const skewed = (levels: number, total: number) => {
    let u = (next() / 4294967296) * total;
    for (let k = 0; k < levels; k++) if ((u -= 1 / (k + 1)) < 0) return k;
    return levels - 1;
  };
  const z: number[] = new Array(9);
  for (let g = 0; g < 3; g++) {
    const latent = normal();
    for (let k = 0; k < 3; k++) z[g * 3 + k] = 0.7 * latent + 0.714 * normal();
  }
  const x = z.map((v, j) => Math.round((((j * 37) % 11) * 10 - 20 + (0.5 + ((j * 13) % 7)) * v) * 1000) / 1000);
  const plan = skewed(12, HARMONIC_12);
  const region = skewed(40, HARMONIC_40);
  const zLogit =
    -1.1 +
    0.7 * z[0] +
    (z[1] > 0.8 ? 0.9 : 0) +
    0.8 * Math.exp(-2 * z[2] * z[2]) +
    0.5 * z[3] * z[6] +
    ((plan * 5) % 7) * 0.15 -
    0.45 +
    (plan < 3 ? 0.6 * z[4] : 0) +
    (region % 5 === 0 ? 0.3 : 0);
  const y = next() / 4294967296 < 1 / (1 + Math.exp(-zLogit)) ? 1 : 0;
  return { id: `c${i}`, x, plan, region, y };
}
const harmonic = (n: number) => Array.from({ length: n }, (_, k) => 1 / (k + 1)).reduce((a, b) => a + b, 0);
const HARMONIC_12 = harmonic(12);
const HARMONIC_40 = harmonic(40);

/** Row i of the record of that kind. */
export const rowOf = (kind: ScaleKind, i: number): ScaleRow => (kind === 'realistic' ? realisticScaleRow(i) : scaleRow(i));

/** Row `r` as a line of the record's CSV. */
export const scaleCsvLine = (r: ScaleRow, kind: ScaleKind = 'friendly') =>
  kind === 'realistic'
    ? `${r.id},${r.x.join(',')},${REAL_PLANS[r.plan]},${REAL_REGIONS[r.region]},${r.y ? 'yes' : 'no'}\n`
    : `${r.id},${r.x.join(',')},${PLANS[r.plan]},${REGIONS[r.region]},${r.y ? 'yes' : 'no'}\n`;

/** The first `rows` rows as the peers see them: 9 numbers, plan one-hot, region one-hot (16 or 61 features). */
function scaleMatrix(rows: number, kind: ScaleKind): { x: Float64Array; y: Uint8Array; d: number } {
  const plans = kind === 'realistic' ? REAL_PLANS.length : PLANS.length;
  const regions = kind === 'realistic' ? REAL_REGIONS.length : REGIONS.length;
  const d = 9 + plans + regions;
  const x = new Float64Array(rows * d);
  const y = new Uint8Array(rows);
  for (let i = 0; i < rows; i++) {
    const r = rowOf(kind, i);
    const o = i * d;
    for (let j = 0; j < 9; j++) x[o + j] = r.x[j];
    x[o + 9 + r.plan] = 1;
    x[o + 9 + plans + r.region] = 1;
    y[i] = r.y;
  }
  return { x, y, d };
}

export interface AskTiming {
  /** Ask sent -> first reply (202 pending, or 200 when it finished within the server's pending wait). */
  firstReplyMs: number;
  firstStatus: number;
  /** Ask sent -> the answer (after polls). */
  answerMs: number;
  polls: number;
  state: string;
}

export interface ScalePoint {
  kind: ScaleKind;
  rows: number;
  csvBytes: number;
  uploadMs: number;
  cold: AskTiming & { peakRssMb: number; rssAfterStartMb: number };
  hgb: { ok: true; fitMs: number; peakRssMb: number; features: number } | { ok: false; reason: string };
}

export interface LatencyDuringFit {
  rows: number;
  /** The big ask on the node under probe (not cold: the small ask ran first). */
  fit: AskTiming;
  probe: PacedResult;
  /** Probe asks whose due time fell before the big answer came back. */
  duringFit: number;
}

export interface ScaleBench {
  points: ScalePoint[];
  latency: LatencyDuringFit | null;
  probeRate: number;
}

const ask = (datasetId: string, ids: string[]) => ({
  data: { dataset_id: datasetId },
  entity_column: 'id',
  subject_kind: 'other',
  questions: { q: { type: 'yesno', outcome_column: 'y' } },
  cases: { ids },
});

/** One ask followed to its answer: poll at the server's retry_after_ms (capped to 1 s, so the end is seen promptly). */
async function askToAnswer(server: ChildServer, body: unknown, timeoutMs = 900_000): Promise<AskTiming> {
  const t0 = performance.now();
  let r = await postJson(`${server.url}/v1/ask`, body, server.key);
  const firstReplyMs = performance.now() - t0;
  const firstStatus = r.status;
  let polls = 0;
  while (r.status === 202 && r.body?.status === 'pending') {
    if (performance.now() - t0 > timeoutMs) throw new Error(`no answer within ${timeoutMs / 1000} s`);
    await new Promise((res) => setTimeout(res, Math.min(Math.max(Number(r.body.retry_after_ms) || 250, 50), 1000)));
    r = await postJson(`${server.url}/v1/poll`, { task_id: r.body.task_id }, server.key);
    polls++;
  }
  const answerMs = performance.now() - t0;
  const state = r.body?.answers?.q?.state ?? `${r.status} ${r.body?.code ?? ''}`;
  return { firstReplyMs, firstStatus, answerMs, polls, state };
}

async function upload(server: ChildServer, rows: number, kind: ScaleKind = 'friendly'): Promise<{ id: string; bytes: number; ms: number }> {
  const up = await uploadCsv(server, `${SCALE_HEADER.join(',')}\n`, (i) => (i < rows ? scaleCsvLine(rowOf(kind, i), kind) : null));
  if (up.status !== 200) throw new Error(`upload of ${rows} rows failed: HTTP ${up.status}`);
  return up;
}

/** One single-threaded HistGradientBoosting fit on the same rows, in its own Python process (its peak RSS). */
async function hgbFit(rows: number, kind: ScaleKind): Promise<ScalePoint['hgb']> {
  const m = scaleMatrix(rows, kind);
  const run = await runPythonSplits([{ d: m.d, xTrain: m.x, yTrain: m.y, xTest: new Float64Array(0) }], ['sklearn_hist_gb']);
  if (!run.available) return { ok: false, reason: run.reason };
  return { ok: true, fitMs: run.models.sklearn_hist_gb[0].fitMs, peakRssMb: run.peakRssMb, features: m.d };
}

/**
 * The curve. `sizes` ascending; `probeRate` cached asks per second during the largest fit (0: no probe);
 * `python` false skips the HistGradientBoosting fits.
 */
export async function runScaleBench(
  sizes: number[],
  opts: { probeRate?: number; python?: boolean; log?: (l: string) => void; kind?: ScaleKind } = {},
): Promise<ScaleBench> {
  const { probeRate = 20, python = true, log = () => {}, kind = 'friendly' } = opts;
  const points: ScalePoint[] = [];
  let latency: LatencyDuringFit | null = null;
  const largest = Math.max(...sizes);
  for (const rows of sizes) {
    // 1. store: one server process takes the upload (and, at the largest size, a small record for the probe)
    const loader = await childServer();
    let big: { id: string; bytes: number; ms: number };
    let small: { id: string } | null = null;
    try {
      big = await upload(loader, rows, kind);
      if (rows === largest && probeRate > 0) small = await upload(loader, 2_000);
    } finally {
      await loader.stopGracefully();
    }
    log(`${kind} ${rows.toLocaleString('en-US')} rows stored (${(big.bytes / 1e6).toFixed(1)} MB CSV in ${(big.ms / 1000).toFixed(1)} s)`);
    const probeDir = small ? `${loader.dir}-probe` : null;
    if (probeDir) cpSync(loader.dir, probeDir, { recursive: true });

    // 2. cold: a fresh process on that store; its first request is the ask
    const cold = await childServer({}, { dir: loader.dir, key: loader.key });
    let coldPoint: ScalePoint['cold'];
    try {
      const rssAfterStartMb = cold.rss();
      const t = await askToAnswer(cold, ask(big.id, ['c1']));
      coldPoint = { ...t, peakRssMb: cold.hwm(), rssAfterStartMb };
    } finally {
      cold.stop();
      rmSync(loader.dir, { recursive: true, force: true });
    }
    log(
      `${rows.toLocaleString('en-US')} rows cold ask: first reply ${(coldPoint.firstReplyMs / 1000).toFixed(1)} s (HTTP ${coldPoint.firstStatus}), answer ${(coldPoint.answerMs / 1000).toFixed(1)} s (${coldPoint.state}), peak RSS ${coldPoint.peakRssMb.toFixed(0)} MB`,
    );

    // 3. the peer on the same rows
    const hgb: ScalePoint['hgb'] = python ? await hgbFit(rows, kind) : { ok: false, reason: 'not run (BENCH_PYTHON=0)' };
    if (hgb.ok)
      log(
        `${rows.toLocaleString('en-US')} rows HistGradientBoosting: ${(hgb.fitMs / 1000).toFixed(1)} s, peak RSS ${hgb.peakRssMb.toFixed(0)} MB`,
      );
    points.push({ kind, rows, csvBytes: big.bytes, uploadMs: big.ms, cold: coldPoint, hgb });

    // 4. at the largest size: cached small asks at a steady pace while the big fit runs on the same node
    if (small && probeDir) {
      const node = await childServer({}, { dir: probeDir, key: loader.key });
      try {
        const smallAsk = JSON.stringify(ask(small.id, ['c1']));
        const warm = await askToAnswer(node, JSON.parse(smallAsk));
        if (warm.state !== 'answered') log(`probe: the small ask came back ${warm.state}`);
        let done = false;
        let answeredAt = Infinity;
        const t0 = performance.now();
        const fitP = askToAnswer(node, ask(big.id, ['c1'])).then((t) => ((done = true), (answeredAt = performance.now()), t));
        const probe = await pacedLoad({
          url: `${node.url}/v1/ask`,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${node.key}` },
          body: smallAsk,
          rate: probeRate,
          seconds: 900,
          shouldStop: () => done,
        });
        const fit = await fitP;
        latency = { rows, fit, probe, duringFit: Math.floor(((answeredAt - t0) / 1000) * probeRate) };
        log(
          `probe during the ${rows.toLocaleString('en-US')}-row fit: ${probe.sent} cached asks at ${probeRate}/s, p50 ${probe.p50.toFixed(1)} ms, p99 ${probe.p99.toFixed(1)} ms, max ${probe.max.toFixed(0)} ms (${probe.failed} failed)`,
        );
      } finally {
        node.stop();
        rmSync(probeDir, { recursive: true, force: true });
      }
    }
  }
  return { points, latency, probeRate };
}

const s1 = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export function formatScaleMarkdown(b: ScaleBench): string {
  const lines = [
    '## Scale: a stored record from a cold start',
    '',
    `A seeded record of 13 columns (id, 9 numeric, 2 categorical, yes/no outcome; bench/scale.ts: \`friendly\` rows are scaleRow, numbers with one decimal in [0, 100) and 3 plans and 4 regions; \`realistic\` rows are realisticScaleRow, normal values with three decimals, 12 plans and 40 regions; a smaller record is a prefix of a larger one) stored through the presigned upload (add-dataset \`upload: true\`, then PUT) by one service process, which is then stopped; a fresh service process on the same store gets the ask as its first request. Times run from sending the ask to its first reply (202 pending, or 200) and to the answer (polling \`/v1/poll\` at the server's retry_after_ms, at most 1 s apart). Peak RSS is the fresh process's VmHWM (start-up and the ask). Beside it, one scikit-learn HistGradientBoostingClassifier fit (library defaults, one thread) on the same rows (one-hot: 16 features friendly, 61 realistic), in its own Python process: its fit time and that process's peak RSS (data loaded included).`,
    '',
    '| record | rows | CSV | upload | ask -> first reply | ask -> answer | state | peak RSS (service) | HistGradientBoosting fit | peak RSS (Python) | answer / HGB fit |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const p of b.points) {
    const h = p.hgb;
    lines.push(
      `| ${p.kind} | ${p.rows.toLocaleString('en-US')} | ${(p.csvBytes / 1e6).toFixed(1)} MB | ${s1(p.uploadMs)} | ${s1(p.cold.firstReplyMs)} (HTTP ${p.cold.firstStatus}) | ${s1(p.cold.answerMs)} (${p.cold.polls} polls) | ${p.cold.state} | ${p.cold.peakRssMb.toFixed(0)} MB (${p.cold.rssAfterStartMb.toFixed(0)} MB after start-up) | ${h.ok ? s1(h.fitMs) : h.reason} | ${h.ok ? `${h.peakRssMb.toFixed(0)} MB` : ''} | ${h.ok ? (p.cold.answerMs / h.fitMs).toFixed(2) : ''} |`,
    );
  }
  const l = b.latency;
  lines.push('');
  if (l) {
    lines.push(
      `Cached asks during the ${l.rows.toLocaleString('en-US')}-row fit: a third service process on a copy of the same store answers a 2,000-row record's 1-case ask once, then gets the big ask; meanwhile that small ask is sent at a steady ${b.probeRate} per second (open loop, bench/paced-load.ts; each timed from its due time to its last byte) until the big answer comes back. ${l.probe.sent} sent (${l.probe.failed} failed) over ${l.probe.seconds.toFixed(1)} s: p50 ${l.probe.p50.toFixed(1)} ms, p90 ${l.probe.p90.toFixed(1)} ms, **p99 ${l.probe.p99.toFixed(1)} ms**, max ${l.probe.max.toFixed(0)} ms. The big ask there: first reply ${s1(l.fit.firstReplyMs)} (HTTP ${l.fit.firstStatus}), answer ${s1(l.fit.answerMs)} (${l.fit.state}).`,
    );
  } else lines.push('Cached asks during the largest fit: not measured in this run (BENCH_SCALE_PROBE_RATE=0).');
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const sizes = (process.argv[2] ?? '10000,100000').split(',').map(Number);
  const kind = (process.argv[3] ?? 'friendly') as ScaleKind;
  if (kind !== 'friendly' && kind !== 'realistic') throw new Error('usage: tsx bench/scale.ts [ROWS,...] [friendly|realistic]');
  const b = await runScaleBench(sizes, { kind, log: (l) => process.stderr.write(`${l}\n`) });
  console.log(formatScaleMarkdown(b));
}
