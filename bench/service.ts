// Service benchmarks (issues "the service" and "datasets"): cached ask latency for 1 and 10,000
// cases, loopback load at a fixed 200 requests per second and unthrottled, add-dataset throughput,
// a cold ask on a stored 100,000-row dataset, and the server's peak memory during a 100 MB upload.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import autocannon from 'autocannon';
import { createLiveKey } from '../host/runtime/keys.ts';
import { openSqliteStore } from '../host/store/index.ts';
import { repoRoot } from './datasets.ts';
import { pacedLoad, type PacedResult } from './paced-load.ts';

export interface ServiceBench {
  oneCase: { p50: number; p99: number; n: number };
  tenThousand: { median: number; runs: number[]; bytes: number; serverCpuMs: number };
  fixedRate: PacedResult & { runs: PacedResult[]; serverCpuMsPerRequest: number };
  unthrottled: { rps: number; p50: number; p99: number; connections: number };
  addDataset: { rowsPerSecond: number; pieces: number; rowsPerPiece: number };
  coldAsk100k: { ms: number; status: number; state: string };
  upload100MB: { bytes: number; ms: number; rssBeforeMB: number; peakRssMB: number; deltaMB: number };
  events1M: { rows: number; cases: number; ms: number; state: string; peakRssMB: number; rssBeforeMB: number };
}

const tmp = (p: string) => fs.mkdtempSync(path.join(os.tmpdir(), p));
const pct = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

/** A seeded table: id, 8 numeric and 2 categorical columns, a yes/no outcome with a planted signal. */
export function benchRows(from: number, to: number): Array<Record<string, string | number>> {
  const out: Array<Record<string, string | number>> = [];
  for (let i = from; i < to; i++) {
    let h = (i + 1) * 2654435761;
    const next = () => ((h = ((h ^ (h >>> 13)) * 1274126177) >>> 0) % 1000) / 10;
    const row: Record<string, string | number> = { id: `c${i}` };
    let z = -1.2;
    for (let j = 0; j < 8; j++) {
      const v = next();
      row[`x${j}`] = v;
      if (j < 3) z += (v - 50) / 35;
    }
    row.plan = ['basic', 'pro', 'team'][Math.floor(next()) % 3];
    row.region = ['n', 's', 'e', 'w'][Math.floor(next()) % 4];
    const p = 1 / (1 + Math.exp(-z));
    row.y = next() / 100 < p ? 'yes' : 'no';
    out.push(row);
  }
  return out;
}

export async function postJson(url: string, body: unknown, key: string) {
  const t0 = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  return { status: res.status, body: json as any, ms: performance.now() - t0 };
}

/** POST a JSON body and read the reply's bytes without parsing them (time to the last byte). */
async function postBytes(url: string, body: unknown, key: string) {
  const t0 = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  const buf = await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`ask ${res.status}: ${Buffer.from(buf).toString().slice(0, 300)}`);
  return { status: res.status, bytes: buf.byteLength, ms: performance.now() - t0 };
}

function load(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => autocannon(opts, (err, res) => (err ? reject(err) : resolve(res))));
}

/** CPU time (user + system, ms) the process `pid` has used so far. */
function cpuMsOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
  return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
}

/**
 * The REST measurements against a server in its own process (so the load generator and the client
 * parsing replies never share the server's event loop), with the server's CPU per request.
 */
export async function runRestBench(log: (s: string) => void): Promise<Omit<ServiceBench, 'upload100MB' | 'events1M'>> {
  const server = await childServer({ PENDING_WAIT_MS: '600000' }); // logs at info: one access-log line per request, as in production
  try {
    const { url, key } = server;
    // add-dataset throughput: 10 pieces of 10,000 rows
    const pieces = 10;
    const all = Array.from({ length: pieces }, (_, i) => benchRows(i * 10_000, (i + 1) * 10_000));
    let id = '';
    const t0 = performance.now();
    for (const rows of all) {
      const r = await postJson(`${url}/v1/add-dataset`, id ? { dataset_id: id, rows } : { rows }, key);
      if (r.status !== 200) throw new Error(`add-dataset ${r.status} ${JSON.stringify(r.body)}`);
      id = r.body.dataset_id;
    }
    const addMs = performance.now() - t0;
    log(`add-dataset: ${(100_000 / (addMs / 1000)).toFixed(0)} rows/s`);

    // cold ask on the stored 100,000-row dataset, end to end
    const ask = (ids: string[]) => ({
      data: { dataset_id: id },
      entity_column: 'id',
      subject_kind: 'other',
      questions: { q: { type: 'yesno', outcome_column: 'y' } },
      cases: { ids },
    });
    const cold = await postJson(`${url}/v1/ask`, ask(['c1']), key);
    log(`cold ask on 100k stored rows: ${cold.ms.toFixed(0)} ms (${cold.status} ${cold.body.answers?.q?.state})`);

    // cached asks, one at a time: 1 case, and 10,000 cases (request sent to last byte received)
    const one = ask(['c1']);
    for (let i = 0; i < 50; i++) await postBytes(`${url}/v1/ask`, one, key);
    const lat: number[] = [];
    for (let i = 0; i < 300; i++) lat.push((await postBytes(`${url}/v1/ask`, one, key)).ms);
    const ids = Array.from({ length: 10_000 }, (_, i) => `c${i * 7}`);
    const big = ask(ids);
    for (let i = 0; i < 3; i++) await postBytes(`${url}/v1/ask`, big, key);
    const bigRuns: number[] = [];
    const bigCpu0 = cpuMsOf(server.pid);
    let bigBytes = 0;
    for (let i = 0; i < 7; i++) {
      const r = await postBytes(`${url}/v1/ask`, big, key);
      bigRuns.push(r.ms);
      bigBytes = r.bytes;
    }
    const bigCpuMs = (cpuMsOf(server.pid) - bigCpu0) / bigRuns.length;
    log(
      `cached ask: 1 case p50 ${pct(lat, 0.5).toFixed(2)} ms, 10,000 cases median ${pct(bigRuns, 0.5).toFixed(0)} ms (${(bigBytes / 1e6).toFixed(1)} MB, server CPU ${bigCpuMs.toFixed(0)} ms each)`,
    );

    // load on loopback: 1-case cached asks paced at exactly 200 per second, then autocannon unthrottled
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
    // three runs: on a shared machine one 15 s sample's p99 swings with the neighbours; report each and the median
    const pacedRuns: PacedResult[] = [];
    const cpu0 = cpuMsOf(server.pid);
    for (let i = 0; i < 3; i++)
      pacedRuns.push(await pacedLoad({ url: `${url}/v1/ask`, headers, body: JSON.stringify(one), rate: 200, seconds: 15 }));
    const cpuPerRequest = (cpuMsOf(server.pid) - cpu0) / pacedRuns.reduce((n, r) => n + r.sent, 0);
    const median = (f: (r: PacedResult) => number) => pct(pacedRuns.map(f), 0.5);
    const paced: PacedResult = {
      ...pacedRuns[0],
      sent: pacedRuns.reduce((n, r) => n + r.sent, 0),
      ok: pacedRuns.reduce((n, r) => n + r.ok, 0),
      failed: pacedRuns.reduce((n, r) => n + r.failed, 0),
      p50: median((r) => r.p50),
      p90: median((r) => r.p90),
      p99: median((r) => r.p99),
      max: Math.max(...pacedRuns.map((r) => r.max)),
    };
    const free = await load({ url: `${url}/v1/ask`, method: 'POST', headers, body: JSON.stringify(one), connections: 16, duration: 10 });
    log(
      `load: paced 200 rps p50 ${paced.p50.toFixed(2)} ms p99 ${paced.p99.toFixed(2)} ms (server CPU ${cpuPerRequest.toFixed(2)} ms/request); unthrottled ${free.requests.average.toFixed(0)} rps`,
    );
    return {
      oneCase: { p50: pct(lat, 0.5), p99: pct(lat, 0.99), n: lat.length },
      tenThousand: { median: pct(bigRuns, 0.5), runs: bigRuns, bytes: bigBytes, serverCpuMs: bigCpuMs },
      fixedRate: { ...paced, runs: pacedRuns, serverCpuMsPerRequest: cpuPerRequest },
      unthrottled: { rps: free.requests.average, p50: free.latency.p50, p99: free.latency.p99, connections: 16 },
      addDataset: { rowsPerSecond: 100_000 / (addMs / 1000), pieces, rowsPerPiece: 10_000 },
      coldAsk100k: { ms: cold.ms, status: cold.status, state: cold.body.answers?.q?.state ?? String(cold.body.code) },
    };
  } finally {
    server.stop();
  }
}

export interface ChildServer {
  url: string;
  pid: number;
  key: string;
  /** Its DATA_DIR (SQLite store and uploads). */
  dir: string;
  hwm(): number; // peak RSS since start or the last resetPeak(), MB
  /** Resets the kernel's peak-RSS mark to the current RSS (Linux: clear_refs 5). */
  resetPeak(): void;
  rss(): number; // RSS now, MB
  stop(): void;
  /** SIGTERM, then wait for the process to exit (the store closed cleanly, so its DATA_DIR can be reused). */
  stopGracefully(): Promise<void>;
}

/**
 * The service in its own process (so its memory is measured alone) with a live key: a fresh DATA_DIR, or
 * `reuse`'s (a cold start on a store another server process filled).
 */
export async function childServer(extraEnv: Record<string, string> = {}, reuse?: { dir: string; key: string }): Promise<ChildServer> {
  const dir = reuse?.dir ?? tmp('oq-bench-child-');
  let key = reuse?.key ?? '';
  if (!reuse) {
    const store = await openSqliteStore(dir);
    key = (await createLiveKey(store, { workspaceName: 'bench', now: Date.now() })).key;
    await store.close();
  }
  const child = spawn(process.execPath, ['--import', 'tsx', 'host/main.ts'], {
    cwd: repoRoot,
    env: { ...process.env, PORT: '0', DATA_DIR: dir, LOG_LEVEL: 'info', BASE_URL: '', RATE_LIMIT_PER_MINUTE: '1000000', ...extraEnv },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).on('line', (l) => {
      try {
        const rec = JSON.parse(l);
        if (rec.msg === 'listening') resolve(rec.url);
      } catch {
        /* not a log line */
      }
    });
    child.once('exit', (c) => reject(new Error(`server exited ${c}`)));
  });
  const status = (field: string) =>
    Number(new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024;
  const resetPeak = () => fs.writeFileSync(`/proc/${child.pid}/clear_refs`, '5');
  return {
    url,
    key,
    dir,
    pid: child.pid!,
    hwm: () => status('VmHWM'),
    rss: () => status('VmRSS'),
    resetPeak,
    stop: () => void child.kill('SIGKILL'),
    stopGracefully: async () => {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Streams `lines` (after a header) as a PUT body to a fresh upload URL; returns the dataset id. */
export async function uploadCsv(
  server: ChildServer,
  header: string,
  line: (i: number) => string | null,
): Promise<{ id: string; bytes: number; ms: number; status: number }> {
  const made = await postJson(`${server.url}/v1/add-dataset`, { upload: true, filename: 'bench.csv' }, server.key);
  let size = 0;
  let i = 0;
  let done = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(ctrl) {
      if (done) return ctrl.close();
      let chunk = size === 0 ? header : '';
      while (chunk.length < 1 << 20) {
        const l = line(i++);
        if (l === null) {
          done = true;
          break;
        }
        chunk += l;
      }
      size += chunk.length;
      ctrl.enqueue(new TextEncoder().encode(chunk));
    },
  });
  const t0 = performance.now();
  const res = await fetch(made.body.upload_url, {
    method: 'PUT',
    body: stream,
    headers: { 'content-type': 'text/csv' },
    duplex: 'half',
  } as RequestInit);
  await res.text();
  return { id: made.body.dataset_id, bytes: size, ms: performance.now() - t0, status: res.status };
}

/** issue "record shapes": an events ask over 1,000,000 event rows of 20,000 customers, in its own process. */
export async function eventsShapeBench(
  log: (s: string) => void,
): Promise<{ rows: number; cases: number; ms: number; state: string; peakRssMB: number; rssBeforeMB: number }> {
  const server = await childServer({ PENDING_WAIT_MS: '600000' });
  try {
    const customers = 20_000;
    const rows = 1_000_000;
    const start = Date.UTC(2024, 0, 1);
    // each customer: 50 events over the year; a third slow down and stop before the last 90 days
    const line = (i: number): string | null => {
      if (i >= rows) return null;
      const c = i % customers;
      const k = Math.floor(i / customers); // 0..49
      const leaving = c % 3 === 0;
      const span = leaving ? 240 + (c % 60) : 366;
      const day = Math.floor(((k + 0.5) / 50) * span + ((c * 7 + k * 13) % 5));
      const date = new Date(start + Math.min(day, 365) * 86_400_000).toISOString().slice(0, 10);
      const ev = leaving && k > 40 ? (k % 2 ? 'ticket' : 'refund') : ['visit', 'visit', 'purchase', 'visit', 'ticket'][(c + k) % 5];
      const amount = ev === 'purchase' ? String(10 + ((c * 31 + k) % 290)) : ev === 'refund' ? String(10 + (k % 140)) : '';
      return `c${c},${date},${ev},${amount}\n`;
    };
    const up = await uploadCsv(server, 'customer_id,date,event,amount\n', line);
    if (up.status !== 200) throw new Error(`upload failed ${up.status}`);
    const before = server.rss();
    server.resetPeak(); // the peak of this ask, not of the upload before it
    const t0 = performance.now();
    const r = await postJson(
      `${server.url}/v1/ask`,
      {
        data: { dataset_id: up.id },
        entity_column: 'customer_id',
        time_column: 'date',
        shape: { kind: 'events', event_column: 'event', value_columns: ['amount'], label: { lapsed: true }, horizon_days: 90 },
        subject_kind: 'org',
        questions: { q: { type: 'rank', outcome_column: 'lapsed_90d', top_k: 100 } },
      },
      server.key,
    );
    const ms = performance.now() - t0;
    const state = r.body.answers?.q?.state ?? `${r.status} ${r.body.code}`;
    log(`events shape, 1,000,000 rows / 20,000 cases: ${ms.toFixed(0)} ms (${state}), peak RSS ${server.hwm().toFixed(0)} MB`);
    return { rows, cases: customers, ms, state, peakRssMB: server.hwm(), rssBeforeMB: before };
  } finally {
    server.stop();
  }
}

/** Peak RSS (VmHWM) of a separate server process across a 100 MB presigned upload. */
async function uploadPeak(log: (s: string) => void): Promise<ServiceBench['upload100MB']> {
  const server = await childServer();
  const url = server.url;
  const key = server.key;
  const hwm = server.hwm;
  const rss = server.rss;
  const child = { kill: () => server.stop() };
  try {
    const made = await postJson(`${url}/v1/add-dataset`, { upload: true, filename: 'big.csv' }, key);
    const header = 'id,a,b,c,d,y\n';
    const line = (i: number) => `u${i},${i % 97},${(i * 7) % 101},${(i * 13) % 89},${i % 5},${i % 3 === 0 ? 'yes' : 'no'}\n`;
    const target = 99_000_000; // just under the 100,000,000-byte default upload cap
    let size = 0;
    let i = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(ctrl) {
        if (size >= target) return ctrl.close();
        let chunk = size === 0 ? header : '';
        while (chunk.length < 1 << 20 && size + chunk.length < target) chunk += line(i++);
        size += chunk.length;
        ctrl.enqueue(new TextEncoder().encode(chunk));
      },
    });
    const before = rss();
    server.resetPeak(); // the peak of this upload, not of the start-up before it
    const t0 = performance.now();
    const res = await fetch(made.body.upload_url, {
      method: 'PUT',
      body: stream,
      headers: { 'content-type': 'text/csv' },
      duplex: 'half',
    } as RequestInit);
    await res.text();
    const ms = performance.now() - t0;
    const peak = hwm();
    log(
      `upload ${(size / 1e6).toFixed(0)} MB: HTTP ${res.status} in ${ms.toFixed(0)} ms, server RSS ${before.toFixed(0)} -> peak ${peak.toFixed(0)} MB`,
    );
    return { bytes: size, ms, rssBeforeMB: before, peakRssMB: peak, deltaMB: peak - before };
  } finally {
    child.kill();
  }
}

export async function runServiceBench(log: (s: string) => void = (s) => process.stderr.write(s + '\n')): Promise<ServiceBench> {
  const main = await runRestBench(log);
  const upload100MB = await uploadPeak(log);
  const events1M = await eventsShapeBench(log);
  return { ...main, upload100MB, events1M };
}

export function formatServiceMarkdown(b: ServiceBench): string {
  const ok = (good: boolean) => (good ? 'met' : '**missed**');
  return [
    '## Service (REST on loopback, SQLite)',
    '',
    "The server runs in its own process (`npm start`'s code, logging at info: one access-log line per request); the clients run in the benchmark process. Latencies are from sending the request to the last byte of the reply (the client does not parse it).",
    '',
    '| measure | result | target |',
    '|---|---|---|',
    `| cached ask, 1 case by id (sequential, ${b.oneCase.n} requests) | p50 ${b.oneCase.p50.toFixed(2)} ms, p99 ${b.oneCase.p99.toFixed(2)} ms | |`,
    `| cached 1-case asks paced at exactly ${b.fixedRate.rate} req/s, 3 runs of ${b.fixedRate.seconds} s (open loop, bench/paced-load.ts; ${b.fixedRate.sent} sent, ${b.fixedRate.failed} failed; server CPU ${b.fixedRate.serverCpuMsPerRequest.toFixed(2)} ms per request) | median of the runs: p50 ${b.fixedRate.p50.toFixed(2)} ms, p90 ${b.fixedRate.p90.toFixed(2)} ms, p99 ${b.fixedRate.p99.toFixed(2)} ms (runs p50/p99: ${b.fixedRate.runs.map((r) => `${r.p50.toFixed(1)}/${r.p99.toFixed(1)}`).join(', ')} ms; max ${b.fixedRate.max.toFixed(0)} ms) | p50 < 5 ms ${ok(b.fixedRate.p50 < 5)}, p99 < 20 ms ${ok(b.fixedRate.p99 < 20)} |`,
    `| unthrottled 1-case cached asks (autocannon, ${b.unthrottled.connections} connections, 10 s) | ${b.unthrottled.rps.toFixed(0)} req/s, p50 ${b.unthrottled.p50} ms, p99 ${b.unthrottled.p99} ms | |`,
    `| cached ask, 10,000 cases by ids, answered and signed (${(b.tenThousand.bytes / 1e6).toFixed(1)} MB reply; server CPU ${b.tenThousand.serverCpuMs.toFixed(0)} ms per ask) | median ${b.tenThousand.median.toFixed(0)} ms (runs ${b.tenThousand.runs.map((x) => x.toFixed(0)).join(', ')}) | < 300 ms ${ok(b.tenThousand.median < 300)} |`,
    `| add-dataset, ${b.addDataset.pieces} pieces of ${b.addDataset.rowsPerPiece.toLocaleString('en')} rows | ${b.addDataset.rowsPerSecond.toFixed(0)} rows/s | |`,
    `| cold ask on a stored 100,000-row dataset (11 columns), request to answer | ${b.coldAsk100k.ms.toFixed(0)} ms (${b.coldAsk100k.state}) | |`,
    `| events shape: ${b.events1M.rows.toLocaleString('en')} event rows of ${b.events1M.cases.toLocaleString('en')} customers (stored by upload), rank, request to answer, separate server process | ${(b.events1M.ms / 1000).toFixed(1)} s (${b.events1M.state}); peak RSS ${b.events1M.peakRssMB.toFixed(0)} MB | < 10 s ${ok(b.events1M.ms < 10_000)}, < 2 GB ${ok(b.events1M.peakRssMB < 2048)} |`,
    `| ~100 MB presigned upload (99 MB, under the 100,000,000-byte cap), separate server process | ${(b.upload100MB.ms / 1000).toFixed(1)} s; RSS ${b.upload100MB.rssBeforeMB.toFixed(0)} MB before, peak ${b.upload100MB.peakRssMB.toFixed(0)} MB (+${b.upload100MB.deltaMB.toFixed(0)} MB) | |`,
    '',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const b = await runServiceBench();
  process.stdout.write(formatServiceMarkdown(b) + '\n');
}
