// Cold asks on one stored record, alternated between checkouts (a before/after of the ask's data path in
// one run, bench/scale.ts's realistic record). Two steps, so the upload is paid once:
//   npx tsx bench/scale-cold.ts store ROWS [friendly|realistic] DIR     stores the record in a fresh store at DIR
//   npx tsx bench/scale-cold.ts ask DIR RUNS ROOT [ROOT...]             per run and root: a copy of DIR, a fresh
//                                                                       service process of that checkout, its first ask
//   npx tsx bench/scale-cold.ts inline RUNS COUNT ROOT [ROOT...]        per run and root: COUNT cold inline asks of
//                                                                       2,000 rows, then COUNT cached ones
//   npx tsx bench/scale-cold.ts beside RUNS SECONDS ROOT [ROOT...]      per run and root: cached 1-case asks paced
//                                                                       at 200/s alone, then beside cold asks of
//                                                                       new 2,000-row inline CSVs paced at 10/s
//                                                                       (BESIDE_RATES=CACHED,COLD: other rates)
// Each ask reports the time to the answer and the process's peak RSS (VmHWM). BENCH_CPU_PROF=DIR writes a
// CPU profile per process (and per thread) into DIR. BENCH_ENTRY=dist runs each checkout's built service
// (dist/main.js, what `npm start` runs; `npm run build` first) instead of its sources through tsx.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { benchRows, childServer, postJson, uploadCsv } from './service.ts';
import { pacedLoad, type PacedResult } from './paced-load.ts';
import { createLiveKey } from '../host/runtime/keys.ts';
import { openSqliteStore } from '../host/store/index.ts';
import { SCALE_HEADER, rowOf, scaleCsvLine, type ScaleKind } from './scale.ts';

interface Stored {
  key: string;
  id: string;
  rows: number;
  kind: ScaleKind;
}

async function store(rows: number, kind: ScaleKind, dir: string): Promise<void> {
  const loader = await childServer();
  try {
    const up = await uploadCsv(loader, `${SCALE_HEADER.join(',')}\n`, (i) => (i < rows ? scaleCsvLine(rowOf(kind, i), kind) : null));
    if (up.status !== 200) throw new Error(`upload failed: HTTP ${up.status}`);
    fs.cpSync(loader.dir, dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'bench-record.json'), JSON.stringify({ key: loader.key, id: up.id, rows, kind } satisfies Stored));
    process.stderr.write(`stored ${rows} ${kind} rows (${(up.bytes / 1e6).toFixed(1)} MB) in ${dir}\n`);
  } finally {
    await loader.stopGracefully();
    fs.rmSync(loader.dir, { recursive: true, force: true });
  }
}

/** A service process of the checkout at `root` on the store at `dir` (BENCH_CPU_PROF: with a CPU profile). */
async function serve(root: string, dir: string) {
  const prof = process.env.BENCH_CPU_PROF;
  // BENCH_TRACE=1: this checkout's bench/trace-server.ts in the service process, whichever checkout it runs
  const trace = process.env.BENCH_TRACE ? path.join(dir, 'trace.jsonl') : undefined;
  const tracer = trace ? ['--import', new URL('./trace-server.ts', import.meta.url).pathname] : [];
  // the tracer is TypeScript, so a traced built service still loads tsx
  const entry =
    process.env.BENCH_ENTRY === 'dist'
      ? [...(trace ? ['--import', 'tsx'] : []), ...tracer, 'dist/main.js']
      : ['--import', 'tsx', ...tracer, 'host/main.ts'];
  const args = [...(prof ? ['--cpu-prof', '--cpu-prof-dir', prof] : []), ...entry];
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: {
      ...process.env,
      PORT: '0',
      DATA_DIR: dir,
      LOG_LEVEL: 'info',
      BASE_URL: '',
      RATE_LIMIT_PER_MINUTE: '1000000',
      ...(trace ? { BENCH_TRACE_FILE: trace } : {}),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    child.kill(prof ? 'SIGINT' : 'SIGKILL');
    await exited;
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      readline.createInterface({ input: child.stdout! }).on('line', (l) => {
        try {
          const m = JSON.parse(l);
          if (m.msg === 'listening') resolve(m.url);
        } catch {
          /* not a log line */
        }
      });
      child.once('exit', (c) => reject(new Error(`server exited ${c}`)));
    });
    /** BENCH_TRACE: the service's trace of the phase that just ended (bench/trace-server.ts), else ''. */
    const phaseTrace = async (): Promise<string> => {
      if (!trace) return '';
      const before = fs.existsSync(trace) ? fs.readFileSync(trace, 'utf8').length : 0;
      child.kill('SIGUSR2');
      for (let i = 0; i < 100 && (fs.existsSync(trace) ? fs.readFileSync(trace, 'utf8').length : 0) === before; i++)
        await new Promise((res) => setTimeout(res, 20));
      return fs.readFileSync(trace, 'utf8').slice(before).trim();
    };
    return { url, child, stop, phaseTrace };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** CPU seconds of the process's main thread (the request thread) so far, from /proc. */
function mainThreadCpuS(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 10 ms
}

/** CPU seconds of the whole process (every thread) so far, from /proc. */
function processCpuS(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** A fresh service process of the checkout at `root` on a copy of the store; its first request is the ask. */
async function coldAsk(
  root: string,
  dir: string,
  rec: Stored,
): Promise<{ ms: number; cpuS: number; peakMb: number; state: string; chance: unknown }> {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'oq-cold-'));
  fs.cpSync(dir, copy, { recursive: true });
  const { url, child, stop } = await serve(root, copy);
  try {
    const body = {
      data: { dataset_id: rec.id },
      entity_column: 'id',
      subject_kind: 'other',
      questions: { q: { type: 'yesno', outcome_column: 'y' } },
      cases: { ids: ['c1'] },
    };
    const cpu0 = processCpuS(child.pid!);
    const t0 = performance.now();
    // BENCH_RSS_TRACE=1: the process's RSS every 500 ms of the ask, to stderr
    const trace = process.env.BENCH_RSS_TRACE
      ? setInterval(() => {
          const rss = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024;
          process.stderr.write(`${((performance.now() - t0) / 1000).toFixed(1)} s\t${rss.toFixed(0)} MB\n`);
        }, 500)
      : undefined;
    let r = await postJson(`${url}/v1/ask`, body, rec.key);
    while (r.status === 202 && r.body?.status === 'pending') {
      await new Promise((res) => setTimeout(res, 100));
      r = await postJson(`${url}/v1/poll`, { task_id: r.body.task_id }, rec.key);
    }
    const ms = performance.now() - t0;
    const cpuS = processCpuS(child.pid!) - cpu0;
    clearInterval(trace);
    const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const peakMb = Number(/VmHWM:\s+(\d+)/.exec(status)![1]) / 1024;
    const a = r.body?.answers?.q;
    return { ms, cpuS, peakMb, state: a?.state ?? `${r.status} ${r.body?.code ?? ''}`, chance: a?.cases?.[0]?.p };
  } finally {
    await stop();
    fs.rmSync(copy, { recursive: true, force: true });
  }
}

/**
 * Cold inline asks, one after another, each a new 2,000-row record sent as rows (bench/service.ts
 * benchRows, 12 columns): the request thread's CPU per ask, and each ask's time to its first reply and to
 * its answer. Then as many cached asks of the last record, for the same figures.
 */
async function inlineAsks(root: string, count: number): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oq-inline-'));
  const store = await openSqliteStore(dir);
  const { key } = await createLiveKey(store, { workspaceName: 'bench', now: Date.now() });
  await store.close();
  const { url, child, stop } = await serve(root, dir);
  const ask = (k: number, rows: number) => ({
    data: { rows: benchRows(k * rows, (k + 1) * rows) },
    entity_column: 'id',
    subject_kind: 'other',
    questions: { q: { type: 'yesno', outcome_column: 'y' } },
    cases: { ids: [`c${k * rows}`] },
  });
  try {
    await postJson(`${url}/v1/ask`, ask(count + 1, 500), key); // warm: threads started, code compiled
    const cold: number[] = [];
    const coldFirst: number[] = [];
    const cpu0 = mainThreadCpuS(child.pid!);
    for (let k = 0; k < count; k++) {
      const t0 = performance.now();
      let r = await postJson(`${url}/v1/ask`, ask(k, 2_000), key);
      coldFirst.push(performance.now() - t0);
      while (r.status === 202 && r.body?.status === 'pending') {
        await new Promise((res) => setTimeout(res, 50));
        r = await postJson(`${url}/v1/poll`, { task_id: r.body.task_id }, key);
      }
      if (r.status !== 200) throw new Error(`cold ask: HTTP ${r.status} ${r.body?.code}`);
      cold.push(performance.now() - t0);
    }
    const cpuCold = mainThreadCpuS(child.pid!) - cpu0;
    const cached: number[] = [];
    const last = ask(count - 1, 2_000);
    const cpu1 = mainThreadCpuS(child.pid!);
    for (let k = 0; k < count; k++) {
      const r = await postJson(`${url}/v1/ask`, last, key);
      if (r.status !== 200) throw new Error(`cached ask: HTTP ${r.status}`);
      cached.push(r.ms);
    }
    const cpuCached = mainThreadCpuS(child.pid!) - cpu1;
    const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
    const f = (xs: number[]) => `p50 ${q(xs, 0.5).toFixed(1)} ms, p99 ${q(xs, 0.99).toFixed(1)} ms`;
    return [
      `cold: request thread ${((cpuCold / count) * 1000).toFixed(1)} ms CPU per ask; first reply ${f(coldFirst)}; answer ${f(cold)}`,
      `cached: request thread ${((cpuCached / count) * 1000).toFixed(1)} ms CPU per ask; reply ${f(cached)}`,
    ].join('\n');
  } finally {
    await stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** 2,000 rows of bench/service.ts's table as CSV text, rows from..from+2000. */
function inlineCsv(from: number): string {
  const rows = benchRows(from, from + 2_000);
  const cols = Object.keys(rows[0]);
  return [cols.join(','), ...rows.map((r) => cols.map((c) => r[c]).join(','))].join('\n') + '\n';
}

/**
 * Cached asks beside cold fits, open loop (bench/paced-load.ts: each request timed from the moment it was
 * due, so a stalled request thread cannot hide its queue). A stored 2,000-row dataset is asked once, then
 * 1-case asks of it are paced at 200 per second for SECONDS alone, then again for SECONDS beside cold asks
 * paced at 10 per second, each on a new 2,000-row record sent inline as CSV.
 */
async function besideColdFits(root: string, seconds: number): Promise<string> {
  // BESIDE_RATES=CACHED,COLD per second (default 200,10): lower rates show whether a run measures the code or the machine
  const [cachedRate, coldRate] = (process.env.BESIDE_RATES ?? '200,10').split(',').map(Number);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oq-beside-'));
  const store = await openSqliteStore(dir);
  const { key } = await createLiveKey(store, { workspaceName: 'bench', now: Date.now() });
  await store.close();
  const { url, child, stop, phaseTrace } = await serve(root, dir);
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  const question = { entity_column: 'id', subject_kind: 'other', questions: { q: { type: 'yesno', outcome_column: 'y' } } };
  try {
    const added = await postJson(`${url}/v1/add-dataset`, { rows: benchRows(0, 2_000) }, key);
    if (added.status !== 200) throw new Error(`add-dataset: HTTP ${added.status}`);
    const cachedBody = JSON.stringify({ ...question, data: { dataset_id: added.body.dataset_id }, cases: { ids: ['c1'] } });
    let r = await postJson(`${url}/v1/ask`, JSON.parse(cachedBody), key);
    while (r.status === 202 && r.body?.status === 'pending') {
      await new Promise((res) => setTimeout(res, 100));
      r = await postJson(`${url}/v1/poll`, { task_id: r.body.task_id }, key);
    }
    if (r.status !== 200) throw new Error(`first ask: HTTP ${r.status} ${r.body?.code}`);
    const cached = () => pacedLoad({ url: `${url}/v1/ask`, headers, body: cachedBody, rate: cachedRate, seconds });
    await pacedLoad({ url: `${url}/v1/ask`, headers, body: cachedBody, rate: 200, seconds: 2 }); // warm
    // The client shares the machine's cores: its own event-loop delay is reported beside each phase, since an open-loop
    // latency includes any lag in sending.
    const lag = monitorEventLoopDelay({ resolution: 5 });
    const clientLag = () => {
      const out = `client event-loop delay p99 ${(lag.percentile(99) / 1e6).toFixed(1)} ms, max ${(lag.max / 1e6).toFixed(0)} ms`;
      lag.reset();
      return out;
    };
    lag.enable();
    await phaseTrace(); // the warm-up's trace, dropped
    const cpu0 = mainThreadCpuS(child.pid!);
    const alone = await cached();
    const cpu1 = mainThreadCpuS(child.pid!);
    const lagAlone = clientLag();
    const traceAlone = await phaseTrace();
    const base = 1_000_000 + Math.floor(Math.random() * 1e6) * 2_000; // new records, never cached before
    // made before the phase: making 2,000-row bodies stalled the client's loop for up to 0.2 s under the cached asks
    const coldBodies = Array.from({ length: Math.round(coldRate * seconds) }, (_, i) =>
      JSON.stringify({ ...question, data: { csv: inlineCsv(base + i * 2_000) }, cases: { ids: [`c${base + i * 2_000}`] } }),
    );
    const [beside, cold] = await Promise.all([
      cached(),
      pacedLoad({ url: `${url}/v1/ask`, headers, body: '', bodyOf: (i) => coldBodies[i], rate: coldRate, seconds, sockets: 1000 }),
    ]);
    const cpu2 = mainThreadCpuS(child.pid!);
    const lagBeside = clientLag();
    const traceBeside = await phaseTrace();
    lag.disable();
    const f = (x: PacedResult) =>
      `p50 ${x.p50.toFixed(1)} ms, p99 ${x.p99.toFixed(1)} ms, max ${x.max.toFixed(0)} ms (${x.sent} sent: ${JSON.stringify(x.statuses)})`;
    const perSecond = (cpu: number) => `${((cpu / seconds) * 100).toFixed(0)}% of a core`;
    return [
      `cached alone:       ${f(alone)}; request thread ${perSecond(cpu1 - cpu0)}; ${lagAlone}`,
      `cached beside cold: ${f(beside)}; request thread ${perSecond(cpu2 - cpu1)}; ${lagBeside}`,
      `cold (first reply): ${f(cold)}`,
      ...(traceAlone ? [`service trace alone:  ${traceAlone}`, `service trace beside: ${traceBeside}`] : []),
    ].join('\n');
  } finally {
    await stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const [cmd, ...rest] = process.argv.slice(2);
if (cmd === 'store') {
  const [rows, kind, dir] = rest;
  await store(Number(rows), kind as ScaleKind, path.resolve(dir));
} else if (cmd === 'ask') {
  const [dir, runs, ...roots] = rest;
  const rec = JSON.parse(fs.readFileSync(path.join(dir, 'bench-record.json'), 'utf8')) as Stored;
  for (let k = 0; k < Number(runs); k++) {
    for (const root of roots) {
      const r = await coldAsk(path.resolve(root), path.resolve(dir), rec);
      console.log(
        `${root}\t${rec.rows} ${rec.kind}\t${(r.ms / 1000).toFixed(2)} s\tCPU ${r.cpuS.toFixed(1)} s\t${r.peakMb.toFixed(0)} MB\t${r.state}\t${JSON.stringify(r.chance)}`,
      );
    }
  }
} else if (cmd === 'inline') {
  const [runs, count, ...roots] = rest;
  for (let k = 0; k < Number(runs); k++)
    for (const root of roots) console.log(`${root}\n${await inlineAsks(path.resolve(root), Number(count))}`);
} else if (cmd === 'beside') {
  const [runs, seconds, ...roots] = rest;
  for (let k = 0; k < Number(runs); k++)
    for (const root of roots) console.log(`${root}\n${await besideColdFits(path.resolve(root), Number(seconds))}`);
} else {
  throw new Error('usage: tsx bench/scale-cold.ts store ROWS KIND DIR | ask DIR RUNS ROOT [ROOT...] | inline ... | beside ...');
}
