// How a stored dataset's pieces are kept and read back (docs/reference/datasets.md#lifecycle: pieces append in order; docs/reference/datasets.md).
//
// Stored bytes of one piece = one kind byte + the payload exactly as received:
//   'c' (0x63) + CSV text as UTF-8 (inline csv or fetch_url, byte for byte),
//   'r' (0x72) + JSON.stringify(rows) as UTF-8 (the bytes record.ts hashes for inline rows),
//   'p' (0x70) + one part of a CSV too large for one piece (a presigned upload, operations/datasets/upload-dataset.ts), cut at
//       a row boundary and stored over consecutive pieces: total length of the whole CSV (8 bytes,
//       big-endian), this part's offset in it (8 bytes), length H of a header copy (4 bytes), H bytes
//       of the CSV's header row (none in the part at offset 0, which starts with the header), then
//       the part's bytes of the CSV. Header copy + bytes parse alone as CSV, so every piece is read
//       the same way (one table per piece, concatenated); only the bytes of the CSV are hashed.
//   'u' (0x75) + one piece of an upload in pieces (docs/reference/datasets.md#formats, upload-pieces.ts): its format ('c' CSV, 'g' gzip,
//       'q' Parquet), its offset in the file (8 bytes), the length H of a header copy (4 bytes), H bytes of
//       the CSV's header row (CSV pieces after the first, which repeat it), then the piece's bytes of the
//       file. Gzip and Parquet pieces are raw slices (H = 0), joined byte for byte and decoded when read
//       (stored-file.ts); the file runs to the dataset's last piece, so no total length is kept.
// The record's content hash (docs/design/architecture.md#data-flow-2) runs over logical pieces: a 'c' or
// 'r' piece, or all parts of one CSV (framed as one 'c' piece of the whole length):
//   one logical piece -> SHA-256 of its payload, so a dataset stored in one piece (or uploaded in any
//                 number of parts) hashes (and fits) exactly like the same csv or rows sent inline
//                 (docs/reference/ask.md#fits: same bytes, same answer); a gzip CSV hashes as the CSV it holds, a Parquet
//                 file as its canonical CSV (host/table/parquet.ts; docs/decisions/README.md);
//   n > 1      -> SHA-256 of 0xFF, then per piece: kind byte, payload length (8-byte big-endian),
//                 payload. 0xFF never occurs in UTF-8, so no inline payload can frame the same way,
//                 and moving a piece boundary changes the hash (moving a part boundary does not).
import { createHash, type Hash } from 'node:crypto';
import { parseCsv } from './csv.ts';
import { rowsToTable } from './rows.ts';
import type { Cell, RawTable } from './types.ts';
import type { UploadFormat } from '../store/index.ts';

export type PieceKind = 'csv' | 'rows';

const KIND_BYTE: Record<PieceKind, number> = { csv: 0x63, rows: 0x72 };
const PART_BYTE = 0x70;
const UPLOAD_BYTE = 0x75;
/** Bytes of an upload piece before its header copy: kind, format, offset, header copy length. */
export const UPLOAD_HEAD_BYTES = 1 + 1 + 8 + 4;
const FORMAT_BYTE: Record<UploadFormat, number> = { csv: 0x63, gzip: 0x67, parquet: 0x71 };
const FRAME_START = 0xff;
/** Bytes of a part before its header copy: kind, total length, offset, header copy length. */
export const PART_HEAD_BYTES = 1 + 8 + 8 + 4;

export interface Piece {
  kind: PieceKind;
  /** A piece of an upload in pieces: the file's format (gzip and Parquet pieces are raw slices, decoded on read). */
  upload?: UploadFormat;
  /** The bytes this piece adds to the record (and to its hash). */
  payload: Uint8Array;
  /** Set for a part of a CSV stored over several pieces. */
  part?: PartInfo;
}

export interface PartInfo {
  /** Length of the whole CSV (null: it runs to the dataset's last piece) and offset of this part's payload in it. */
  total: number | null;
  offset: number;
  /** Header copy + payload: this part as a CSV on its own. */
  text: Uint8Array;
}

/** Writes a part's head (kind, total, offset, header copy length) at the start of `into`. */
export function writePartHead(into: Buffer, total: number, offset: number, headerLength: number): void {
  into[0] = PART_BYTE;
  into.writeBigUInt64BE(BigInt(total), 1);
  into.writeBigUInt64BE(BigInt(offset), 9);
  into.writeUInt32BE(headerLength, 17);
}

/** The bytes to store for a piece: kind byte + payload. */
export function encodePiece(kind: PieceKind, payload: string | Uint8Array): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const out = Buffer.allocUnsafe(body.byteLength + 1);
  out[0] = KIND_BYTE[kind];
  out.set(body, 1);
  return out;
}

/** The bytes to store for a piece of an upload in pieces ('u' above). */
export function encodeUploadPiece(format: UploadFormat, offset: number, header: Uint8Array, bytes: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(UPLOAD_HEAD_BYTES + header.byteLength + bytes.byteLength);
  out[0] = UPLOAD_BYTE;
  out[1] = FORMAT_BYTE[format];
  out.writeBigUInt64BE(BigInt(offset), 2);
  out.writeUInt32BE(header.byteLength, 10);
  out.set(header, UPLOAD_HEAD_BYTES);
  out.set(bytes, UPLOAD_HEAD_BYTES + header.byteLength);
  return out;
}

/** The format of a stored upload piece, or null for any other piece. */
export function uploadFormatOf(content: Uint8Array): UploadFormat | null {
  if (content[0] !== UPLOAD_BYTE) return null;
  const f = (Object.keys(FORMAT_BYTE) as UploadFormat[]).find((k) => FORMAT_BYTE[k] === content[1]);
  if (!f) throw new Error(`stored upload piece has an unknown format byte ${content[1]}`);
  return f;
}

export function decodePiece(content: Uint8Array): Piece {
  const format = uploadFormatOf(content);
  if (format !== null) {
    const view = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
    const headerLength = view.readUInt32BE(10);
    const offset = Number(view.readBigUInt64BE(2));
    const text = content.subarray(UPLOAD_HEAD_BYTES);
    return {
      kind: 'csv',
      upload: format,
      payload: content.subarray(UPLOAD_HEAD_BYTES + headerLength),
      part: { total: null, offset, text },
    };
  }
  if (content[0] === PART_BYTE) {
    const view = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
    const headerLength = view.readUInt32BE(17);
    if (view.byteLength < PART_HEAD_BYTES + headerLength) throw new Error('stored dataset part is shorter than its head says');
    const part = {
      total: Number(view.readBigUInt64BE(1)),
      offset: Number(view.readBigUInt64BE(9)),
      text: content.subarray(PART_HEAD_BYTES),
    };
    return { kind: 'csv', payload: content.subarray(PART_HEAD_BYTES + headerLength), part };
  }
  const kind = content[0] === KIND_BYTE.csv ? 'csv' : content[0] === KIND_BYTE.rows ? 'rows' : undefined;
  if (kind === undefined) throw new Error(`stored dataset piece has an unknown kind byte ${content[0]}`);
  return { kind, payload: content.subarray(1) };
}

/** Parses one piece (a part with its header copy); `field` is named in errors. */
export function pieceTable(piece: Piece, field: string): RawTable {
  const bytes = piece.part?.text ?? piece.payload;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  if (piece.kind === 'csv') return parseCsv(text, { field });
  return rowsToTable(JSON.parse(text) as object[], field);
}

/**
 * Content hash over pieces fed in order (framing above). Throws on parts that do not join up into
 * whole CSVs (one missing, repeated or out of order), so an incomplete upload is never read as a record.
 */
export class RecordHasher {
  private readonly framed: Hash = createHash('sha256').update(Uint8Array.of(FRAME_START));
  private readonly single: Hash = createHash('sha256');
  /** Logical pieces begun. */
  private count = 0;
  /** While inside a CSV stored in parts: its length (null: to the last piece) and the offset the next part must start at. */
  private split: { total: number | null; next: number } | null = null;

  add(piece: Piece): void {
    const { part, payload } = piece;
    if (this.split !== null) {
      if (part === undefined || part.total !== this.split.total || part.offset !== this.split.next) throw missingPart();
    } else {
      if (part !== undefined && part.offset !== 0) throw missingPart();
      this.count++;
      const head = Buffer.alloc(9);
      head[0] = KIND_BYTE[piece.kind];
      head.writeBigUInt64BE(BigInt(part?.total ?? payload.byteLength), 1);
      this.framed.update(head);
      if (part !== undefined) this.split = { total: part.total, next: 0 };
    }
    if (this.count === 1) this.single.update(payload);
    this.framed.update(payload);
    if (this.split !== null && this.split.total !== null) {
      this.split.next += payload.byteLength;
      if (this.split.next > this.split.total) throw missingPart();
      if (this.split.next === this.split.total) this.split = null;
    } else if (this.split !== null) this.split.next += payload.byteLength;
  }

  digest(): string {
    // an upload in pieces runs to the last piece; parts of a known length must all be there
    if (this.split !== null && this.split.total !== null) throw missingPart();
    const framed = this.framed.digest('hex');
    const single = this.single.digest('hex');
    return this.count === 1 ? single : framed;
  }
}

function missingPart(): Error {
  // upload-dataset.ts marks a dataset ready only with its last part, so this means the store is inconsistent.
  return new Error('stored dataset parts do not join up into the whole CSV (a part is missing)');
}

/** Appends tables whose column sets are equal, aligned by name to the first table's column order. */
export class TableConcatenator {
  private columns: string[] | null = null;
  private parts: Cell[][][] = [];
  private rowCount = 0;

  add(table: RawTable): void {
    if (this.columns === null) {
      this.columns = table.columns;
      this.parts = table.columns.map(() => []);
    }
    const index = new Map(table.columns.map((name, c) => [name, c]));
    if (index.size !== this.columns.length || this.columns.some((name) => !index.has(name))) {
      // add.ts refuses such a piece (columns_mismatch), so a stored one means the store is inconsistent.
      throw new Error('stored dataset pieces have different columns');
    }
    this.columns.forEach((name, c) => this.parts[c].push(table.data[index.get(name) as number]));
    this.rowCount += table.rowCount;
  }

  result(): RawTable {
    const columns = this.columns ?? [];
    // concat keeps a column of numbers an array of unboxed doubles (csv.ts reads decimal columns so);
    // copying cell by cell into one `new Array` here gave every column the elements kind of the first,
    // text, so each number became a boxed heap object (about 391 MB rather than 120 MB at 1,000,000 x 13).
    const data = this.parts.map((chunks) => (chunks.length === 1 ? chunks[0] : chunks[0].concat(...chunks.slice(1))));
    return { columns, data, rowCount: this.rowCount };
  }
}

/** Columns as the dataset record keeps them (JSON text), read back. */
export function columnsOf(json: string | null): string[] | null {
  return json === null ? null : (JSON.parse(json) as string[]);
}
