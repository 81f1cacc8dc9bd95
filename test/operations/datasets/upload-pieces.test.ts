// Uploads in pieces (docs/reference/datasets.md#formats) over real HTTP: CSV, gzip CSV and Parquet pieces of the Telco table answer as
// the CSV does (same content hash, same model_ref); a piece out of order, another session, a missing piece, a
// second /complete, a corrupt gzip or Parquet file are each their own problem, and nothing is half-stored.
// A Parquet column of raw bytes is read as text when its values are UTF-8, else refused by name.
import { parquetMetadata } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { complete, csvPieces, gzip, newSession, sendPiece, slices, telcoCsv, telcoParquet, uploadInPieces } from '../../helpers/files.ts';

let svc: TestService;
let a: { key: string; workspaceId: string };
let csv: string;

beforeAll(async () => {
  svc = await startTestService();
  a = await svc.liveCaller('pieces');
  csv = telcoCsv();
});
afterAll(() => svc.close());

async function newUpload(): Promise<{ id: string; pieces: string; body: any }> {
  const r = await svc.post('/v1/add-dataset', { upload: true }, a.key);
  expect(r.status).toBe(200);
  return { id: r.body.dataset_id, pieces: r.body.upload_pieces_url, body: r.body };
}

const ASK = {
  entity_column: 'customer_id',
  subject_kind: 'org',
  questions: { q: { type: 'yesno', outcome_column: 'churn' } },
  cases: { ids: ['c00001', 'c00002'] },
};
const askOn = (data: unknown) => svc.post('/v1/ask', { ...ASK, data }, a.key);

async function status(id: string) {
  const d = await svc.services.store.getDataset(a.workspaceId, id);
  const pieces = await svc.services.store.listDatasetPieceSizes(a.workspaceId, id);
  return { status: d?.status, pieces: pieces.length, session: await svc.services.store.getUploadSession(id) };
}

describe('add-dataset upload: true', () => {
  it('names the pieces URL and the upload page on this service, beside upload_url', async () => {
    const { body } = await newUpload();
    const token = body.upload_url.split('/').pop();
    expect(body).toMatchObject({
      status: 'awaiting_upload',
      upload_pieces_url: `${svc.url}/v1/uploads/${token}`,
      upload_page: `${svc.url}/upload/${token}`,
      upload_page_expires_in: 3600,
    });
  });
});

/**
 * A gzip or Parquet upload keeps the rows and columns of the CSV it holds (counted at /complete, null in the
 * reply), so an ask reads it on the request thread only when it is small (read.ts).
 */
async function expectCounted(id: string): Promise<void> {
  const d = await svc.services.store.getDataset(a.workspaceId, id);
  expect(d?.row_count).toBe(7043);
  expect(JSON.parse(d?.columns ?? 'null')).toHaveLength(21);
}

describe('the Telco table uploaded in pieces answers as the CSV does', () => {
  let inline: any;
  beforeAll(async () => {
    inline = (await askOn({ csv })).body;
    expect(inline.answers.q.state).toBe('answered');
  });

  it('as CSV pieces cut at row ends (each repeating the header): the file itself, rows and columns known', async () => {
    const up = await newUpload();
    const pieces = csvPieces(csv, 200_000);
    expect(pieces.length).toBeGreaterThan(3);
    const done = await uploadInPieces(up.pieces, pieces);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ dataset_id: up.id, status: 'ready', rows: 7043, format: 'csv', pieces: pieces.length });
    expect(done.body.columns).toHaveLength(21);
    expect(done.body.bytes).toBe(Buffer.byteLength(csv));
    const asked = (await askOn({ dataset_id: up.id })).body;
    expect(asked.record.content_hash).toBe(inline.record.content_hash);
    expect(asked.answers.q.model_ref).toBe(inline.answers.q.model_ref);
  });

  it('as a gzip CSV in raw slices: hashed as the CSV it holds, rows and columns null (passed through)', async () => {
    const up = await newUpload();
    const pieces = slices(gzip(csv), 40_000);
    const done = await uploadInPieces(up.pieces, pieces);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ dataset_id: up.id, status: 'ready', rows: null, columns: null, format: 'gzip' });
    await expectCounted(up.id);
    const asked = (await askOn({ dataset_id: up.id })).body;
    expect(asked.record.content_hash).toBe(inline.record.content_hash);
    expect(asked.answers.q.model_ref).toBe(inline.answers.q.model_ref);
    expect(asked.answers.q.cases.map((c: any) => c.p)).toEqual(inline.answers.q.cases.map((c: any) => c.p));
  });

  it('as a typed Parquet file in raw slices: read as its canonical CSV, which is the Telco file byte for byte', async () => {
    const up = await newUpload();
    const file = telcoParquet(csv);
    const done = await uploadInPieces(up.pieces, slices(file, 50_000));
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'ready', rows: null, columns: null, format: 'parquet', bytes: file.byteLength });
    await expectCounted(up.id);
    const asked = (await askOn({ dataset_id: up.id })).body;
    expect(asked.record.content_hash).toBe(inline.record.content_hash);
    expect(asked.answers.q.model_ref).toBe(inline.answers.q.model_ref);
    expect(asked.answers.q.cases).toEqual(inline.answers.q.cases.map((c: any) => ({ ...c })));
  });
});

describe('pieces go in order under one session', () => {
  it('a resent piece is ignored; a piece ahead of the next is upload_piece_out_of_order naming next_piece', async () => {
    const up = await newUpload();
    const [p0, p1, p2] = csvPieces(csv, 300_000);
    const s = newSession();
    expect((await sendPiece(up.pieces, 0, p0, s)).body).toMatchObject({ piece: 0, resent: false, pieces_received: 1, format: 'csv' });
    const again = await sendPiece(up.pieces, 0, p0, s);
    expect(again).toMatchObject({ status: 200, body: { piece: 0, resent: true, pieces_received: 1 } });
    const ahead = await sendPiece(up.pieces, 2, p2, s);
    expect(ahead.status).toBe(409);
    expect(ahead.body).toMatchObject({ code: 'upload_piece_out_of_order', next_piece: 1 });
    expect((await sendPiece(up.pieces, 1, p1, s)).body).toMatchObject({ pieces_received: 2 });
  });

  it('a piece of another session is upload_session_mismatch; piece 0 of a new session starts over', async () => {
    const up = await newUpload();
    const pieces = csvPieces(csv, 300_000);
    const first = newSession();
    await sendPiece(up.pieces, 0, pieces[0], first);
    await sendPiece(up.pieces, 1, pieces[1], first);
    const other = newSession();
    const stray = await sendPiece(up.pieces, 2, pieces[2], other);
    expect(stray.status).toBe(409);
    expect(stray.body).toMatchObject({ code: 'upload_session_mismatch', field: 'x-upload-session' });
    const done = await uploadInPieces(up.pieces, pieces, other);
    expect(done.status).toBe(200);
    expect(done.body.rows).toBe(7043);
  });

  it('a missing piece at /complete is upload_pieces_missing; the pieces stay, the missing one then completes it', async () => {
    const up = await newUpload();
    const pieces = csvPieces(csv, 300_000);
    const s = newSession();
    await sendPiece(up.pieces, 0, pieces[0], s);
    await sendPiece(up.pieces, 1, pieces[1], s);
    const early = await complete(up.pieces, pieces.length, s);
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ code: 'upload_pieces_missing', pieces_received: 2, next_piece: 2, field: 'pieces' });
    expect(await status(up.id)).toMatchObject({ status: 'awaiting_upload', pieces: 2 });
    const notYet = await svc.post('/v1/ask', { ...ASK, data: { dataset_id: up.id } }, a.key);
    expect(notYet.status).toBe(422);
    for (let i = 2; i < pieces.length; i++) await sendPiece(up.pieces, i, pieces[i], s);
    expect((await complete(up.pieces, pieces.length, s)).status).toBe(200);
  });

  it('a second /complete is upload_already_complete, and so is a piece after it', async () => {
    const up = await newUpload();
    const s = newSession();
    const pieces = csvPieces(csv, 500_000);
    expect((await uploadInPieces(up.pieces, pieces, s)).status).toBe(200);
    const again = await complete(up.pieces, pieces.length, s);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'upload_already_complete', dataset_id: up.id });
    expect((await sendPiece(up.pieces, 0, pieces[0], s)).body.code).toBe('upload_already_complete');
  });

  it('refuses a piece over 4,000,000 bytes (413), a missing session header, and a CSV piece without the header', async () => {
    const up = await newUpload();
    const s = newSession();
    const big = await sendPiece(up.pieces, 0, Buffer.alloc(4_000_001, 0x61), s);
    expect(big.status).toBe(413);
    const res = await fetch(`${up.pieces}/0`, { method: 'POST', body: 'a,b\n1,2\n' });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ code: 'invalid_request', field: 'x-upload-session' });
    await sendPiece(up.pieces, 0, Buffer.from('a,b\n1,2\n'), s);
    const headless = await sendPiece(up.pieces, 1, Buffer.from('3,4\n'), s);
    expect(headless.status).toBe(422);
    expect(headless.body.detail).toMatch(/header row of piece 0/);
    expect(await status(up.id)).toMatchObject({ status: 'awaiting_upload', pieces: 1 });
  });
});

describe('a corrupt file', () => {
  it.each([
    ['a gzip stream with damaged bytes', () => corruptMiddle(gzip(csv))],
    ['a gzip stream cut short', () => gzip(csv).subarray(0, 60_000)],
    ['a Parquet file cut short', () => Buffer.from(telcoParquet(csv)).subarray(0, 100_000)],
    ['a Parquet file with a damaged footer', () => corruptFooter(Buffer.from(telcoParquet(csv)))],
    ['bytes that begin with PAR1 but are no Parquet file', () => Buffer.concat([Buffer.from('PAR1'), Buffer.alloc(5000, 7)])],
  ])('%s is upload_corrupt at /complete; its pieces go, the dataset awaits a new upload', async (_name, make) => {
    const up = await newUpload();
    const s = newSession();
    const done = await uploadInPieces(up.pieces, slices(make(), 30_000), s);
    expect(done.status).toBe(422);
    expect(done.body).toMatchObject({ code: 'upload_corrupt' });
    expect(done.body.detail).toMatch(/nothing was stored/);
    expect(await status(up.id)).toEqual({ status: 'awaiting_upload', pieces: 0, session: null });
    // the same link takes the whole file again, from piece 0 with a new session
    const retry = await uploadInPieces(up.pieces, slices(gzip(csv), 100_000));
    expect(retry.status).toBe(200);
  });
});

/** The Parquet file with bytes of its footer (the metadata before the last 8 bytes) overwritten. */
function corruptFooter(bytes: Buffer): Buffer {
  const out = Buffer.from(bytes);
  const footer = out.readUInt32LE(out.length - 8);
  for (let i = out.length - 8 - footer; i < out.length - 8 - footer + 40; i++) out[i] = 0xff;
  return out;
}

/** The file with a run of bytes in its middle overwritten. */
function corruptMiddle(bytes: Buffer): Buffer {
  const out = Buffer.from(bytes);
  const mid = Math.floor(out.length / 2);
  for (let i = mid; i < mid + 64; i++) out[i] ^= 0x5a;
  return out;
}

describe('a Parquet column of raw bytes (BYTE_ARRAY without a UTF-8 annotation)', () => {
  const ids = Array.from({ length: 120 }, (_, i) => `c${String(i).padStart(5, '0')}`);
  const churn = ids.map((_, i) => (i % 3 === 0 ? 'Yes' : 'No'));
  /** The table with `code` as raw bytes; the schema is checked to carry no text annotation for it. */
  function withBytes(code: Uint8Array[]): Uint8Array {
    const file = parquetWriteBuffer({
      columnData: [
        { name: 'customer_id', data: ids, type: 'STRING' },
        { name: 'code', data: code, type: 'BYTE_ARRAY' },
        { name: 'churn', data: churn, type: 'STRING' },
      ],
    });
    const element = parquetMetadata(file).schema.find((e) => e.name === 'code')!;
    expect(element).toMatchObject({ type: 'BYTE_ARRAY' });
    expect(element.converted_type).toBeUndefined();
    expect(element.logical_type).toBeUndefined();
    return new Uint8Array(file);
  }

  it('whose every value is UTF-8 is read as text: it answers as the CSV of the same values', async () => {
    const codes = ids.map((_, i) => ['north', 'south', 'ost-süd', 'west'][i % 4]);
    const up = await newUpload();
    const done = await uploadInPieces(up.pieces, [withBytes(codes.map((c) => new TextEncoder().encode(c)))]);
    expect(done.status).toBe(200);
    const text = 'customer_id,code,churn\n' + ids.map((id, i) => `${id},${codes[i]},${churn[i]}\n`).join('');
    const fromCsv = await svc.post('/v1/ask', { ...ASK, cases: { ids: ['c00001'] }, data: { csv: text } }, a.key);
    const fromFile = await svc.post('/v1/ask', { ...ASK, cases: { ids: ['c00001'] }, data: { dataset_id: up.id } }, a.key);
    expect(fromFile.status).toBe(200);
    expect(fromFile.body.record.content_hash).toBe(fromCsv.body.record.content_hash);
  });

  it('with a value that is not UTF-8 is upload_unreadable naming the column; nothing is kept', async () => {
    const codes = ids.map((_, i) => (i === 77 ? Uint8Array.of(0x4e, 0xff, 0xfe, 0x00) : new TextEncoder().encode('north')));
    const up = await newUpload();
    const done = await uploadInPieces(up.pieces, [withBytes(codes)]);
    expect(done.status).toBe(422);
    expect(done.body).toMatchObject({ code: 'upload_unreadable', field: 'body' });
    expect(done.body.detail).toMatch(/column "code" holds bytes that are not UTF-8 text/);
    expect(await status(up.id)).toEqual({ status: 'awaiting_upload', pieces: 0, session: null });
  });
});
