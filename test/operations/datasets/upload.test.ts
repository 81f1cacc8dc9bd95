// The presigned upload (docs/reference/datasets.md): PUT /v1/uploads/<token> streams a CSV to disk and stores it
// in parts cut at row boundaries; the stored record and its hash do not depend on the part size.
import fs from 'node:fs';
import path from 'node:path';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { startTestService, tempDir, type TestService } from '../../helpers/service.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadStoredRecord } from '../../../host/operations/datasets/read.ts';
import { decodePiece } from '../../../host/table/pieces.ts';
import { parseCsv } from '../../../host/table/csv.ts';
import { post } from './helpers.ts';

let svc: TestService;
let small: TestService; // maxUploadBytes: 1000
let tiny: TestService; // uploadPartBytes: 1 (a part per row), maxUploadRowBytes: 64
let mid: TestService; // uploadPartBytes: 10
let a: { key: string; workspaceId: string };

beforeAll(async () => {
  svc = await startTestService({}, { manualClock: true });
  small = await startTestService({ maxUploadBytes: 1000 }, { manualClock: true });
  tiny = await startTestService({ uploadPartBytes: 1, maxUploadRowBytes: 64 }, { manualClock: true });
  mid = await startTestService({ uploadPartBytes: 10 }, { manualClock: true });
  a = await svc.liveCaller('upload');
});
afterAll(async () => {
  await svc?.close();
  await small?.close();
  await tiny?.close();
  await mid?.close();
});

async function storedPieces(s: TestService, workspaceId: string, id: string) {
  const out = [];
  for await (const p of s.services.store.listDatasetPieces(workspaceId, id)) out.push(p);
  return out;
}

async function uploadUrl(s = svc, key = a.key): Promise<{ id: string; url: string }> {
  const r = await post(s.url, '/v1/add-dataset', { upload: true, filename: 'big.csv' }, key);
  expect(r.status).toBe(200);
  return { id: r.body.dataset_id, url: r.body.upload_url };
}

/** Upload files left under DATA_DIR/uploads (none once a PUT has finished, whatever its outcome). */
function partFiles(s: TestService): string[] {
  const dir = path.join(s.dataDir, 'uploads');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
}

async function put(url: string, body: BodyInit, headers: Record<string, string> = {}) {
  const res = await fetch(url, { method: 'PUT', body, headers: { 'content-type': 'text/csv', ...headers }, duplex: 'half' } as RequestInit);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

function streamOf(text: string, chunk = 100): ReadableStream<Uint8Array> {
  const bytes = Buffer.from(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(at, (at += chunk)));
    },
  });
}

describe('PUT /v1/uploads/<token>', () => {
  it('stores a small body as one ready part whose hash is the hash of the bytes sent', async () => {
    const { id, url } = await uploadUrl();
    const csv = '\ufeffid,x,y\r\na,1,"q,1"\r\nb,2,"line\nbreak"\r\n';
    const r = await put(url, csv);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ dataset_id: id, status: 'ready', rows: 2, columns: ['id', 'x', 'y'] });
    const stored = await loadStoredRecord(svc.ctx(a.workspaceId), id, 'data.dataset_id');
    expect(stored.contentHash).toBe(createHash('sha256').update(Buffer.from(csv)).digest('hex'));
    expect(stored.table.data[2]).toEqual(['q,1', 'line\nbreak']);
    expect(await storedPieces(svc, a.workspaceId, id)).toHaveLength(1);
    expect(partFiles(svc)).toEqual([]);
  });

  const bodies = [
    '\ufeffid,x,y\r\na,1,"q,1"\r\nb,2,"line\nbreak"\r\n',
    '\n  \n"i\nd",x\r  a,1\r\n\n\n   \nb,"2"  \nc,3', // blank lines, lone CR, leading spaces, no final line end
    'naïve,日本\nü,語\n' + Array.from({ length: 40 }, (_, i) => `r${i},"${'é'.repeat(i % 7)}""${i}"""\n`).join(''),
  ];
  it.each(bodies.map((b, i) => [i, b]))('body %i: the same record and content hash whatever the part size', async (_i, csv) => {
    const hash = createHash('sha256').update(Buffer.from(csv)).digest('hex');
    const whole = parseCsv(csv, { field: 'body' });
    const counts: number[] = [];
    for (const s of [svc, mid, tiny]) {
      const k = await s.liveCaller('parts');
      const { id, url } = await uploadUrl(s, k.key);
      const r = await put(url, streamOf(csv, 7));
      expect(r.body).toEqual({ dataset_id: id, status: 'ready', rows: whole.rowCount, columns: whole.columns });
      const stored = await loadStoredRecord(s.ctx(k.workspaceId), id, 'data.dataset_id');
      expect(stored.contentHash).toBe(hash);
      expect(stored.table).toEqual(whole);
      // Every part after the first carries the header row, so each piece parses on its own.
      const pieces = await storedPieces(s, k.workspaceId, id);
      for (const p of pieces) {
        const part = decodePiece(p.content).part!;
        expect(parseCsv(Buffer.from(part.text).toString('utf8')).columns).toEqual(whole.columns);
      }
      expect(pieces.reduce((n, p) => n + p.row_count, 0)).toBe(whole.rowCount);
      counts.push(pieces.length);
    }
    expect(counts[0]).toBe(1);
    expect(counts[1]).toBeGreaterThan(1);
    expect(counts[2]).toBe(whole.rowCount + 1); // uploadPartBytes 1: the header alone, then a part per row
    // The same bytes stored as an inline csv piece hash the same (docs/reference/ask.md#fits: same bytes, same answer).
    const inline = await post(svc.url, '/v1/add-dataset', { csv }, a.key);
    expect((await loadStoredRecord(svc.ctx(a.workspaceId), inline.body.dataset_id, 'data.dataset_id')).contentHash).toBe(hash);
  });

  it('a row longer than the row limit is 422 naming body and the line; nothing is stored', async () => {
    const k = await tiny.liveCaller('long-row');
    const { id, url } = await uploadUrl(tiny, k.key);
    const r = await put(url, streamOf(`id,x\na,1\nb,"${'z'.repeat(100)}"\nc,3\n`));
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'invalid_request', field: 'body' });
    expect(r.body.detail).toMatch(/row starting on line 3 is longer than 64 bytes/);
    expect(await tiny.services.store.getDataset(k.workspaceId, id)).toMatchObject({ status: 'awaiting_upload', row_count: 0 });
    expect(await storedPieces(tiny, k.workspaceId, id)).toEqual([]);
    expect(partFiles(tiny)).toEqual([]);
    expect((await put(url, 'id,x\na,1\nb,2\n')).body).toMatchObject({ status: 'ready', rows: 2 });
  });

  it('takes one upload: a second PUT is 409 dataset_sealed', async () => {
    const { url } = await uploadUrl();
    expect((await put(url, 'id,x\na,1\n')).status).toBe(200);
    const again = await put(url, 'id,x\nb,2\n');
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('dataset_sealed');
  });

  it('a tampered or malformed token is 401 unauthorized', async () => {
    const { url } = await uploadUrl();
    const tampered = url.replace(/.(\.[^.]+)$/, (m, sig) => (m[0] === 'A' ? 'B' : 'A') + sig);
    for (const u of [tampered, `${svc.url}/v1/uploads/nonsense`, url + 'x']) {
      const r = await put(u, 'id\na\n');
      expect(r.status, u).toBe(401);
      expect(r.body.code).toBe('unauthorized');
    }
  });

  it('an expired URL is 401 and names the expiry', async () => {
    const { url } = await uploadUrl();
    svc.clock.now += 3601 * 1000;
    try {
      const r = await put(url, 'id\na\n');
      expect(r.status).toBe(401);
      expect(r.body.detail).toMatch(/expired/);
    } finally {
      svc.clock.now -= 3601 * 1000;
    }
  });

  it('a body that is not CSV is 422 and leaves the dataset waiting for a good one', async () => {
    const { id, url } = await uploadUrl();
    const bad = await put(url, 'id,x\na\n');
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ code: 'invalid_request', field: 'body' });
    expect(bad.body.detail).toMatch(/Line 2 has 1 field/);
    expect((await svc.services.store.getDataset(a.workspaceId, id))?.status).toBe('awaiting_upload');
    expect((await put(url, 'id,x\na,1\n')).body.status).toBe('ready');
  });

  it('over the size cap is 413 request_too_large and nothing is stored, with or without content-length', async () => {
    const k = await small.liveCaller('small');
    const body = 'id,x\n' + 'abcdefghi,1\n'.repeat(100);
    for (const send of [() => body, () => streamOf(body)]) {
      const { id, url } = await uploadUrl(small, k.key);
      const r = await put(url, send());
      expect(r.status).toBe(413);
      expect(r.body.code).toBe('request_too_large');
      const d = await small.services.store.getDataset(k.workspaceId, id);
      expect(d).toMatchObject({ status: 'awaiting_upload', row_count: 0 });
      expect(partFiles(small)).toEqual([]);
      // Under the cap, the same URL still works.
      expect((await put(url, streamOf('id,x\na,1\n'))).status).toBe(200);
    }
  });

  it('keeps the upload secret in the store: a URL handed out before a restart is taken after it', async () => {
    const dir = tempDir();
    const first = await startTestService({ dataDir: dir });
    const k = await first.liveCaller('restart');
    const { id, url } = await uploadUrl(first, k.key);
    await first.close();
    const second = await startTestService({ dataDir: dir });
    try {
      // the same port is not promised: the token is what must still open
      const again = url.replace(first.url, second.url);
      const r = await put(again, 'id,x\na,1\n');
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ dataset_id: id, status: 'ready', rows: 1 });
      expect(fs.existsSync(path.join(dir, 'upload-token.key'))).toBe(false);
    } finally {
      await second.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('adopts the secret file an earlier version kept in DATA_DIR, so its URLs stay good', async () => {
    const dir = tempDir();
    const legacy = randomBytes(32);
    fs.writeFileSync(path.join(dir, 'upload-token.key'), legacy.toString('hex'), { mode: 0o600 });
    const s = await startTestService({ dataDir: dir });
    try {
      const k = await s.liveCaller('legacy');
      const { id, url } = await uploadUrl(s, k.key);
      // the URL's token is what the earlier version signed with that file: HMAC-SHA256 of the payload under it
      const token = url.slice(url.lastIndexOf('/') + 1);
      const [payload, mac] = token.split('.');
      expect(createHmac('sha256', legacy).update(`upload-v1.${payload}`).digest('base64url')).toBe(mac);
      expect((await put(url, 'id,x\na,1\n')).body).toMatchObject({ dataset_id: id, status: 'ready' });
    } finally {
      await s.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
