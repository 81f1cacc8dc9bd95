// Cuts a CSV that arrives as a stream of bytes (an inflating gzip, a Parquet file rendered as CSV) into parts
// of whole rows, each readable alone with a copy of the header: the same parts a presigned upload is stored
// in (pieces.ts), so a record read this way is hashed and parsed like one sent as CSV.
import { CsvScanner, type CsvSummary } from './csv-scan.ts';
import type { Piece } from './pieces.ts';

export class CsvPartCutter {
  private readonly scanner: CsvScanner;
  /** Bytes from the current part's start (`partStart`, an offset in the whole CSV) to what was pushed. */
  private held: Buffer[] = [];
  private heldBytes = 0;
  private partStart = 0;
  private cuts: number[] = [];
  private size = 0;

  constructor(field: string, partBytes: number, maxRowBytes: number) {
    this.scanner = new CsvScanner(field, {
      maxRowBytes,
      onRowStart: (at) => {
        const from = this.cuts.at(-1) ?? this.partStart;
        if (at - from >= partBytes) this.cuts.push(at);
      },
    });
  }

  /** Scans `chunk`; returns the parts it completed. */
  push(chunk: Uint8Array): Piece[] {
    if (chunk.byteLength === 0) return [];
    this.scanner.push(chunk);
    this.held.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    this.heldBytes += chunk.byteLength;
    this.size += chunk.byteLength;
    if (this.cuts.length === 0) return [];
    const all = Buffer.concat(this.held, this.heldBytes);
    const base = this.size - this.heldBytes; // offset of all[0] in the whole CSV (the current part's start)
    const out: Piece[] = [];
    for (const at of this.cuts) {
      out.push(this.part(all.subarray(this.partStart - base, at - base)));
      this.partStart = at;
    }
    this.cuts = [];
    const rest = all.subarray(this.partStart - base);
    this.held = rest.byteLength > 0 ? [Buffer.from(rest)] : [];
    this.heldBytes = rest.byteLength;
    return out;
  }

  /** The last part and what the whole CSV held; throws the CSV's problem if it is not one. */
  finish(): { parts: Piece[]; summary: CsvSummary; bytes: number } {
    const summary = this.scanner.finish();
    const last = Buffer.concat(this.held, this.heldBytes);
    this.held = [];
    return { parts: last.byteLength > 0 || this.partStart === 0 ? [this.part(last)] : [], summary, bytes: this.size };
  }

  private part(bytes: Buffer): Piece {
    const offset = this.partStart;
    const text = offset === 0 ? bytes : Buffer.concat([this.scanner.headerRow(), bytes]);
    return { kind: 'csv', payload: bytes, part: { total: null, offset, text } };
  }
}
