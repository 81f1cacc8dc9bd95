// A server killed (SIGKILL) while it stores an upload's parts leaves the dataset awaiting_upload, never a
// half dataset marked ready: after a restart it is refused for asks, and the URL takes no second body. The
// killed process's upload file is removed when the next process starts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openSqliteStore } from '../../../host/store/index.ts';
import { RecordHasher, decodePiece } from '../../../host/table/pieces.ts';
import { post, startServerProcess } from './helpers.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'upload-crash-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** ~20 MB of rows: with 4 KB parts, about 5,000 appends, so the store phase lasts long enough to be cut. */
function body(): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i >= 400_000) return controller.close();
      let block = i === 0 ? 'id,x,y\n' : '';
      for (const end = i + 5000; i < end; i++) block += `row${i},${i % 97},${i % 2 ? 'yes' : 'no'}\n`;
      controller.enqueue(Buffer.from(block));
    },
  });
}

it('a crash mid-upload leaves the dataset awaiting_upload, not ready, and it cannot be read as a record', async () => {
  const first = await startServerProcess(dir, { uploadPartBytes: 4096 });
  const made = await post(first.url, '/v1/add-dataset', { upload: true }, first.key);
  const id: string = made.body.dataset_id;
  const store = await openSqliteStore(dir);
  try {
    const put = fetch(made.body.upload_url, {
      method: 'PUT',
      body: body(),
      headers: { 'content-type': 'text/csv' },
      duplex: 'half',
    } as RequestInit).then(
      (r) => `answered ${r.status}`,
      () => 'connection lost',
    );
    // Kill as soon as some parts are stored and the dataset is not yet ready.
    for (;;) {
      const d = await store.getDataset(first.workspaceId, id);
      expect(d?.status, 'the upload finished before the server could be killed').toBe('awaiting_upload');
      if (d!.row_count > 0) break;
      await new Promise((r) => setTimeout(r, 2));
    }
    await first.kill();
    expect(await put).toBe('connection lost');

    const left = await store.getDataset(first.workspaceId, id);
    expect(left).toMatchObject({ status: 'awaiting_upload', columns: null });
    expect(left!.row_count).toBeGreaterThan(0);
    expect(left!.row_count).toBeLessThan(400_000);
    // The parts that did land do not join up into the whole CSV, so they could never hash as a record.
    const hasher = new RecordHasher();
    for await (const p of store.listDatasetPieces(first.workspaceId, id)) hasher.add(decodePiece(p.content));
    expect(() => hasher.digest()).toThrow(/part is missing/);

    // The killed process's upload file is still there: nothing of it ran after the kill.
    const uploads = path.join(dir, 'uploads');
    expect(fs.readdirSync(uploads).filter((f) => f.endsWith('.part'))).toHaveLength(1);
    const second = await startServerProcess(dir);
    try {
      // The next process removes it as it starts, not after twice the URL's lifetime.
      for (let i = 0; i < 200 && fs.readdirSync(uploads).length > 0; i++) await new Promise((r) => setTimeout(r, 25));
      expect(fs.readdirSync(uploads)).toEqual([]);
      // createLiveKey finds the same workspace ('child') again: a new key for it.
      const pre = await post(second.url, '/v1/preflight', { dataset_id: id }, second.key);
      expect(pre.status).toBe(422);
      expect(pre.body).toMatchObject({ code: 'invalid_request', field: 'dataset_id' });
      expect(pre.body.detail).toMatch(/awaiting its upload/);
      // The same URL (token) on the restarted server: refused, and nothing is added to the parts.
      const again = await fetch(second.url + new URL(made.body.upload_url).pathname, {
        method: 'PUT',
        body: 'id,x,y\na,1,yes\n',
        headers: { 'content-type': 'text/csv' },
      });
      const problem = await again.json();
      expect(again.status).toBe(409);
      expect(problem).toMatchObject({ code: 'dataset_sealed' });
      expect(problem.detail).toMatch(/interrupted/);
      expect(await store.getDataset(first.workspaceId, id)).toEqual(left);
    } finally {
      await second.stop();
    }
  } finally {
    await store.close();
  }
});
