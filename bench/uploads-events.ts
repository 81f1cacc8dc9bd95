// `npm run bench:uploads-events`: peak memory of a server process receiving a 500 MB gzip CSV in
// pieces (docs/reference/datasets.md#uploads) and checking it at /complete, and the latency of task events from the engine's progress
// report to an SSE client, on the process running the fit (woken at once) and on another process reading
// the same store (polled). Prints the markdown section of docs/benchmark-results.md it heads (bench/run.ts keeps it).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createGzip } from 'node:zlib';
import { pino } from 'pino';
import { startService, type RunningService } from '../host/main.ts';
import { createLiveKey } from '../host/runtime/keys.ts';
import { P_BAG } from '../host/engine/abi.ts';
import { childServer, postJson } from './service.ts';

const log = (s: string) => process.stderr.write(`[uploads-events] ${s}\n`);
const PIECE = 4_000_000;

// ---- 500 MB gzip upload in pieces, server in its own process ----

/** Gzip bytes of a CSV (id, x, a random note, y), made as they are needed: `target` bytes of gzip in all. */
async function* gzipCsv(target: number): AsyncGenerator<Buffer> {
  const gz = createGzip({ level: 1 });
  const out: Buffer[] = [];
  let made = 0;
  gz.on('data', (b: Buffer) => out.push(b));
  gz.write('id,x,note,y\n');
  let i = 0;
  while (made < target) {
    const rows: string[] = [];
    const noise = randomBytes(300 * 256).toString('base64');
    for (let r = 0; r < 256; r++, i++) rows.push(`r${i},${i % 97},${noise.slice(r * 400, r * 400 + 400)},${i % 3 === 0 ? 'yes' : 'no'}\n`);
    if (!gz.write(rows.join(''))) await new Promise((res) => gz.once('drain', res));
    while (out.length > 0) {
      const b = out.shift()!;
      made += b.byteLength;
      yield b;
    }
  }
  gz.end();
  await new Promise((res) => gz.once('end', res));
  for (const b of out) yield b;
}

async function gzipUpload(mb: number) {
  const server = await childServer();
  try {
    const made = await postJson(`${server.url}/v1/add-dataset`, { upload: true }, server.key);
    const piecesUrl = made.body.upload_pieces_url as string;
    const session = randomBytes(16).toString('hex');
    const before = server.rss();
    server.resetPeak();
    const t0 = performance.now();
    let held: Buffer[] = [];
    let heldBytes = 0;
    let index = 0;
    let bytes = 0;
    const send = async (piece: Buffer) => {
      const res = await fetch(`${piecesUrl}/${index}`, {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream', 'x-upload-session': session },
        body: piece as Uint8Array<ArrayBuffer>,
      });
      if (res.status !== 200) throw new Error(`piece ${index}: HTTP ${res.status} ${await res.text()}`);
      await res.text();
      index++;
      bytes += piece.byteLength;
    };
    for await (const chunk of gzipCsv(mb * 1_000_000)) {
      held.push(chunk);
      heldBytes += chunk.byteLength;
      while (heldBytes >= PIECE) {
        const all = Buffer.concat(held, heldBytes);
        await send(all.subarray(0, PIECE));
        held = [all.subarray(PIECE)];
        heldBytes -= PIECE;
      }
    }
    if (heldBytes > 0) await send(Buffer.concat(held, heldBytes));
    const sentMs = performance.now() - t0;
    const peakPieces = server.hwm();
    const t1 = performance.now();
    const done = await fetch(`${piecesUrl}/complete`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-upload-session': session },
      body: JSON.stringify({ pieces: index }),
    });
    const doneBody = await done.json();
    const completeMs = performance.now() - t1;
    const peak = server.hwm();
    log(
      `gzip upload ${(bytes / 1e6).toFixed(0)} MB in ${index} pieces: ${done.status} ${doneBody.status}; RSS ${before.toFixed(0)} -> ${peak.toFixed(0)} MB`,
    );
    return { bytes, pieces: index, sentMs, completeMs, status: done.status, rssBeforeMB: before, peakPiecesMB: peakPieces, peakMB: peak };
  } finally {
    server.stop();
  }
}

// ---- events latency: engine report (as the pool hands it on) -> SSE client ----

function rowsFor(seed: number, n = 10_000, m = 24): Array<Record<string, number | string>> {
  let s = seed;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length: n }, (_, i) => {
    const row: Record<string, number | string> = { id: `e${i}` };
    let z = -1;
    for (let j = 0; j < m; j++) {
      const v = Math.round(rnd() * 1000) / 10;
      row[`x${j}`] = v;
      if (j < 4) z += (v - 50) / 40;
    }
    row.y = rnd() < 1 / (1 + Math.exp(-z)) ? 1 : 0;
    return row;
  });
}

/** Reads an SSE stream, calling `onEvent` with each event's data as it arrives; resolves at the end. */
async function readEvents(url: string, key: string, onEvent: (event: string, data: any, openedAt: number) => void): Promise<void> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  const openedAt = performance.now();
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event && data) onEvent(event, JSON.parse(data), openedAt);
    }
  }
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

async function eventLatency(asks: number) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oq-bench-events-'));
  const quiet = { hostname: '127.0.0.1', log: pino({ level: 'silent' }), env: {} };
  // two processes' worth of service on one store: `a` runs the fits, `b` only serves streams (polling)
  const a: RunningService = await startService({ port: 0, dataDir: dir, pendingWaitMs: 20 }, quiet);
  const b: RunningService = await startService({ port: 0, dataDir: dir }, quiet);
  const { key } = await createLiveKey(a.services.store, { workspaceName: 'bench', now: Date.now() });
  const reported = new Map<string, number>();
  let current = '';
  const pool = a.services.pool;
  const run = pool.run.bind(pool);
  pool.run = (input, onProgress) =>
    run(input, (stage, done, total) => {
      if (stage === P_BAG) reported.set(`${current}:${done}`, performance.now());
      onProgress?.(stage, done, total);
    });
  const same: number[] = [];
  const other: number[] = [];
  try {
    for (let k = 0; k < asks; k++) {
      const r = await postJson(
        `${a.url}/v1/ask`,
        {
          data: { rows: rowsFor(11 + k) },
          entity_column: 'id',
          subject_kind: 'org',
          questions: { q: { type: 'yesno', outcome_column: 'y' } },
          cases: { ids: ['e1'] },
        },
        key,
      );
      if (r.status !== 202) throw new Error(`ask ${k}: ${r.status} (expected pending)`);
      current = r.body.task_id;
      const taskId = current;
      const listen = (url: string, into: number[]) =>
        readEvents(`${url}/v1/tasks/${taskId}/events?last_event_id=0`, key, (event, data, openedAt) => {
          if (event !== 'stage' || data.step !== 'fitting' || data.bag === undefined || data.bag === 0) return;
          const at = reported.get(`${taskId}:${data.bag}`);
          // only reports made while the stream was open (earlier ones are replayed from the store)
          if (at !== undefined && at > openedAt) into.push(performance.now() - at);
        });
      await Promise.all([listen(a.url, same), listen(b.url, other)]);
    }
  } finally {
    await a.close();
    await b.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const sum = (xs: number[]) => ({ n: xs.length, p50: quantile(xs, 0.5), p90: quantile(xs, 0.9), max: Math.max(...xs) });
  return { same: sum(same), other: sum(other), pollMs: 500 };
}

const uploadMb = Number(process.env.BENCH_GZIP_MB ?? 500);
const asks = Number(process.env.BENCH_EVENT_ASKS ?? 6);
const load = os
  .loadavg()
  .map((x) => x.toFixed(1))
  .join(', ');
const up = await gzipUpload(uploadMb);
const ev = await eventLatency(asks);
const ms = (x: number) => `${x.toFixed(1)} ms`;
process.stdout.write(
  [
    '## Uploads in pieces and task events',
    '',
    `\`npm run bench:uploads-events\`, ${new Date().toISOString().slice(0, 10)}; load average at the start ${load} on the shared 2-core machine.`,
    '',
    '| measure | result |',
    '|---|---|',
    `| ${(up.bytes / 1e6).toFixed(0)} MB gzip CSV (random text, level 1) in ${up.pieces} pieces of 4,000,000 bytes, then /complete (inflated and checked whole), server in its own process | pieces sent in ${(up.sentMs / 1000).toFixed(1)} s, /complete ${(up.completeMs / 1000).toFixed(1)} s (HTTP ${up.status}); server RSS ${up.rssBeforeMB.toFixed(0)} MB before, peak ${up.peakPiecesMB.toFixed(0)} MB while pieces arrived, ${up.peakMB.toFixed(0)} MB through /complete |`,
    `| event latency, engine's bag report (as the pool hands it on) to the SSE client, stream on the process running the fit (woken at once), ${ev.same.n} events of ${asks} asks of 10,000 x 24 | p50 ${ms(ev.same.p50)}, p90 ${ms(ev.same.p90)}, max ${ms(ev.same.max)} |`,
    `| the same, stream served by another service on the same store (polls every EVENT_POLL_MS = ${ev.pollMs} ms), ${ev.other.n} events | p50 ${ms(ev.other.p50)}, p90 ${ms(ev.other.p90)}, max ${ms(ev.other.max)} |`,
    '',
  ].join('\n') + '\n',
);
