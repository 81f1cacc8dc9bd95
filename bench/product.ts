// Contract 1.1 "ship a product" benchmarks: scoring 10,000 new rows by model_ref end to end (no
// fit), beside the cached ask of 10,000 cases by ids in the same run on the same server; and the CSV export
// of a 100,000-case rank (the ask that writes it, the download that streams it) with the server's peak
// memory. The server runs in its own process (npm start's code, info logging) on SQLite.
import fs from 'node:fs';
import os from 'node:os';
import { benchRows, childServer, type ChildServer } from './service.ts';

interface Timed {
  median: number;
  runs: number[];
  bytes: number;
  serverCpuMs: number;
}

export interface ProductBench {
  loadBefore: string;
  loadAfter: string;
  byIds: Timed;
  byModelRef: Timed & { fitsRun: number; billable: number };
  byModelRefCompact: Timed;
  rank: {
    ms: number;
    withExportMs: number;
    downloadMs: number;
    csvBytes: number;
    csvRows: number;
    rssBeforeMB: number;
    /** Peak RSS during the rank without export, the rank with export, and the download alone (each from a reset mark). */
    peakPlainMB: number;
    peakExportMB: number;
    peakDownloadMB: number;
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const loadavg = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

function cpuMsOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, USER_HZ 100
}

type Server = ChildServer;

/** The service in its own process (bench/service.ts childServer); pending only after 10 minutes, so every call is timed whole. */
const startServer = () => childServer({ PENDING_WAIT_MS: '600000' });

async function post(server: Server, route: string, body: unknown): Promise<{ status: number; json: any; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(server.url + route, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${server.key}` },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  return { status: res.status, json, ms: performance.now() - t0 };
}

/** The request as sent (already serialised) to the last byte of the reply, unparsed. */
async function timeBytes(server: Server, body: string): Promise<{ ms: number; bytes: number; text: string }> {
  const t0 = performance.now();
  const res = await fetch(`${server.url}/v1/ask`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${server.key}` },
    body,
  });
  const buf = await res.arrayBuffer();
  const ms = performance.now() - t0;
  const text = Buffer.from(buf).toString('utf8');
  if (res.status !== 200) throw new Error(`ask ${res.status}: ${text.slice(0, 300)}`);
  return { ms, bytes: buf.byteLength, text };
}

async function repeat(server: Server, body: string, warm: number, runs: number): Promise<Timed & { text: string }> {
  let text = '';
  for (let i = 0; i < warm; i++) text = (await timeBytes(server, body)).text;
  const times: number[] = [];
  const cpu0 = cpuMsOf(server.pid);
  let bytes = 0;
  for (let i = 0; i < runs; i++) {
    const r = await timeBytes(server, body);
    times.push(r.ms);
    bytes = r.bytes;
    text = r.text;
  }
  return { median: median(times), runs: times, bytes, serverCpuMs: (cpuMsOf(server.pid) - cpu0) / runs, text };
}

export async function runProductBench(log: (s: string) => void = (s) => process.stderr.write(s + '\n')): Promise<ProductBench> {
  const loadBefore = loadavg();
  const server = await startServer();
  try {
    // a stored 100,000-row record, as the service bench stores it (10 pieces of 10,000 rows)
    let id = '';
    for (let i = 0; i < 10; i++) {
      const rows = benchRows(i * 10_000, (i + 1) * 10_000);
      const r = await post(server, '/v1/add-dataset', id ? { dataset_id: id, rows } : { rows });
      if (r.status !== 200) throw new Error(`add-dataset ${r.status} ${JSON.stringify(r.json)}`);
      id = r.json.dataset_id;
    }
    const base = { data: { dataset_id: id }, entity_column: 'id', subject_kind: 'other' };
    const fitted = await post(server, '/v1/ask', {
      ...base,
      questions: { q: { type: 'yesno', outcome_column: 'y' } },
      cases: { ids: ['c1'] },
    });
    const modelRef: string = fitted.json.answers.q.model_ref;
    log(`product: fitted the 100,000-row record in ${fitted.ms.toFixed(0)} ms (${fitted.json.answers.q.state}, ${modelRef})`);

    // side by side: 10,000 cases by ids from the record, and 10,000 new rows by model_ref with no data
    const ids = Array.from({ length: 10_000 }, (_, i) => `c${i * 7}`);
    const byIdsBody = JSON.stringify({ ...base, questions: { q: { type: 'yesno', outcome_column: 'y' } }, cases: { ids } });
    const newRows = benchRows(200_000, 210_000).map(({ y: _outcome, ...row }) => row);
    const byRef = {
      entity_column: 'id',
      subject_kind: 'other',
      questions: { q: { type: 'yesno', model_ref: modelRef } },
      cases: { rows: newRows },
    };
    const byRefBody = JSON.stringify(byRef);
    const byIds = await repeat(server, byIdsBody, 3, 7);
    const byModel = await repeat(server, byRefBody, 3, 7);
    const compact = await repeat(server, JSON.stringify({ ...byRef, response_format: 'compact' }), 3, 7);
    const reply = JSON.parse(byModel.text);
    log(
      `product: 10,000 cases by ids median ${byIds.median.toFixed(0)} ms; 10,000 new rows by model_ref median ${byModel.median.toFixed(0)} ms ` +
        `(fits_run ${reply.fits_run}, ${reply.billable_decisions} billed, ${(byModel.bytes / 1e6).toFixed(1)} MB, server CPU ${byModel.serverCpuMs.toFixed(0)} ms); ` +
        `compact ${compact.median.toFixed(0)} ms (${(compact.bytes / 1e6).toFixed(2)} MB)`,
    );

    // a rank of all 100,000 cases, then the same rank with export: "csv", then the download of that CSV
    const rankBody = { ...base, questions: { q: { type: 'rank', outcome_column: 'y', top_k: 20 } } };
    await post(server, '/v1/ask', rankBody); // warm: the record parsed, the fit cached
    const rssBefore = server.rss();
    server.resetPeak();
    const plain = await post(server, '/v1/ask', rankBody);
    const peakPlain = server.hwm();
    server.resetPeak();
    const exported = await post(server, '/v1/ask', { ...rankBody, export: 'csv' });
    if (exported.status !== 200) throw new Error(`export ask ${exported.status} ${JSON.stringify(exported.json).slice(0, 300)}`);
    const peakExport = server.hwm();
    server.resetPeak();
    const t0 = performance.now();
    const res = await fetch(exported.json.export.results_url);
    let csvBytes = 0;
    let csvRows = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      csvBytes += chunk.byteLength;
      for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) csvRows++;
    }
    const downloadMs = performance.now() - t0;
    const peakDownload = server.hwm();
    log(
      `product: rank of 100,000 ${plain.ms.toFixed(0)} ms (peak RSS ${peakPlain.toFixed(0)} MB); with export ${exported.ms.toFixed(0)} ms ` +
        `(peak ${peakExport.toFixed(0)} MB); download ${downloadMs.toFixed(0)} ms (${(csvBytes / 1e6).toFixed(1)} MB, ${csvRows - 1} rows; ` +
        `peak ${peakDownload.toFixed(0)} MB); server RSS ${rssBefore.toFixed(0)} MB before`,
    );
    const strip = ({ text: _t, ...rest }: Timed & { text: string }): Timed => rest;
    return {
      loadBefore,
      loadAfter: loadavg(),
      byIds: strip(byIds),
      byModelRef: { ...strip(byModel), fitsRun: reply.fits_run, billable: reply.billable_decisions },
      byModelRefCompact: strip(compact),
      rank: {
        ms: plain.ms,
        withExportMs: exported.ms,
        downloadMs,
        csvBytes,
        csvRows: csvRows - 1,
        rssBeforeMB: rssBefore,
        peakPlainMB: peakPlain,
        peakExportMB: peakExport,
        peakDownloadMB: peakDownload,
      },
    };
  } finally {
    server.stop();
    fs.rmSync(server.dir, { recursive: true, force: true });
  }
}

export function formatProductMarkdown(b: ProductBench): string {
  const ok = (good: boolean) => (good ? 'met' : '**missed**');
  const runs = (t: Timed) => t.runs.map((x) => x.toFixed(0)).join(', ');
  return [
    '## Ship a product (contract 1.1: model_ref scoring, exports)',
    '',
    `The server in its own process on SQLite (info logging), a stored record of 100,000 rows x 11 columns fitted once; times from sending the request to the last byte of the reply, 3 warm-up calls then 7 measured. Load average ${b.loadBefore} before, ${b.loadAfter} after (2 cores).`,
    '',
    '| measure | result | target |',
    '|---|---|---|',
    `| cached ask, 10,000 cases by ids from the record, answered and signed (${(b.byIds.bytes / 1e6).toFixed(1)} MB reply; server CPU ${b.byIds.serverCpuMs.toFixed(0)} ms per ask) | median ${b.byIds.median.toFixed(0)} ms (runs ${runs(b.byIds)}) | |`,
    `| 10,000 new rows by model_ref, no data, no fit (fits_run ${b.byModelRef.fitsRun}, ${b.byModelRef.billable} billed; ${(b.byModelRef.bytes / 1e6).toFixed(1)} MB reply; server CPU ${b.byModelRef.serverCpuMs.toFixed(0)} ms per ask) | median ${b.byModelRef.median.toFixed(0)} ms (runs ${runs(b.byModelRef)}); by model_ref / by ids = ${(b.byModelRef.median / b.byIds.median).toFixed(2)} | < 150 ms ${ok(b.byModelRef.median < 150)} |`,
    `| the same, response_format compact (${(b.byModelRefCompact.bytes / 1e6).toFixed(2)} MB reply; server CPU ${b.byModelRefCompact.serverCpuMs.toFixed(0)} ms) | median ${b.byModelRefCompact.median.toFixed(0)} ms (runs ${runs(b.byModelRefCompact)}) | |`,
    `| rank of the whole 100,000-case record (top_k 20), cached fit | ${b.rank.ms.toFixed(0)} ms | |`,
    `| the same rank with export: "csv" (every ranked case written to the store as CSV parts) | ${b.rank.withExportMs.toFixed(0)} ms | |`,
    `| GET export.results_url, streamed (${(b.rank.csvBytes / 1e6).toFixed(1)} MB, ${b.rank.csvRows.toLocaleString('en')} rows) | ${b.rank.downloadMs.toFixed(0)} ms | |`,
    `| server peak RSS (VmHWM, reset before each step; ${b.rank.rssBeforeMB.toFixed(0)} MB before): the rank alone / the rank with export / the download alone | ${b.rank.peakPlainMB.toFixed(0)} / ${b.rank.peakExportMB.toFixed(0)} / ${b.rank.peakDownloadMB.toFixed(0)} MB: the export adds ${(b.rank.peakExportMB - b.rank.peakPlainMB).toFixed(0)} MB to the rank's peak, the download ${(b.rank.peakDownloadMB - b.rank.rssBeforeMB).toFixed(0)} MB over the RSS before | |`,
    '',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const b = await runProductBench();
  process.stdout.write(formatProductMarkdown(b) + '\n');
}
