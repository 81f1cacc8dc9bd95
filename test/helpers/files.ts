// Files of the Telco table in the forms docs/reference/datasets.md#uploads accepts: CSV pieces cut at row ends (header repeated), a
// gzip CSV and a typed Parquet file (hyparquet-writer), and an upload client that sends them in pieces.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { parquetWriteBuffer } from 'hyparquet-writer';

export const TELCO_PATH = new URL('../fixtures/real/telco_churn.csv', import.meta.url);
export const telcoCsv = (): string => readFileSync(TELCO_PATH, 'utf8');

/** The Telco table as Parquet, each column typed as its values allow (INT32, DOUBLE, else STRING; blanks null). */
export function telcoParquet(csv = telcoCsv()): Uint8Array {
  const [head, ...rows] = csv
    .trimEnd()
    .split('\n')
    .map((l) => l.split(','));
  const columnData = head.map((name, j) => {
    const values = rows.map((r) => r[j]);
    const present = values.filter((v) => v !== '');
    const type = present.every((v) => /^-?\d+$/.test(v)) ? 'INT32' : present.every((v) => Number.isFinite(Number(v))) ? 'DOUBLE' : 'STRING';
    const data = values.map((v) => (v === '' ? null : type === 'STRING' ? v : Number(v)));
    return { name, data, type: type as 'INT32' | 'DOUBLE' | 'STRING', nullable: true };
  });
  return new Uint8Array(parquetWriteBuffer({ columnData }));
}

export const gzip = (bytes: Uint8Array | string, level = 6): Buffer => gzipSync(bytes, { level });

/** CSV text cut into pieces of about `size` bytes at row ends, each after the first repeating the header (docs/reference/datasets.md#uploads). */
export function csvPieces(csv: string, size: number): Buffer[] {
  const all = Buffer.from(csv);
  const headerEnd = all.indexOf(0x0a) + 1;
  const header = all.subarray(0, headerEnd);
  const out: Buffer[] = [];
  let at = 0;
  while (at < all.length) {
    let end = Math.min(all.length, at + size);
    if (end < all.length) end = all.indexOf(0x0a, end - 1) + 1 || all.length;
    const body = all.subarray(at, end);
    out.push(at === 0 ? body : Buffer.concat([header, body]));
    at = end;
  }
  return out;
}

/** Raw slices of `size` bytes (gzip and Parquet pieces are cut anywhere). */
export function slices(bytes: Uint8Array, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(Buffer.from(bytes.subarray(at, at + size)));
  return out;
}

export const newSession = (): string => randomBytes(16).toString('hex');

export interface Reply {
  status: number;
  body: any;
}

export async function sendPiece(piecesUrl: string, index: number | string, bytes: Uint8Array, session: string): Promise<Reply> {
  const res = await fetch(`${piecesUrl}/${index}`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', 'x-upload-session': session },
    body: bytes as Uint8Array<ArrayBuffer>,
  });
  return { status: res.status, body: await res.json() };
}

export async function complete(piecesUrl: string, pieces: number, session: string): Promise<Reply> {
  const res = await fetch(`${piecesUrl}/complete`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-upload-session': session },
    body: JSON.stringify({ pieces }),
  });
  return { status: res.status, body: await res.json() };
}

/** Sends every piece in order, then /complete; returns the complete reply. */
export async function uploadInPieces(piecesUrl: string, pieces: Uint8Array[], session = newSession()): Promise<Reply> {
  for (let i = 0; i < pieces.length; i++) {
    const r = await sendPiece(piecesUrl, i, pieces[i], session);
    if (r.status !== 200) return r;
  }
  return complete(piecesUrl, pieces.length, session);
}
