// Uploads under abuse (docs/guides/uploads.md), beside the out-of-order, missing, oversized and corrupt
// pieces of upload-pieces.test.ts and the bombs of upload-bomb.test.ts: the same piece sent several times at
// once, /complete sent several times at once, a /complete racing the last piece, and a gzip of a few KB whose
// one row inflates past the row limit. Each caller gets a clear reply (the piece taken once, one /complete
// that stores the dataset and upload_already_complete or upload_pieces_missing for the others, the row
// limit named), and a dataset is stored once, whole, or not at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { complete, csvPieces, gzip, newSession, sendPiece, telcoCsv } from '../../helpers/files.ts';

let svc: TestService;
let a: { key: string; workspaceId: string };
let pieces: Buffer[];

beforeAll(async () => {
  svc = await startTestService();
  a = await svc.liveCaller('races');
  pieces = csvPieces(telcoCsv(), 300_000);
});
afterAll(() => svc.close());

async function newUpload(): Promise<{ id: string; url: string }> {
  const r = await svc.post('/v1/add-dataset', { upload: true }, a.key);
  expect(r.status).toBe(200);
  return { id: r.body.dataset_id, url: r.body.upload_pieces_url };
}

const stored = async (id: string) => {
  const d = await svc.services.store.getDataset(a.workspaceId, id);
  return { status: d?.status, rows: d?.row_count, pieces: (await svc.services.store.listDatasetPieceSizes(a.workspaceId, id)).length };
};

describe('uploads in pieces, raced', () => {
  it('every piece sent four times at once: each taken once, the file whole', async () => {
    const up = await newUpload();
    const s = newSession();
    for (let i = 0; i < pieces.length; i++) {
      const replies = await Promise.all([0, 1, 2, 3].map(() => sendPiece(up.url, i, pieces[i], s)));
      for (const r of replies) expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(replies.filter((r) => r.body.resent === false)).toHaveLength(1);
      expect(new Set(replies.map((r) => r.body.pieces_received))).toEqual(new Set([i + 1]));
    }
    const done = await complete(up.url, pieces.length, s);
    expect(done.status).toBe(200);
    expect(done.body.rows).toBe(7043);
    expect(await stored(up.id)).toMatchObject({ status: 'ready', rows: 7043, pieces: pieces.length });
  });

  it('/complete sent five times at once: one stores the dataset, the others are upload_already_complete', async () => {
    const up = await newUpload();
    const s = newSession();
    for (let i = 0; i < pieces.length; i++) expect((await sendPiece(up.url, i, pieces[i], s)).status).toBe(200);
    const replies = await Promise.all([0, 1, 2, 3, 4].map(() => complete(up.url, pieces.length, s)));
    const ok = replies.filter((r) => r.status === 200);
    expect(ok, JSON.stringify(replies.map((r) => [r.status, r.body.code]))).toHaveLength(1);
    for (const r of replies.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(409);
      expect(r.body).toMatchObject({ code: 'upload_already_complete', dataset_id: up.id });
    }
    expect(ok[0].body.rows).toBe(7043);
    expect(await stored(up.id)).toMatchObject({ status: 'ready', rows: 7043 });
    // and the dataset is read as the whole file
    const pre = await svc.post('/v1/preflight', { dataset_id: up.id }, a.key);
    expect(pre.status, JSON.stringify(pre.body).slice(0, 300)).toBe(200);
    expect(JSON.stringify(pre.body)).toContain('7043');
  });

  it('/complete racing the last piece: either the piece lands first and the upload completes, or /complete names the missing piece and nothing is stored', async () => {
    const up = await newUpload();
    const s = newSession();
    const last = pieces.length - 1;
    for (let i = 0; i < last; i++) expect((await sendPiece(up.url, i, pieces[i], s)).status).toBe(200);
    const [piece, done] = await Promise.all([sendPiece(up.url, last, pieces[last], s), complete(up.url, pieces.length, s)]);
    if (done.status === 200) {
      expect(piece.status).toBe(200);
      expect(await stored(up.id)).toMatchObject({ status: 'ready', rows: 7043 });
    } else {
      expect(done.status).toBe(409);
      expect(done.body).toMatchObject({ code: 'upload_pieces_missing' });
      expect((await stored(up.id)).status).toBe('awaiting_upload');
      // the piece landed meanwhile (or is sent again): /complete then stores the whole file
      if (piece.status !== 200) expect((await sendPiece(up.url, last, pieces[last], s)).status).toBe(200);
      const again = await complete(up.url, pieces.length, s);
      expect(again.status).toBe(200);
      expect(again.body.rows).toBe(7043);
    }
  });
});

describe('a gzip of a few KB whose one row inflates past 8,000,000 bytes', () => {
  const small = gzip(`a,b\n1,2\n${'x'.repeat(9_000_000)},3\n4,5\n`, 9);

  it('is a few KB', () => {
    expect(small.byteLength).toBeLessThan(20_000);
  });

  it('in one piece: /complete is upload_corrupt naming the row limit; nothing is stored', async () => {
    const up = await newUpload();
    const s = newSession();
    expect((await sendPiece(up.url, 0, small, s)).status).toBe(200);
    const done = await complete(up.url, 1, s);
    expect(done.status, JSON.stringify(done.body)).toBe(422);
    expect(done.body.code).toBe('upload_corrupt');
    expect(done.body.detail).toMatch(/8,?000,?000/);
    expect((await stored(up.id)).status).not.toBe('ready');
  });

  it('over the presigned PUT: 422 invalid_request naming the row limit; nothing is stored', async () => {
    const r = await svc.post('/v1/add-dataset', { upload: true }, a.key);
    const res = await fetch(r.body.upload_url, {
      method: 'PUT',
      body: new Uint8Array(small),
      headers: { 'content-type': 'application/gzip' },
    });
    const body = (await res.json()) as { code: string; detail: string };
    expect(res.status, JSON.stringify(body)).toBe(422);
    // read as it arrives, as a plain CSV PUT is: the row limit is the request's (invalid_request, field body)
    expect(body.code).toBe('invalid_request');
    expect(body.detail).toMatch(/8,?000,?000/);
    expect((await stored(r.body.dataset_id)).status).not.toBe('ready');
  });
});
