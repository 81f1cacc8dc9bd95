// A large upload through the PUT URL with flat memory: the server, in a process of its own, peaks (VmHWM) less
// than 96 MB above its RSS before a 90 MB upload, and not much more than for a 20 MB one.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openSqliteStore } from '../../../host/store/index.ts';
import { RecordHasher, decodePiece, pieceTable } from '../../../host/table/pieces.ts';
import { post, startServerProcess } from './helpers.ts';

const SMALL_BYTES = 20 * 1024 * 1024;
const TARGET_BYTES = 90 * 1024 * 1024; // under the default 100 MB upload limit
/**
 * Parts of 1 MiB (one reused buffer, and SQLite's copies while storing one), the request stream's chunks and
 * the garbage collector's slack. The chunks are Buffers outside V8's heap, collected once their external
 * memory passes V8's own limit (about 64 MB): so the peak above the resting RSS is ~40-70 MB depending on the
 * Node version and timing, for 20 MB and for 90 MB alike. The whole 90 MB file held once would be 90 MB
 * on its own, and the old single-piece store peaked at over twice the file.
 */
const BOUND_BYTES = 96 * 1024 * 1024;
/** How much more a 90 MB upload may peak than a 20 MB one: holding the file would add at least 70 MB. */
const GROWTH_WITH_SIZE_BYTES = 48 * 1024 * 1024;
const COLUMNS = ['customer_id', 'tenure_months', 'monthly_charges', 'plan', 'churned'];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'upload-memory-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** PUTs generated CSV rows (1,000 per chunk, pulled as the connection drains) until `target` bytes. */
async function putGenerated(url: string, target: number) {
  const hash = createHash('sha256');
  let bytes = 0;
  let rows = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (bytes >= target) return controller.close();
      let block = bytes === 0 ? COLUMNS.join(',') + '\n' : '';
      for (let i = 0; i < 1000; i++, rows++) {
        block += `cust_${String(rows).padStart(8, '0')},${rows % 72},${(20 + (rows % 9000) / 100).toFixed(2)},${rows % 3 ? 'basic' : 'pro'},${rows % 4 ? 'no' : 'yes'}\n`;
      }
      const chunk = Buffer.from(block);
      hash.update(chunk);
      bytes += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  const res = await fetch(url, { method: 'PUT', body, headers: { 'content-type': 'text/csv' }, duplex: 'half' } as RequestInit);
  return { status: res.status, body: await res.json(), bytes, rows, sha256: hash.digest('hex') };
}

it('stores a 90 MB upload with memory bounded by a constant, in parts that read back to the bytes sent', async () => {
  const server = await startServerProcess(dir);
  let id: string;
  let sent: Awaited<ReturnType<typeof putGenerated>>;
  try {
    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
    /** Peak RSS above the resting RSS while one upload of `target` bytes is stored. */
    const measured = async (target: number, filename: string) => {
      const made = await post(server.url, '/v1/add-dataset', { upload: true, filename }, server.key);
      server.resetPeak();
      const before = server.memory('VmRSS');
      const started = performance.now();
      const upload = await putGenerated(made.body.upload_url, target);
      const ms = performance.now() - started;
      const growth = server.memory('VmHWM') - before;
      console.log(
        `upload of ${mb(upload.bytes)} (${upload.rows} rows) in ${Math.round(ms)} ms: server RSS ${mb(before)} -> growth ${mb(growth)}`,
      );
      expect(upload.status).toBe(200);
      expect(upload.body).toEqual({ dataset_id: made.body.dataset_id, status: 'ready', rows: upload.rows, columns: COLUMNS });
      expect(upload.bytes).toBeGreaterThanOrEqual(target);
      return { id: made.body.dataset_id as string, upload, growth };
    };
    const small = await measured(SMALL_BYTES, 'twenty.csv');
    const large = await measured(TARGET_BYTES, 'ninety.csv');
    id = large.id;
    sent = large.upload;
    expect(large.growth).toBeLessThan(BOUND_BYTES);
    expect(large.growth - small.growth).toBeLessThan(GROWTH_WITH_SIZE_BYTES);
  } finally {
    await server.stop();
  }

  // Read back piece by piece (as read.ts does): the hash is the SHA-256 of the bytes sent, and the
  // parts, each a CSV with the header, hold every row.
  const store = await openSqliteStore(dir);
  try {
    const hasher = new RecordHasher();
    let parts = 0;
    let rows = 0;
    for await (const stored of store.listDatasetPieces(server.workspaceId, id)) {
      const piece = decodePiece(stored.content);
      expect(piece.part).toBeDefined();
      expect(stored.content.byteLength).toBeLessThan(2 * 1024 * 1024);
      hasher.add(piece);
      const table = pieceTable(piece, 'data.dataset_id');
      expect(table.columns).toEqual(COLUMNS);
      expect(table.rowCount).toBe(stored.row_count);
      rows += table.rowCount;
      parts++;
    }
    expect(hasher.digest()).toBe(sent.sha256);
    expect(rows).toBe(sent.rows);
    expect(parts).toBeGreaterThanOrEqual(90);
  } finally {
    await store.close();
  }
});
