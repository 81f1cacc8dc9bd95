// Uploads under abuse (docs/guides/uploads.md), beside the out-of-order, missing, oversized and corrupt
// pieces of upload-pieces.test.ts and the bombs of upload-bomb.test.ts: the same piece sent several times at
// once, /complete sent several times at once, a /complete racing the last piece, and gzip files (one of a few KB
// whose one row inflates past the row limit) given the same problem over the PUT URL and in pieces. Each caller
// gets a clear reply (the piece taken once, one /complete that stores the dataset and upload_already_complete
// or upload_pieces_missing for the others, the row limit named), and a dataset is stored once, whole, or not at
// all. The memory these races take: upload-races-memory.test.ts.
import { parquetWriteBuffer } from 'hyparquet-writer';
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
  it('is a few KB', () => {
    expect(bomb.byteLength).toBeLessThan(20_000);
  });
});

// A gzip sent over the PUT URL or in pieces gets the same problem (docs/decisions/0078-csv-faults-inside-files.md):
// a damaged gzip stream is upload_corrupt; a fault of the CSV inside (not UTF-8, an unclosed quote, a row
// over the row limit) is invalid_request naming `body`, as the same CSV sent plain is. Nothing is stored.
const bomb = gzip(`a,b\n1,2\n${'x'.repeat(9_000_000)},3\n4,5\n`, 9);
const damaged = (() => {
  const g = Buffer.from(gzip(telcoCsv()));
  for (let i = 2000; i < 2100; i++) g[i] = 0xff;
  return g;
})();
const xorMiddle = (g: Buffer) => {
  const out = Buffer.from(g);
  for (let i = out.length >> 1; i < (out.length >> 1) + 64; i++) out[i] ^= 0x5a;
  return out;
};
const FILES: Array<[string, string, () => Buffer, RegExp]> = [
  ['a row that inflates past 8,000,000 bytes', 'invalid_request', () => bomb, /8,?000,?000/],
  ['a CSV that is not UTF-8', 'invalid_request', () => gzip(Buffer.from([...Buffer.from('a,b\n1,'), 0xff, 0xfe, 0x0a])), /UTF-8/],
  ['a quoted field never closed', 'invalid_request', () => gzip('a,b\n"1,2\n3,4\n'), /never closed/],
  ['a gzip stream with damaged bytes', 'upload_corrupt', () => damaged, /gzip stream is corrupt/],
  [
    'a gzip stream with bytes changed mid-stream (it inflates to text that is not CSV first)',
    'upload_corrupt',
    () => xorMiddle(gzip(telcoCsv())),
    /gzip stream is corrupt/,
  ],
  ['a gzip stream cut short', 'upload_corrupt', () => gzip(telcoCsv()).subarray(0, 60_000), /gzip stream is corrupt/],
];

describe('one gzip file, one problem, over the PUT URL and in pieces', () => {
  it.each(FILES)('%s: %s over both routes, naming body; nothing stored', async (_name, code, make, detail) => {
    const file = make();
    const put = await svc.post('/v1/add-dataset', { upload: true }, a.key);
    const res = await fetch(put.body.upload_url, {
      method: 'PUT',
      body: new Uint8Array(file),
      headers: { 'content-type': 'application/gzip' },
    });
    const viaPut = { status: res.status, body: (await res.json()) as any };
    const up = await newUpload();
    const s = newSession();
    for (let i = 0, at = 0; at < file.length; i++, at += 1_000_000)
      expect((await sendPiece(up.url, i, file.subarray(at, at + 1_000_000), s)).status).toBe(200);
    const viaPieces = await complete(up.url, Math.ceil(file.length / 1_000_000), s);
    for (const [route, r] of [
      ['PUT', viaPut],
      ['pieces', viaPieces],
    ] as const) {
      expect(r.status, `${route}: ${JSON.stringify(r.body)}`).toBe(422);
      expect(r.body, route).toMatchObject({ code, field: 'body' });
      expect(r.body.detail, route).toMatch(detail);
    }
    expect((await stored(put.body.dataset_id)).status).toBe('awaiting_upload');
    expect(await stored(up.id)).toMatchObject({ status: 'awaiting_upload', pieces: 0 });
    // and each link takes the good file afterwards
    const good = new Uint8Array(gzip(telcoCsv()));
    const again = await fetch(put.body.upload_url, { method: 'PUT', body: good, headers: { 'content-type': 'application/gzip' } });
    expect(again.status).toBe(200);
    const s2 = newSession();
    expect((await sendPiece(up.url, 0, good, s2)).status).toBe(200);
    expect((await complete(up.url, 1, s2)).status).toBe(200);
  });
});

// The same row over the row limit in a plain CSV, a gzip CSV and a Parquet file (decisions 0078 and 0088): one
// problem, 422 invalid_request naming `body` and the limit, whatever the file's format; nothing stored. A service
// whose row limit is 64 bytes keeps the files small.
describe('a row over the row limit, as CSV, gzip CSV and Parquet', () => {
  let tiny: TestService;
  let k: { key: string; workspaceId: string };
  beforeAll(async () => {
    tiny = await startTestService({ maxUploadRowBytes: 64 });
    k = await tiny.liveCaller('row-limit');
  });
  afterAll(() => tiny?.close());

  const long = 'x'.repeat(100);
  const csv = `a,b\n1,2\n${long},3\n4,5\n`;
  const parquet = parquetWriteBuffer({
    columnData: [
      { name: 'a', data: ['1', long, '4'], type: 'STRING' },
      { name: 'b', data: [2, 3, 5], type: 'INT32' },
    ],
    statistics: false,
  });

  it('is 422 invalid_request naming body, the line and the limit in each; nothing stored', async () => {
    const put = await tiny.post('/v1/add-dataset', { upload: true }, k.key);
    const res = await fetch(put.body.upload_url, { method: 'PUT', body: csv, headers: { 'content-type': 'text/csv' } });
    const replies: Array<[string, { status: number; body: any }]> = [['CSV over PUT', { status: res.status, body: await res.json() }]];
    for (const [name, file] of [
      ['gzip CSV in pieces', new Uint8Array(gzip(csv))],
      ['Parquet in pieces', new Uint8Array(parquet)],
    ] as const) {
      const up = await tiny.post('/v1/add-dataset', { upload: true }, k.key);
      const s = newSession();
      expect((await sendPiece(up.body.upload_pieces_url, 0, file, s)).status).toBe(200);
      replies.push([name, await complete(up.body.upload_pieces_url, 1, s)]);
      expect(await tiny.services.store.listDatasetPieceSizes(k.workspaceId, up.body.dataset_id)).toEqual([]);
      expect((await tiny.services.store.getDataset(k.workspaceId, up.body.dataset_id))?.status).toBe('awaiting_upload');
    }
    for (const [name, r] of replies) {
      expect(r.status, `${name}: ${JSON.stringify(r.body).slice(0, 300)}`).toBe(422);
      expect(r.body, name).toMatchObject({ code: 'invalid_request', field: 'body' });
      expect(r.body.detail, name).toMatch(/line 3 .*longer than 64 bytes, the most one row of an upload may hold/);
    }
    expect((await tiny.services.store.getDataset(k.workspaceId, put.body.dataset_id))?.status).toBe('awaiting_upload');
  });
});
