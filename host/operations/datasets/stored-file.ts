// A gzip or Parquet file stored as the raw pieces of an upload (spec 3.8: passed through), read back as CSV
// parts (pieces.ts) with memory that does not grow with the file: gzip inflated as a stream, Parquet read
// row group by row group through ranges of the stored pieces. The parts hash as the CSV the file holds (a
// gzip CSV) or renders to (Parquet, host/table/parquet.ts), so either answers as that CSV would.
import { createGunzip } from 'node:zlib';
import { ServiceError } from '../../errors.ts';
import type { Store, UploadFormat } from '../../store/index.ts';
import { parquetAsCsv, ParquetProblem, type AsyncBuffer } from '../../table/parquet.ts';
import { CsvPartCutter } from '../../table/csv-parts.ts';
import { UPLOAD_HEAD_BYTES, type Piece } from '../../table/pieces.ts';

/** How a caller names the file in problems, and the limits of reading it. */
export interface ReadLimits {
  field: string;
  partBytes: number;
  maxRowBytes: number;
}

/** The pieces of a stored upload as one file: its length, byte ranges, and its bytes in order. */
export interface StoredFile {
  byteLength: number;
  chunks(): AsyncGenerator<Uint8Array>;
  buffer: AsyncBuffer;
}

/** The raw file of dataset `id` (every piece a raw slice, no header copy). */
export async function storedFile(store: Store, workspaceId: string, id: string): Promise<StoredFile> {
  const sizes = await store.listDatasetPieceSizes(workspaceId, id);
  const starts: number[] = [];
  let total = 0;
  for (const s of sizes) {
    starts.push(total);
    total += s.size - UPLOAD_HEAD_BYTES;
  }
  // the two pieces read last: a range read mostly falls in one or two pieces of 4 MB
  const recent = new Map<number, Uint8Array>();
  const piece = async (i: number): Promise<Uint8Array> => {
    const kept = recent.get(i);
    if (kept) return kept;
    const content = await store.getDatasetPiece(workspaceId, id, sizes[i].seq);
    if (!content) throw new Error(`dataset ${id} lost piece ${sizes[i].seq} while it was read`);
    const bytes = content.subarray(UPLOAD_HEAD_BYTES);
    if (recent.size >= 2) recent.delete(recent.keys().next().value as number);
    recent.set(i, bytes);
    return bytes;
  };
  const pieceAt = (offset: number) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  return {
    byteLength: total,
    async *chunks() {
      for (let i = 0; i < sizes.length; i++) {
        const content = await store.getDatasetPiece(workspaceId, id, sizes[i].seq);
        if (!content) throw new Error(`dataset ${id} lost piece ${sizes[i].seq} while it was read`);
        yield content.subarray(UPLOAD_HEAD_BYTES);
      }
    },
    buffer: {
      byteLength: total,
      async slice(start: number, end = total): Promise<ArrayBuffer> {
        const out = new Uint8Array(Math.max(0, end - start));
        let at = start;
        while (at < end) {
          const i = pieceAt(at);
          const bytes = await piece(i);
          const from = at - starts[i];
          const n = Math.min(bytes.byteLength - from, end - at);
          out.set(bytes.subarray(from, from + n), at - start);
          at += n;
        }
        return out.buffer;
      },
    },
  };
}

/** The file (`format` gzip or Parquet) as CSV parts; a file that is not one is `upload_corrupt`. */
export async function* csvPartsOf(
  format: Exclude<UploadFormat, 'csv'>,
  file: { chunks(): AsyncIterable<Uint8Array>; buffer: AsyncBuffer },
  limits: ReadLimits,
): AsyncGenerator<Piece, { columns: string[]; rows: number; bytes: number }> {
  const cutter = new CsvPartCutter(limits.field, limits.partBytes, limits.maxRowBytes);
  const what = format === 'gzip' ? 'gzip CSV' : 'Parquet file';
  try {
    if (format === 'gzip') {
      const gunzip = createGunzip();
      const feed = (async () => {
        try {
          for await (const chunk of file.chunks()) {
            if (!gunzip.write(chunk)) await new Promise((r) => gunzip.once('drain', r));
          }
          gunzip.end();
        } catch (err) {
          gunzip.destroy(err as Error);
        }
      })();
      for await (const out of gunzip as AsyncIterable<Buffer>) yield* cutter.push(out);
      await feed;
    } else {
      const encoder = new TextEncoder();
      for await (const text of parquetAsCsv(file.buffer)) yield* cutter.push(encoder.encode(text));
    }
    const end = cutter.finish();
    yield* end.parts;
    return { columns: end.summary.columns, rows: end.summary.rowCount, bytes: end.bytes };
  } catch (err) {
    throw corrupt(what, limits.field, err);
  }
}

function corrupt(what: string, field: string, err: unknown): ServiceError {
  if (err instanceof ServiceError && err.code !== 'invalid_request') return err;
  if (err instanceof ParquetProblem && err.kind === 'unsupported') {
    return new ServiceError('upload_unreadable', `${field}: the Parquet file cannot be read as a table: ${err.message}`, { field });
  }
  const why =
    err instanceof ServiceError
      ? `it holds no readable CSV: ${err.message}`
      : (err as NodeJS.ErrnoException).code?.startsWith('Z_')
        ? `the gzip stream is corrupt (${(err as Error).message})`
        : (err as Error).message;
  return new ServiceError('upload_corrupt', `${field}: the ${what} cannot be read: ${why}; nothing was stored`, { field });
}
