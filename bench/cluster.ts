// More than one machine, measured in one run on one machine: cached 1-case ask latency on SQLite
// and on PostgreSQL (one node each, interleaved); cold fits per minute and cached asks per second with 1, 2
// and 3 nodes on one PostgreSQL database behind HAProxy (deploy/haproxy.cfg); a ~100 MB presigned upload
// and the first ask on it, on each store. `npm run bench:cluster` runs this part alone and replaces its
// section of docs/benchmark-results.md; `npm run bench` runs it with the rest (BENCH_CLUSTER=0 leaves it out).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { startHaproxy, type RunningHaproxy } from '../deploy/haproxy.ts';
import { startNode, type RunningNode } from '../deploy/node.ts';
import { createDatabase, freePort, startPostgres, type PostgresServer } from '../deploy/postgres.ts';
import { createLiveKey } from '../host/runtime/keys.ts';
import { openPostgresStore, openSqliteStore, type Store } from '../host/store/index.ts';
import { currentResults, RESULTS_PATH, wrapMarkdown } from './results-file.ts';
import { benchRows } from './service.ts';

export interface Latency {
  p50: number;
  p99: number;
  n: number;
}

export interface ScalePoint {
  nodes: number;
  coldFits: number;
  coldSeconds: number;
  fitsPerMinute: number;
  cachedRps: number;
  cachedP50: number;
  cachedP99: number;
  cachedNon2xx: number;
}

export interface UploadPoint {
  bytes: number;
  uploadMs: number;
  firstAskMs: number;
  state: string;
  rows: number;
}

export interface ClusterBench {
  cachedAsk: { sqlite: Latency; postgres: Latency };
  scaling: ScalePoint[];
  upload: { sqlite: UploadPoint; postgres: UploadPoint };
  loads: Array<{ section: string; load: string }>;
  cores: number;
  fitWorkers: string;
}

const COLD_FITS = 12;
const COLD_ROWS = 4000;
const COLD_CONCURRENCY = 6;
const CACHED_SECONDS = 10;
const CACHED_CONNECTIONS = 16;
const LATENCY_ROUNDS = 10;
const LATENCY_PER_ROUND = 50;

const pct = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const dirs: string[] = [];
const tmp = (p: string) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), p));
  dirs.push(dir);
  return dir;
};

interface Node {
  url: string;
  key: string;
  node: RunningNode;
  dataDir: string;
}

/** A node on a store of its own (SQLite dir, or a PostgreSQL database), with a live key made in that store first. */
async function nodeOn(store: { sqliteDir: string } | { databaseUrl: string }, env: Record<string, string> = {}): Promise<Node> {
  const s: Store = 'sqliteDir' in store ? await openSqliteStore(store.sqliteDir) : await openPostgresStore(store.databaseUrl);
  const { key } = await createLiveKey(s, { workspaceName: 'bench', now: Date.now() });
  await s.close();
  const settings: Record<string, string> = {
    ...nodeEnv('databaseUrl' in store ? store.databaseUrl : ''),
    ...('sqliteDir' in store ? { DATA_DIR: store.sqliteDir } : {}),
    ...env,
  };
  const node = await startNode(settings, logFileIn(settings.DATA_DIR));
  return { url: node.url, key, node, dataDir: settings.DATA_DIR };
}

async function post(url: string, body: unknown, key: string): Promise<{ status: number; body: any; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, ms: performance.now() - t0 };
}

const askOn = (datasetId: string, ids = ['c1']) => ({
  data: { dataset_id: datasetId },
  entity_column: 'id',
  subject_kind: 'other',
  questions: { q: { type: 'yesno', outcome_column: 'y' } },
  cases: { ids },
});

async function addDataset(base: string, key: string, rows: unknown[]): Promise<string> {
  const r = await post(`${base}/v1/add-dataset`, { rows }, key);
  if (r.status !== 200) throw new Error(`add-dataset ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.dataset_id;
}

/** Cached 1-case asks one at a time on each node, in alternating rounds so both see the same machine load. */
async function cachedLatency(nodes: Record<'sqlite' | 'postgres', Node>, log: (s: string) => void): Promise<ClusterBench['cachedAsk']> {
  const rows = benchRows(0, 2000);
  const asks: Record<string, unknown> = {};
  for (const [name, n] of Object.entries(nodes)) {
    asks[name] = askOn(await addDataset(n.url, n.key, rows));
    const cold = await post(`${n.url}/v1/ask`, asks[name], n.key);
    if (cold.status !== 200) throw new Error(`${name} ask ${cold.status}`);
    for (let i = 0; i < 50; i++) await post(`${n.url}/v1/ask`, asks[name], n.key);
  }
  const times: Record<string, number[]> = { sqlite: [], postgres: [] };
  for (let round = 0; round < LATENCY_ROUNDS; round++) {
    for (const [name, n] of Object.entries(nodes)) {
      for (let i = 0; i < LATENCY_PER_ROUND; i++) {
        const r = await post(`${n.url}/v1/ask`, asks[name], n.key);
        if (r.status !== 200) throw new Error(`${name} ask ${r.status}`);
        times[name].push(r.ms);
      }
    }
  }
  const summary = (xs: number[]): Latency => ({ p50: pct(xs, 0.5), p99: pct(xs, 0.99), n: xs.length });
  const out = { sqlite: summary(times.sqlite), postgres: summary(times.postgres) };
  log(
    `cached 1-case ask: SQLite p50 ${out.sqlite.p50.toFixed(1)} / p99 ${out.sqlite.p99.toFixed(1)} ms, PostgreSQL p50 ${out.postgres.p50.toFixed(1)} / p99 ${out.postgres.p99.toFixed(1)} ms`,
  );
  return out;
}

function load(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => autocannon(opts, (err, res) => (err ? reject(err) : resolve(res))));
}

/** N nodes on a fresh database behind HAProxy: cold fits through the proxy, then cached asks per second. */
async function scalePoint(server: PostgresServer, n: number, log: (s: string) => void): Promise<ScalePoint> {
  const databaseUrl = await createDatabase(server.url, `bench${n}`);
  const first = await nodeOn({ databaseUrl });
  const rest: RunningNode[] = [];
  for (let i = 1; i < n; i++) {
    const settings = nodeEnv(databaseUrl);
    rest.push(await startNode(settings, logFileIn(settings.DATA_DIR)));
  }
  const nodes = [first.node, ...rest];
  let proxy: RunningHaproxy | undefined;
  try {
    proxy = await startHaproxy(
      await freePort(),
      nodes.map((x) => `127.0.0.1:${x.port}`),
    );
    const base = proxy.url;
    const key = first.key;
    // distinct records, stored before the clock starts
    const datasets: Array<{ id: string; firstCase: string }> = [];
    for (let i = 0; i < COLD_FITS; i++) {
      const from = 100_000 * (i + 1);
      datasets.push({ id: await addDataset(base, key, benchRows(from, from + COLD_ROWS)), firstCase: `c${from}` });
    }
    const t0 = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: COLD_CONCURRENCY }, async () => {
        while (next < datasets.length) {
          const d = datasets[next++];
          const r = await post(`${base}/v1/ask`, askOn(d.id, [d.firstCase]), key);
          if (r.status !== 200 || r.body.fits_run !== 1) throw new Error(`cold ask ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
        }
      }),
    );
    const coldSeconds = (performance.now() - t0) / 1000;
    // cached: the first dataset's fit, asked for one case over and over
    const body = JSON.stringify(askOn(datasets[0].id, [datasets[0].firstCase]));
    const res = await load({
      url: `${base}/v1/ask`,
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body,
      connections: CACHED_CONNECTIONS,
      duration: CACHED_SECONDS,
    });
    const point: ScalePoint = {
      nodes: n,
      coldFits: COLD_FITS,
      coldSeconds,
      fitsPerMinute: (COLD_FITS / coldSeconds) * 60,
      cachedRps: res.requests.average,
      cachedP50: res.latency.p50,
      cachedP99: res.latency.p99,
      cachedNon2xx: res.non2xx,
    };
    log(
      `${n} node(s): ${point.fitsPerMinute.toFixed(1)} cold fits/min, ${point.cachedRps.toFixed(0)} cached asks/s (p50 ${point.cachedP50} ms, p99 ${point.cachedP99} ms, non-2xx ${point.cachedNon2xx})`,
    );
    return point;
  } finally {
    await proxy?.stop();
    await Promise.all(nodes.map((x) => x.stop()));
  }
}

/** Each node logs into its DATA_DIR; a node that dies mid-run leaves its last lines in the error. */
const logFileIn = (dataDir: string) => path.join(dataDir, 'node.log');

function lastLogLines(n: Node): string {
  const file = path.join(n.dataDir, 'node.log');
  return fs.existsSync(file)
    ? fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => !l.includes('"msg":"request"'))
        .slice(-8)
        .join('\n')
    : '';
}

/** A node's settings: its own DATA_DIR; '' for databaseUrl is SQLite there. */
function nodeEnv(databaseUrl: string): Record<string, string> {
  return {
    DATA_DIR: tmp('oq-bench-node-'),
    DATABASE_URL: databaseUrl,
    BASE_URL: '',
    LOG_LEVEL: 'info', // one access-log line per request, as in production
    RATE_LIMIT_PER_MINUTE: '1000000000',
    PENDING_WAIT_MS: '600000',
  };
}

/** Streams ~99 MB of CSV (bench rows) to a fresh upload URL, then asks about one case of it (the first fit). */
async function uploadAndAsk(n: Node, log: (s: string) => void, name: string): Promise<UploadPoint> {
  const made = await post(`${n.url}/v1/add-dataset`, { upload: true, filename: 'bench.csv' }, n.key);
  const columns = Object.keys(benchRows(0, 1)[0]);
  const header = columns.join(',') + '\n';
  const cap = 99_000_000;
  let size = 0;
  let i = 0;
  let done = false;
  const enc = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    pull(ctrl) {
      if (done) return ctrl.close();
      let chunk = size === 0 ? header : '';
      while (chunk.length < 1 << 20) {
        const row = benchRows(i, i + 1)[0];
        const line = columns.map((c) => row[c]).join(',') + '\n';
        if (size + chunk.length + line.length > cap) {
          done = true;
          break;
        }
        chunk += line;
        i++;
      }
      size += chunk.length;
      ctrl.enqueue(enc.encode(chunk));
    },
  });
  const t0 = performance.now();
  const res = await fetch(made.body.upload_url, {
    method: 'PUT',
    headers: { 'content-type': 'text/csv' },
    body: stream,
    duplex: 'half',
  } as RequestInit);
  const put = (await res.json()) as { rows?: number };
  const uploadMs = performance.now() - t0;
  if (res.status !== 200) throw new Error(`upload ${res.status} ${JSON.stringify(put)}`);
  const ask = await post(`${n.url}/v1/ask`, askOn(made.body.dataset_id), n.key);
  if (ask.status !== 200) throw new Error(`first ask ${ask.status} ${JSON.stringify(ask.body).slice(0, 300)}`);
  const point = { bytes: size, uploadMs, firstAskMs: ask.ms, state: ask.body.answers.q.state as string, rows: put.rows ?? i };
  log(
    `${name}: ${(size / 1e6).toFixed(0)} MB upload ${(uploadMs / 1000).toFixed(1)} s, first ask ${(ask.ms / 1000).toFixed(1)} s (${point.state})`,
  );
  return point;
}

export async function runClusterBench(log: (s: string) => void): Promise<ClusterBench> {
  const loads: ClusterBench['loads'] = [];
  const mark = (section: string) => loads.push({ section, load: os.loadavg()[0].toFixed(2) });
  const server = await startPostgres();
  try {
    mark('cached ask, SQLite vs PostgreSQL');
    const sqlite = await nodeOn({ sqliteDir: tmp('oq-bench-sqlite-') });
    const postgres = await nodeOn({ databaseUrl: await createDatabase(server.url, 'latency') });
    let cachedAsk: ClusterBench['cachedAsk'];
    try {
      cachedAsk = await cachedLatency({ sqlite, postgres }, log);
    } finally {
      await sqlite.node.stop();
      await postgres.node.stop();
    }
    const scaling: ScalePoint[] = [];
    for (const n of [1, 2, 3]) {
      mark(`${n} node(s)`);
      scaling.push(await scalePoint(server, n, log));
    }
    mark('100 MB upload');
    const up: Partial<ClusterBench['upload']> = {};
    for (const name of ['sqlite', 'postgres'] as const) {
      const n = await nodeOn(
        name === 'sqlite' ? { sqliteDir: tmp('oq-bench-upload-') } : { databaseUrl: await createDatabase(server.url, 'upload') },
      );
      try {
        up[name] = await uploadAndAsk(n, log, name);
      } catch (err) {
        const exit = n.node.child.exitCode ?? n.node.child.signalCode;
        throw new Error(`${name}: ${(err as Error).message}; node exit ${exit}; its log ends:\n${lastLogLines(n)}`, { cause: err });
      } finally {
        await n.node.stop();
      }
    }
    mark('end');
    return {
      cachedAsk,
      scaling,
      upload: up as ClusterBench['upload'],
      loads,
      cores: os.availableParallelism(),
      fitWorkers: process.env.FIT_WORKERS ?? `default (${Math.max(1, Math.min(os.availableParallelism(), 4))})`,
    };
  } finally {
    await server.destroy();
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  }
}

const f1 = (x: number) => x.toFixed(1);
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;

export const CLUSTER_SECTION_START = '<!-- bench:cluster -->';
export const CLUSTER_SECTION_END = '<!-- /bench:cluster -->';

export function formatClusterMarkdown(b: ClusterBench): string {
  const { sqlite, postgres } = b.cachedAsk;
  const one = b.scaling[0];
  const lines = [
    CLUSTER_SECTION_START,
    '## More than one machine (PostgreSQL, HAProxy)',
    '',
    `One run, one machine (${b.cores} cores; fit workers per node: ${b.fitWorkers}); PostgreSQL 15 from Debian on the same machine (fsync off, as the test server), HAProxy 2.6 with deploy/haproxy.cfg, the load generator in the bench process. 1-minute load average at each part: ${b.loads.map((l) => `${l.section} ${l.load}`).join('; ')}.`,
    '',
    '| measure | SQLite | PostgreSQL | PostgreSQL / SQLite |',
    '|---|---|---|---|',
    `| cached 1-case ask, one node, one at a time (${sqlite.n} each, alternating rounds): p50 | ${f1(sqlite.p50)} ms | ${f1(postgres.p50)} ms | ${ratio(postgres.p50, sqlite.p50)} |`,
    `| same, p99 | ${f1(sqlite.p99)} ms | ${f1(postgres.p99)} ms | ${ratio(postgres.p99, sqlite.p99)} |`,
    `| presigned upload of ${(b.upload.sqlite.bytes / 1e6).toFixed(0)} MB of CSV (${b.upload.sqlite.rows.toLocaleString('en-US')} rows) | ${f1(b.upload.sqlite.uploadMs / 1000)} s | ${f1(b.upload.postgres.uploadMs / 1000)} s | ${ratio(b.upload.postgres.uploadMs, b.upload.sqlite.uploadMs)} |`,
    `| first ask on it (read the pieces, parse, fit, answer one case: ${b.upload.sqlite.state} / ${b.upload.postgres.state}) | ${f1(b.upload.sqlite.firstAskMs / 1000)} s | ${f1(b.upload.postgres.firstAskMs / 1000)} s | ${ratio(b.upload.postgres.firstAskMs, b.upload.sqlite.firstAskMs)} |`,
    '',
    `| nodes behind HAProxy, one PostgreSQL | cold fits per minute (${COLD_FITS} stored ${COLD_ROWS}-row records, ${COLD_CONCURRENCY} at a time) | vs 1 node | cached 1-case asks per second (${CACHED_CONNECTIONS} connections, ${CACHED_SECONDS} s) | p50 / p99 | vs 1 node |`,
    '|---|---|---|---|---|---|',
    ...b.scaling.map(
      (p) =>
        `| ${p.nodes} | ${f1(p.fitsPerMinute)} | ${ratio(p.fitsPerMinute, one.fitsPerMinute)} | ${p.cachedRps.toFixed(0)}${p.cachedNon2xx ? ` (${p.cachedNon2xx} not 2xx)` : ''} | ${p.cachedP50} / ${p.cachedP99} ms | ${ratio(p.cachedRps, one.cachedRps)} |`,
    ),
    '',
    `This machine has ${b.cores} cores for everything: every node, PostgreSQL, HAProxy and the load generator. More nodes on it add no CPU, so cold fits per minute and cached asks per second cannot grow with the node count here; what the rows show is what running N nodes costs on the same cores (more processes, the fit claim and the shared rate-limit counter in PostgreSQL). With a machine per node, fits are CPU-bound in each node's own workers and share nothing but one claim row and the final insert, so cold fits per minute should grow close to linearly with nodes until PostgreSQL's writes of the models become the limit; cached asks cost each node its own CPU plus one round trip for the key, one for the rate-limit counter and one for the dataset row, so they too should scale with nodes until the database's CPU is the limit.`,
    CLUSTER_SECTION_END,
  ];
  return lines.join('\n');
}

/** Puts the section into docs/benchmark-results.md in place of the one there (or at the end). */
export function spliceClusterSection(markdown: string, section: string): string {
  const a = markdown.indexOf(CLUSTER_SECTION_START);
  const z = markdown.indexOf(CLUSTER_SECTION_END);
  if (a >= 0 && z > a) return markdown.slice(0, a) + section + markdown.slice(z + CLUSTER_SECTION_END.length);
  return `${markdown.trimEnd()}\n\n${section}\n`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const started = performance.now();
  const log = (line: string) =>
    process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] cluster: ${line}\n`);
  const result = await runClusterBench(log);
  const section = formatClusterMarkdown(result);
  fs.writeFileSync(RESULTS_PATH, wrapMarkdown(spliceClusterSection(currentResults(), section)));
  console.log(section);
}
