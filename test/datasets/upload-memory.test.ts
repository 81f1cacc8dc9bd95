// A 50 MB upload through the PUT URL keeps memory flat: the server's RSS grows by at most ~2x the file size
// (the body streams to disk; the stored piece is read once into one buffer that SQLite copies).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { post, startDatasetService, type DatasetService } from './helpers.ts';

const TARGET_BYTES = 50 * 1024 * 1024;
let svc: DatasetService;

beforeAll(async () => {
  svc = await startDatasetService();
});
afterAll(() => svc?.close());

/**
 * The client runs in a child process, so this process's RSS is the server's alone. It PUTs generated CSV
 * rows (chunked, with backpressure) until TARGET_BYTES and prints status, body, bytes, rows and SHA-256.
 */
const CLIENT = `
const http = require('node:http');
const { createHash } = require('node:crypto');
const [url, target] = [process.argv[1], Number(process.argv[2])];
const hash = createHash('sha256');
let bytes = 0, rows = 0;
const req = http.request(url, { method: 'PUT', headers: { 'content-type': 'text/csv' } }, (res) => {
  let text = '';
  res.setEncoding('utf8');
  res.on('data', (d) => (text += d));
  res.on('end', () => process.stdout.write(JSON.stringify({ status: res.statusCode, body: JSON.parse(text), bytes, rows, sha256: hash.digest('hex') })));
});
const send = (chunk) => { hash.update(chunk); bytes += chunk.length; return req.write(chunk); };
send(Buffer.from('customer_id,tenure_months,monthly_charges,plan,churned\\n'));
const pump = () => {
  while (bytes < target) {
    let block = '';
    for (let i = 0; i < 1000; i++, rows++) {
      block += 'cust_' + String(rows).padStart(8, '0') + ',' + (rows % 72) + ',' + (20 + (rows % 9000) / 100).toFixed(2) + ',' + (rows % 3 ? 'basic' : 'pro') + ',' + (rows % 4 ? 'no' : 'yes') + '\\n';
    }
    if (!send(Buffer.from(block))) return void req.once('drain', pump);
  }
  req.end();
};
pump();
`;

function putGenerated(url: string): Promise<{ status: number; body: any; bytes: number; rows: number; sha256: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-e', CLIENT, url, String(TARGET_BYTES)], { maxBuffer: 1 << 20 }, (err, stdout) => {
      if (err) reject(err);
      else resolve(JSON.parse(stdout));
    });
  });
}

it('stores a 50 MB upload with flat memory', async () => {
  const { key, workspaceId } = await svc.liveKey('memory');
  const { body } = await post(svc.url, '/v1/add-dataset', { upload: true, filename: 'fifty.csv' }, key);
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const started = performance.now();
  const r = await putGenerated(body.upload_url);
  const ms = performance.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);

  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ status: 'ready', rows: r.rows, columns: ['customer_id', 'tenure_months', 'monthly_charges', 'plan', 'churned'] });
  const growth = peak - before;
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
  console.log(`upload of ${mb(r.bytes)} (${r.rows} rows) in ${Math.round(ms)} ms: RSS ${mb(before)} -> peak ${mb(peak)}, growth ${mb(growth)} = ${(growth / r.bytes).toFixed(2)}x the file`);
  expect(growth).toBeLessThan(2 * r.bytes);

  // The stored piece is the kind byte and then exactly the bytes sent.
  const pieces = [];
  for await (const p of svc.running.services.store.listDatasetPieces(workspaceId, body.dataset_id)) pieces.push(p);
  expect(pieces).toHaveLength(1);
  expect(pieces[0].content.byteLength).toBe(r.bytes + 1);
  expect(createHash('sha256').update(pieces[0].content.subarray(1)).digest('hex')).toBe(r.sha256);
});
