// Stores a file of any size as a dataset through an upload in pieces (docs/reference/datasets.md#uploads,
// docs/guides/uploads.md): `add-dataset {upload: true}`, then pieces of at most 4,000,000 bytes to the
// pieces URL with one `x-upload-session`, then `/complete`. A CSV is cut at row ends (never inside a quoted
// field) and every piece repeats the header; a gzip CSV or a Parquet file is cut into raw slices.
import { randomBytes } from 'node:crypto';
import type { ServiceClient } from './client.ts';

export const PIECE_BYTES = 4_000_000;
export const MAX_PIECES = 250;

export type FileFormat = 'csv' | 'gzip' | 'parquet';

export function formatOf(bytes: Uint8Array): FileFormat {
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return 'gzip';
  if (bytes[0] === 0x50 && bytes[1] === 0x41 && bytes[2] === 0x52 && bytes[3] === 0x31) return 'parquet'; // PAR1
  return 'csv';
}

/** The pieces a file is sent as: each a list of byte ranges joined in order (a CSV piece is header + rows). */
export function piecesOf(bytes: Uint8Array, pieceBytes = PIECE_BYTES): Uint8Array[] {
  if (formatOf(bytes) !== 'csv') {
    const out: Uint8Array[] = [];
    for (let at = 0; at < bytes.length; at += pieceBytes) out.push(bytes.subarray(at, Math.min(bytes.length, at + pieceBytes)));
    return out;
  }
  // Row ends: a newline outside quotes (a doubled quote inside a field toggles twice, so it cancels out).
  const ends: number[] = [];
  let quoted = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === 0x22) quoted = !quoted;
    else if (b === 0x0a && !quoted) ends.push(i + 1);
  }
  if (ends.length === 0 || ends[ends.length - 1] !== bytes.length) ends.push(bytes.length);
  const headerEnd = ends[0];
  const header = bytes.subarray(0, headerEnd);
  const room = pieceBytes - header.length;
  const out: Uint8Array[] = [];
  let start = headerEnd;
  let k = 1;
  while (start < bytes.length) {
    let end = start;
    while (k < ends.length && ends[k] - start <= room) end = ends[k++];
    if (end === start) {
      throw new Error(
        `a row starting at byte ${start} is longer than a piece can hold (${pieceBytes.toLocaleString('en-US')} bytes with the header)`,
      );
    }
    const piece = new Uint8Array(header.length + (end - start));
    piece.set(header, 0);
    piece.set(bytes.subarray(start, end), header.length);
    out.push(piece);
    start = end;
  }
  if (out.length === 0) out.push(header); // a header alone: the service says what is wrong with it
  return out;
}

export interface UploadProgress {
  piece: number;
  pieces: number;
  bytesSent: number;
  bytesTotal: number;
}

/** Uploads `bytes` as a new dataset; resolves with the `/complete` reply (`dataset_id`, `rows`, ...). */
export async function uploadFile(
  client: ServiceClient,
  bytes: Uint8Array,
  opts: { filename?: string; onProgress?: (p: UploadProgress) => void; pieceBytes?: number } = {},
): Promise<Record<string, any>> {
  const pieces = piecesOf(bytes, opts.pieceBytes);
  if (pieces.length > MAX_PIECES) {
    throw new Error(`the file needs ${pieces.length} pieces; an upload takes at most ${MAX_PIECES} (about 1 GB)`);
  }
  const started = (await client.post('/v1/add-dataset', { upload: true, ...(opts.filename ? { filename: opts.filename } : {}) })).body;
  const piecesUrl: string = started.upload_pieces_url;
  const session = randomBytes(16).toString('hex');
  const total = pieces.reduce((n, p) => n + p.length, 0);
  let sent = 0;
  for (const [i, piece] of pieces.entries()) {
    await client.request('POST', `${piecesUrl}/${i}`, {
      body: piece as Uint8Array<ArrayBuffer>,
      headers: { 'x-upload-session': session, 'content-type': 'application/octet-stream' },
      repeatable: true, // a resent piece changes nothing
      key: false, // the signed link is the authority
    });
    sent += piece.length;
    opts.onProgress?.({ piece: i + 1, pieces: pieces.length, bytesSent: sent, bytesTotal: total });
  }
  const done = await client.request('POST', `${piecesUrl}/complete`, {
    json: { pieces: pieces.length },
    headers: { 'x-upload-session': session },
    repeatable: true,
    key: false,
  });
  return done.body;
}
