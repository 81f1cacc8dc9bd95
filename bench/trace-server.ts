// Loaded into a service process by bench/scale-cold.ts (BENCH_TRACE=1: `node --import bench/trace-server.ts`) to
// see where a request's time goes on the request thread, per phase of the bench. On SIGUSR2 it appends one JSON
// line for the phase just ended to $BENCH_TRACE_FILE and starts the next phase afresh:
// - the event loop's delay (perf_hooks histogram, 2 ms resolution) and how many times a 5 ms timer fired more
//   than 20 / 50 / 100 / 250 ms late (stalls);
// - per request, grouped by size (small: a cached ask; large: a cold ask carrying its record): the time from the
//   client's due time (header x-bench-due, epoch ms) to Node's 'request' event (headers parsed), and from
//   'request' to the reply's 'finish';
// - BENCH_TRACE_HOOKS=1 also: the request thread's longest uninterrupted stretches of callbacks (async_hooks
//   before/after at the outermost level, promise reactions included, merged when less than 0.5 ms apart) and
//   what began each stretch. The hooks slow the thread; use them to find what is long, not for figures.
import diagnostics from 'node:diagnostics_channel';
import fs from 'node:fs';
import { createHook, executionAsyncResource } from 'node:async_hooks';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { isMainThread } from 'node:worker_threads';

// - the request thread's time on a core and waiting for one (/proc/thread-self/schedstat, Linux), in ms;
// - the request thread's SQLite COMMITs (with synchronous = FULL each waits for its fsync): how many, their time in
//   all and the longest, by the first statement each transaction wrote.
if (isMainThread) trace();

function trace(): void {
  const out = process.env.BENCH_TRACE_FILE ?? `trace-${process.pid}.jsonl`;
  const epochNow = () => performance.timeOrigin + performance.now();

  let eld = monitorEventLoopDelay({ resolution: 2 });
  eld.enable();
  const stalls = { over20: 0, over50: 0, over100: 0, over250: 0 };
  let lastTick = performance.now();
  setInterval(() => {
    const now = performance.now();
    const late = now - lastTick - 5;
    lastTick = now;
    if (late > 20) stalls.over20++;
    if (late > 50) stalls.over50++;
    if (late > 100) stalls.over100++;
    if (late > 250) stalls.over250++;
  }, 5).unref();

  interface Timed {
    kind: 'small' | 'large';
    dueToRequest?: number;
    requestToFinish: number;
  }
  let requests: Timed[] = [];
  diagnostics.subscribe('http.server.request.start', (msg) => {
    const { request, response } = msg as { request: IncomingMessage; response: ServerResponse };
    const at = performance.now();
    const dueHeader = Number(request.headers['x-bench-due']);
    const dueToRequest = Number.isFinite(dueHeader) ? epochNow() - dueHeader : undefined;
    const kind = Number(request.headers['content-length'] ?? 0) > 10_000 ? 'large' : 'small';
    response.once('finish', () => requests.push({ kind, dueToRequest, requestToFinish: performance.now() - at }));
  });

  interface Stretch {
    start: number;
    end: number;
    first: string;
    callbacks: number;
  }
  let stretches: Stretch[] = [];
  if (process.env.BENCH_TRACE_HOOKS) {
    let depth = 0;
    let cur: Stretch | null = null;
    let began = 0;
    createHook({
      before() {
        if (depth++ > 0) return;
        began = performance.now();
        if (cur && began - cur.end < 0.5) return;
        if (cur && cur.end - cur.start > 10) stretches.push(cur);
        const r = executionAsyncResource() as object | undefined;
        cur = { start: began, end: began, first: r?.constructor?.name ?? '?', callbacks: 0 };
      },
      after() {
        if (--depth > 0 || !cur) return;
        cur.end = performance.now();
        cur.callbacks++;
      },
    }).enable();
  }

  interface Commit {
    ms: number;
    first: string;
  }
  let commits: Commit[] = [];
  {
    const Database = createRequire(`${process.cwd()}/`)('better-sqlite3');
    const exec = Database.prototype.exec;
    const prepare = Database.prototype.prepare;
    let firstWrite: string | null = null;
    Database.prototype.prepare = function (this: unknown, sql: string) {
      const stmt = prepare.call(this, sql);
      const run = stmt.run;
      stmt.run = function (this: unknown, ...args: unknown[]) {
        firstWrite ??= sql.replace(/\s+/g, ' ').slice(0, 50);
        return run.apply(this, args);
      };
      return stmt;
    };
    Database.prototype.exec = function (this: unknown, sql: string) {
      if (sql !== 'COMMIT') {
        if (sql.startsWith('BEGIN')) firstWrite = null;
        return exec.call(this, sql);
      }
      const t0 = performance.now();
      try {
        return exec.call(this, sql);
      } finally {
        commits.push({ ms: performance.now() - t0, first: firstWrite ?? '(none)' });
      }
    };
  }

  /** The request thread's [ns on a core, ns waiting for a core] so far (Linux; zeros elsewhere). */
  const schedstat = (): [number, number] => {
    try {
      const [run, wait] = fs.readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ').map(Number);
      return [run, wait];
    } catch {
      return [0, 0];
    }
  };
  let sched0 = schedstat();

  const pct = (xs: number[], q: number) => {
    if (xs.length === 0) return null;
    const s = [...xs].sort((a, b) => a - b);
    return Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))] * 10) / 10;
  };
  const summary = (xs: number[]) => ({ n: xs.length, p50: pct(xs, 0.5), p99: pct(xs, 0.99), max: pct(xs, 1) });

  process.on('SIGUSR2', () => {
    const byKind = (kind: string) => {
      const rs = requests.filter((r) => r.kind === kind);
      return {
        dueToRequest: summary(rs.flatMap((r) => (r.dueToRequest === undefined ? [] : [r.dueToRequest]))),
        requestToFinish: summary(rs.map((r) => r.requestToFinish)),
      };
    };
    const long = [...stretches].sort((a, b) => b.end - b.start - (a.end - a.start));
    const firsts: Record<string, number> = {};
    for (const s of stretches) firsts[s.first] = (firsts[s.first] ?? 0) + 1;
    const byFirst: Record<string, { n: number; ms: number; max: number }> = {};
    for (const c of commits) {
      const b = (byFirst[c.first] ??= { n: 0, ms: 0, max: 0 });
      b.n++;
      b.ms = Math.round(b.ms + c.ms);
      b.max = Math.max(b.max, Math.round(c.ms));
    }
    const sched = schedstat();
    const line = {
      requestThreadMs: { onCore: Math.round((sched[0] - sched0[0]) / 1e6), waitingForCore: Math.round((sched[1] - sched0[1]) / 1e6) },
      commits: { ...summary(commits.map((c) => c.ms)), totalMs: Math.round(commits.reduce((a, c) => a + c.ms, 0)), byFirst },
      eventLoopDelayMs: { p50: eld.percentile(50) / 1e6, p99: eld.percentile(99) / 1e6, max: eld.max / 1e6 },
      stalls: { ...stalls },
      small: byKind('small'),
      large: byKind('large'),
      ...(process.env.BENCH_TRACE_HOOKS
        ? {
            stretchesOver10ms: stretches.length,
            longest: long.slice(0, 8).map((s) => ({ ms: Math.round(s.end - s.start), first: s.first, callbacks: s.callbacks })),
            begunBy: firsts,
          }
        : {}),
    };
    fs.appendFileSync(out, JSON.stringify(line) + '\n');
    eld.disable();
    eld = monitorEventLoopDelay({ resolution: 2 });
    eld.enable();
    for (const k of Object.keys(stalls) as (keyof typeof stalls)[]) stalls[k] = 0;
    requests = [];
    stretches = [];
    commits = [];
    sched0 = sched;
  });
}
