// How a stored dataset's pieces are kept and read back (spec 3.3: pieces append in order; wire.md "Datasets").
//
// Stored bytes of one piece = one kind byte + the payload exactly as received:
//   'c' (0x63) + CSV text as UTF-8 (for an upload, the PUT body byte for byte),
//   'r' (0x72) + JSON.stringify(rows) as UTF-8 (the bytes record.ts hashes for inline rows).
// The record's content hash (architecture.md "Data flow" step 2):
//   one piece  -> SHA-256 of its payload, so a dataset stored in one piece hashes (and fits) exactly
//                 like the same csv or rows sent inline (spec 1.4: same bytes, same answer);
//   n > 1      -> SHA-256 of 0xFF, then per piece: kind byte, payload length (8-byte big-endian),
//                 payload. 0xFF never occurs in UTF-8, so no inline payload can frame the same way,
//                 and moving a piece boundary changes the hash.
import { createHash, type Hash } from 'node:crypto';
import { parseCsv } from '../../table/csv.ts';
import { rowsToTable } from '../../table/rows.ts';
import type { Cell, RawTable } from '../../table/types.ts';

export type PieceKind = 'csv' | 'rows';

const KIND_BYTE: Record<PieceKind, number> = { csv: 0x63, rows: 0x72 };
const FRAME_START = 0xff;

export interface Piece {
  kind: PieceKind;
  payload: Uint8Array;
}

/** The first stored byte of a piece of this kind. */
export function kindByte(kind: PieceKind): number {
  return KIND_BYTE[kind];
}

/** The bytes to store for a piece: kind byte + payload. */
export function encodePiece(kind: PieceKind, payload: string | Uint8Array): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const out = Buffer.allocUnsafe(body.byteLength + 1);
  out[0] = KIND_BYTE[kind];
  out.set(body, 1);
  return out;
}

export function decodePiece(content: Uint8Array): Piece {
  const kind = content[0] === KIND_BYTE.csv ? 'csv' : content[0] === KIND_BYTE.rows ? 'rows' : undefined;
  if (kind === undefined) throw new Error(`stored dataset piece has an unknown kind byte ${content[0]}`);
  return { kind, payload: content.subarray(1) };
}

/** Parses one piece's payload; `field` is named in errors. */
export function pieceTable(piece: Piece, field: string): RawTable {
  const text = Buffer.from(piece.payload.buffer, piece.payload.byteOffset, piece.payload.byteLength).toString('utf8');
  if (piece.kind === 'csv') return parseCsv(text, { field });
  return rowsToTable(JSON.parse(text) as object[], field);
}

/** Content hash over pieces fed in order (framing above). */
export class RecordHasher {
  private readonly framed: Hash = createHash('sha256').update(Uint8Array.of(FRAME_START));
  private single: string | undefined;
  private count = 0;

  add(piece: Piece): void {
    if (this.count === 0) this.single = createHash('sha256').update(piece.payload).digest('hex');
    const head = Buffer.alloc(9);
    head[0] = KIND_BYTE[piece.kind];
    head.writeBigUInt64BE(BigInt(piece.payload.byteLength), 1);
    this.framed.update(head).update(piece.payload);
    this.count++;
  }

  digest(): string {
    const framed = this.framed.digest('hex');
    return this.count === 1 ? (this.single as string) : framed;
  }
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
    const data = this.parts.map((chunks) => {
      if (chunks.length === 1) return chunks[0];
      const out = new Array<Cell>(this.rowCount);
      let at = 0;
      for (const chunk of chunks) for (let r = 0; r < chunk.length; r++) out[at++] = chunk[r];
      return out;
    });
    return { columns, data, rowCount: this.rowCount };
  }
}

/** Columns as the dataset record keeps them (JSON text), read back. */
export function columnsOf(json: string | null): string[] | null {
  return json === null ? null : (JSON.parse(json) as string[]);
}
