// Overload soak: cold asks of inline 10,000 x 30 rows sent at a steady rate well above what the fit
// threads can take, for minutes, to a service in its own process with the default settings, beside a steady
// probe of cached 1-case asks. Every request must be answered 200, 202, or 503/429 with Retry-After; the
// process's peak RSS must stay under the documented bound; it must be alive after, and every ask it accepted
// (202) must finish. Run alone: npx tsx bench/overload.ts [seconds] [cold asks per second]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { createLiveKey } from '../host/runtime/keys.ts';
import { openSqliteStore } from '../host/store/index.ts';
import { configFromEnv, memoryBoundMb } from '../host/config.ts';
import { childServer, postJson, type ChildServer } from './service.ts';
import { pacedLoad, type PacedResult } from './paced-load.ts';

export interface OverloadOptions {
  seconds: number;
  /** Cold asks per second, over all workspaces. */
  rate: number;
  workspaces: number;
  rows: number;
  columns: number;
  /** Cached 1-case asks per second sent meanwhile (0: none). */
  probeRate: number;
  log?: (line: string) => void;
}

export interface OverloadBench {
  options: Omit<OverloadOptions, 'log'>;
  bodyMb: number;
  sent: number;
  /** Replies by HTTP status ('0' for a request that got no reply at all). */
  statuses: Record<string, number>;
  /** 429 and 503 replies that carried Retry-After and retry_after_ms. */
  refusedWithRetryAfter: number;
  refused: number;
  /** Problem codes of the refusals. */
  codes: Record<string, number>;
  /** Send to reply, ms, over every cold ask. */
  replyP50: number;
  replyP99: number;
  peakRssMb: number;
  rssAfterStartMb: number;
  boundMb: number;
  alive: boolean;
  accepted: number;
  acceptedFinished: number;
  /** After the last ask was sent, until every accepted ask was finished. */
  drainSeconds: number;
  probe: PacedResult | null;
  loadBefore: number[];
  loadAfter: number[];
}

/** The cold ask's JSON with one placeholder cell, so each request is a new record at the cost of one string copy. */
function template(rows: number, columns: number): string {
  let s = 4242;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const data = Array.from({ length: rows }, (_, i) => {
    const row: Record<string, number | string> = { id: `e${i}` };
    let z = -1;
    for (let j = 0; j < columns - 2; j++) {
      const v = Math.round(rnd() * 1000) / 10;
      row[`x${j}`] = i === 0 && j === 0 ? '__N__' : v;
      if (j < 4) z += (v - 50) / 35;
    }
    row.y = rnd() < 1 / (1 + Math.exp(-z)) ? 'yes' : 'no';
    return row;
  });
  const ask = {
    data: { rows: data },
    entity_column: 'id',
    subject_kind: 'other',
    questions: { q: { type: 'yesno', outcome_column: 'y' } },
    cases: { ids: ['e1'] },
  };
  return JSON.stringify(ask);
}

const pct = (xs: number[], q: number) =>
  xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

export async function runOverloadBench(o: OverloadOptions): Promise<OverloadBench> {
  const log = o.log ?? (() => undefined);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oq-overload-'));
  const keys: string[] = [];
  const store = await openSqliteStore(dir);
  try {
    for (let w = 0; w <= o.workspaces; w++) keys.push((await createLiveKey(store, { workspaceName: `soak-${w}`, now: Date.now() })).key);
  } finally {
    await store.close();
  }
  const probeKey = keys.pop()!;
  // The defaults, as an operator gets them; only the request rate limit is lifted for the probe.
  const server: ChildServer = await childServer({}, { dir, key: keys[0] });
  const loadBefore = os.loadavg();
  try {
    const rssAfterStartMb = server.rss();
    const bound = memoryBoundMb(configFromEnv({}));
    const text = template(o.rows, o.columns);
    // The probe: a small stored record's 1-case ask, asked once so its fit is the probing workspace's own.
    const probeCsv = [
      'id,a,b,y',
      ...Array.from({ length: 2000 }, (_, i) => `p${i},${i % 17},${(i * 7) % 13},${i % 3 ? 'no' : 'yes'}`),
    ].join('\n');
    const probeDs = (await postJson(`${server.url}/v1/add-dataset`, { csv: probeCsv }, probeKey)).body.dataset_id as string;
    const probeAsk = JSON.stringify({
      data: { dataset_id: probeDs },
      entity_column: 'id',
      subject_kind: 'other',
      questions: { q: { type: 'yesno', outcome_column: 'y' } },
      cases: { ids: ['p1'] },
    });
    for (let i = 0; i < 600; i++) {
      const r = await postJson(`${server.url}/v1/ask`, JSON.parse(probeAsk), probeKey);
      if (r.status === 200) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    log(
      `overload: ${o.rate} cold asks/s of ${o.rows.toLocaleString('en-US')} x ${o.columns} (${(text.length / 1e6).toFixed(1)} MB each) for ${o.seconds} s; bound ${bound} MB`,
    );

    const statuses: Record<string, number> = {};
    const codes: Record<string, number> = {};
    const replyMs: number[] = [];
    const accepted: Array<{ key: string; task: string }> = [];
    let refused = 0;
    let refusedWithRetryAfter = 0;
    let peakRss = server.rss();
    const sampler = setInterval(() => {
      try {
        peakRss = Math.max(peakRss, server.rss());
      } catch {
        /* the process is gone: the alive check says so */
      }
    }, 250);
    const probe =
      o.probeRate > 0
        ? pacedLoad({
            url: `${server.url}/v1/ask`,
            headers: { 'content-type': 'application/json', authorization: `Bearer ${probeKey}` },
            body: probeAsk,
            rate: o.probeRate,
            seconds: o.seconds,
          })
        : Promise.resolve(null);
    const total = Math.round(o.seconds * o.rate);
    const t0 = performance.now();
    const inflight: Array<Promise<void>> = [];
    for (let n = 0; n < total; n++) {
      const due = t0 + (n * 1000) / o.rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((res) => setTimeout(res, wait));
      const key = keys[n % keys.length];
      const body = text.replace('"__N__"', String(100_000 + n));
      inflight.push(
        (async () => {
          const sent = performance.now();
          let status = 0;
          try {
            const res = await fetch(`${server.url}/v1/ask`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
              body,
            });
            status = res.status;
            const reply = (await res.json()) as any;
            if (status === 202) accepted.push({ key, task: reply.task_id });
            if (status === 429 || status === 503) {
              refused++;
              codes[reply.code] = (codes[reply.code] ?? 0) + 1;
              if (Number(res.headers.get('retry-after')) > 0 && reply.retry_after_ms > 0) refusedWithRetryAfter++;
            }
          } catch {
            status = 0;
          }
          replyMs.push(performance.now() - sent);
          statuses[status] = (statuses[status] ?? 0) + 1;
        })(),
      );
    }
    await Promise.all(inflight);
    const lastSent = performance.now();
    const probed = await probe;
    log(`overload: replies ${JSON.stringify(statuses)}; probe p99 ${probed ? probed.p99.toFixed(1) : '-'} ms`);

    // Every accepted ask finishes: poll each until it is done (the queue drains at the threads' pace).
    let finished = 0;
    for (const a of accepted) {
      for (let i = 0; i < 20_000; i++) {
        const r = await postJson(`${server.url}/v1/poll`, { task_id: a.task }, a.key).catch(() => ({ status: 0, body: null }));
        if (r.status === 200) {
          finished++;
          break;
        }
        if (r.status !== 202) break;
        await new Promise((res) => setTimeout(res, 250));
      }
    }
    const drainSeconds = (performance.now() - lastSent) / 1000;
    clearInterval(sampler);
    const alive = (await postJson(`${server.url}/v1/describe`, {}, probeKey).catch(() => ({ status: 0 }))).status === 200;
    const peakRssMb = Math.max(peakRss, server.hwm());
    return {
      options: { seconds: o.seconds, rate: o.rate, workspaces: o.workspaces, rows: o.rows, columns: o.columns, probeRate: o.probeRate },
      bodyMb: text.length / 1e6,
      sent: total,
      statuses,
      refused,
      refusedWithRetryAfter,
      codes,
      replyP50: pct(replyMs, 0.5),
      replyP99: pct(replyMs, 0.99),
      peakRssMb,
      rssAfterStartMb,
      boundMb: bound,
      alive,
      accepted: accepted.length,
      acceptedFinished: finished,
      drainSeconds,
      probe: probed,
      loadBefore,
      loadAfter: os.loadavg(),
    };
  } finally {
    server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Whether the soak met the issue's bar: every reply 200, 202 or a refusal with Retry-After; under the bound; alive; all accepted asks done. */
export function overloadMet(b: OverloadBench): boolean {
  const bad = Object.keys(b.statuses).filter((s) => !['200', '202', '429', '503'].includes(s));
  return (
    bad.length === 0 && b.refused === b.refusedWithRetryAfter && b.peakRssMb < b.boundMb && b.alive && b.acceptedFinished === b.accepted
  );
}

export function formatOverloadMarkdown(b: OverloadBench): string {
  const o = b.options;
  const s = (n: number | undefined) => (n ?? 0).toLocaleString('en-US');
  const lines = [
    '## Overload',
    '',
    `Cold asks above capacity, as a soak: ${o.rate} cold asks per second (each a new record: inline ${s(o.rows)} rows x ${o.columns} columns, ${b.bodyMb.toFixed(1)} MB of JSON) from ${o.workspaces} live keys of their own workspaces, sent on a fixed schedule for ${o.seconds} s (bench/overload.ts), to a service in its own process with the default settings (FIT_WORKERS ${configFromEnv({}).fitWorkers}, TASK_MEMORY_MB ${configFromEnv({}).taskMemoryMb}, WORKSPACE_TASKS_MAX ${configFromEnv({}).workspaceTasksMax}, TASK_QUEUE_MAX ${configFromEnv({}).taskQueueMax}, BODY_MEMORY_MB ${Math.round(configFromEnv({}).bodyMemoryBytes / 1048576)}), only the per-minute rate limit lifted; beside it a steady ${o.probeRate} cached 1-case asks per second from another workspace (bench/paced-load.ts). Load average before ${b.loadBefore.map((x) => x.toFixed(2)).join(' ')}, after ${b.loadAfter.map((x) => x.toFixed(2)).join(' ')}.`,
    '',
    '| measure | result | bar |',
    '|---|---|---|',
    `| cold asks sent | ${s(b.sent)} | |`,
    `| replies by status | ${Object.entries(b.statuses)
      .map(([k, v]) => `${k === '0' ? 'none (connection lost)' : k}: ${s(v)}`)
      .join(', ')} | only 200, 202, 429, 503 |`,
    `| refusals with Retry-After and retry_after_ms | ${s(b.refusedWithRetryAfter)} of ${s(b.refused)} (${Object.entries(b.codes)
      .map(([k, v]) => `${k} ${s(v)}`)
      .join(', ')}) | all |`,
    `| time to the reply (every cold ask) | p50 ${b.replyP50.toFixed(0)} ms, p99 ${b.replyP99.toFixed(0)} ms | |`,
    `| asks accepted (202) and finished | ${s(b.acceptedFinished)} of ${s(b.accepted)}, the queue drained ${b.drainSeconds.toFixed(1)} s after the last ask | all |`,
    `| peak RSS of the service (VmHWM) | ${b.peakRssMb.toFixed(0)} MB (${b.rssAfterStartMb.toFixed(0)} MB after start-up) | under ${s(b.boundMb)} MB (docs/guides/overload.md) |`,
    `| alive after | ${b.alive ? 'yes' : 'no'} | yes |`,
  ];
  if (b.probe) {
    lines.push(
      `| cached 1-case asks meanwhile (${b.probe.rate}/s, ${s(b.probe.sent)} sent, ${s(b.probe.failed)} not 2xx) | p50 ${b.probe.p50.toFixed(1)} ms, p90 ${b.probe.p90.toFixed(1)} ms, p99 ${b.probe.p99.toFixed(1)} ms, max ${b.probe.max.toFixed(0)} ms | |`,
    );
  }
  lines.push('', `Met: ${overloadMet(b) ? 'yes' : 'no'}.`);
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const seconds = Number(process.argv[2] ?? 150);
  const rate = Number(process.argv[3] ?? 9.5);
  const b = await runOverloadBench({
    seconds,
    rate,
    workspaces: 3,
    rows: 10_000,
    columns: 30,
    probeRate: 20,
    log: (l) => process.stderr.write(`${l}\n`),
  });
  console.log(formatOverloadMarkdown(b));
}
