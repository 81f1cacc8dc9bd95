// A gzip or Parquet file stored as the raw pieces of an upload (docs/reference/datasets.md#formats: passed through), read back as CSV
// parts (pieces.ts) with memory that does not grow with the file: gzip inflated as a stream, Parquet read
// row group by row group through ranges of the stored pieces. The parts hash as the CSV the file holds (a
// gzip CSV) or renders to (Parquet, host/table/parquet.ts), so either answers as that CSV would.
//
// The CSV a file holds is capped while it inflates (docs/guides/uploads.md, "Limits"): at `maxCsvBytes`
// (UPLOAD_MAX_BYTES, the cap of a plain CSV upload) inflating stops and the caller's problem names the cap,
// so a gzip of a few megabytes that would inflate to gigabytes costs what the cap costs, never more.
import { createGunzip } from 'node:zlib';
import { ServiceError } from '../../errors.ts';
import type { Store, UploadFormat } from '../../store/index.ts';
import type { Config } from '../../config.ts';
import { parquetAsCsv, parquetShape, ParquetProblem, type AsyncBuffer } from '../../table/parquet.ts';
import { CsvPartCutter } from '../../table/csv-parts.ts';
import { UPLOAD_HEAD_BYTES, type Piece } from '../../table/pieces.ts';

/** The problem for a file that holds more than the cap; `what` says what passed it, the cap named. */
export type TooLarge = (what: string) => ServiceError;

/** How a caller names the file in problems, and the limits of reading it. */
export interface ReadLimits {
  field: string;
  partBytes: number;
  maxRowBytes: number;
  /** Bytes of CSV the file may hold (and of pages a Parquet file may hold once decompressed). */
  maxCsvBytes: number;
  tooLarge: TooLarge;
}

/** The limits of config (UPLOAD_MAX_BYTES and the upload row cap), the file named `field`. */
export function readLimits(config: Config, field: string, tooLarge: TooLarge): ReadLimits {
  return {
    field,
    partBytes: config.uploadPartBytes,
    maxRowBytes: config.maxUploadRowBytes,
    maxCsvBytes: config.maxUploadBytes,
    tooLarge,
  };
}

/** An upload (pieces at /complete, a gzip PUT) whose CSV passes the cap: 413, as a plain CSV upload over it. */
export const uploadTooLarge =
  (field: string): TooLarge =>
  (what) =>
    new ServiceError('request_too_large', `${field}: ${what}; nothing was stored`, {
      field,
      remedy:
        'Upload at most UPLOAD_MAX_BYTES (the limit named) of CSV: fewer rows or columns, or the table split into datasets of their own. ' +
        'The operator sets UPLOAD_MAX_BYTES.',
    });

/** A stored file read for an ask that passes the cap (stored before the cap was checked at upload): 422. */
export const storedTooLarge =
  (field: string): TooLarge =>
  (what) =>
    new ServiceError('record_too_large', `${field}: the stored file ${what}`, {
      field,
      remedy: 'Store the table again with at most UPLOAD_MAX_BYTES (the limit named) of CSV, or ask about a part of it.',
    });

const fmt = (n: number) => n.toLocaleString('en-US');

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
  const cap = limits.maxCsvBytes;
  let csvBytes = 0;
  const count = (n: number) => {
    csvBytes += n;
    if (csvBytes > cap) throw new PastCap(`${what} holds more than ${fmt(cap)} bytes of CSV (UPLOAD_MAX_BYTES); reading stopped there`);
  };
  try {
    if (format === 'gzip') {
      const stream = inflated(file.chunks());
      for await (const out of stream) {
        count(out.byteLength);
        try {
          yield* cutter.push(out);
        } catch (err) {
          throw await csvFaultOrDamage(err, stream, cap - csvBytes, limits.field);
        }
      }
    } else {
      const encoder = new TextEncoder();
      for await (const text of parquetAsCsv(file.buffer, { maxBytes: cap, maxRowBytes: limits.maxRowBytes })) {
        const bytes = encoder.encode(text);
        count(bytes.byteLength);
        yield* cutter.push(bytes);
      }
    }
    const end = cutter.finish();
    yield* end.parts;
    return { columns: end.summary.columns, rows: end.summary.rowCount, bytes: end.bytes };
  } catch (err) {
    throw problemOf(err, what, limits);
  }
}

/** A failure to read a file as the problem it is: past the cap, or corrupt or unreadable. */
function problemOf(err: unknown, what: string, limits: ReadLimits): ServiceError {
  if (err instanceof PastCap) return limits.tooLarge(`the ${err.message}`);
  if (err instanceof ParquetProblem && err.kind === 'too_large') {
    return limits.tooLarge(`the Parquet file cannot be read within ${fmt(limits.maxCsvBytes)} bytes (UPLOAD_MAX_BYTES): ${err.message}`);
  }
  return corrupt(what, limits.field, err);
}

/**
 * Parquet files of at most this many cells (rows x columns) are read through where they are stored (the
 * request thread); decoding takes about a microsecond and a hundred bytes a cell, and one page, however
 * many values it holds, is decoded at once. A larger file is checked there from its footer and page
 * headers only (parquetShape) and read through by its first ask, in a task with its heap cap.
 */
export const STORE_READ_CELLS = 1_000_000;

/**
 * Rows and columns of the CSV the file holds, read through once (flat memory) to check it whole; a Parquet
 * file of more than STORE_READ_CELLS cells is counted from its footer, checked without inflating a page
 * (docs/guides/uploads.md, "Limits"). Its problems are csvPartsOf's.
 */
export async function countCsvOf(
  format: Exclude<UploadFormat, 'csv'>,
  file: { chunks(): AsyncIterable<Uint8Array>; buffer: AsyncBuffer },
  limits: ReadLimits,
): Promise<{ columns: string[]; rows: number }> {
  if (format === 'parquet') {
    let shape: { columns: string[]; rows: number };
    try {
      shape = await parquetShape(file.buffer, { maxBytes: limits.maxCsvBytes, maxRowBytes: limits.maxRowBytes });
    } catch (err) {
      throw problemOf(err, 'Parquet file', limits);
    }
    if (shape.rows * shape.columns.length > STORE_READ_CELLS) return shape;
  }
  const parts = csvPartsOf(format, file, limits);
  for (;;) {
    const r = await parts.next();
    if (r.done) return r.value;
  }
}

class PastCap extends Error {}

/**
 * The gzip stream `chunks` inflated, chunk by chunk (zlib's 16 KiB), fed as the reader takes them: when
 * the reader stops (the cap, or a problem), inflating stops and no more of `chunks` is read (a read under
 * way is left to finish: a request body's owner cancels it).
 */
export async function* inflated(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Buffer> {
  const gunzip = createGunzip();
  // drained, or gone (destroyed: the reader stopped)
  const writable = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        gunzip.off('drain', done);
        gunzip.off('close', done);
        resolve();
      };
      gunzip.on('drain', done);
      gunzip.on('close', done);
    });
  const feed = (async () => {
    try {
      for await (const chunk of chunks) {
        if (gunzip.destroyed) return;
        if (!gunzip.write(chunk)) await writable();
      }
      gunzip.end();
    } catch (err) {
      gunzip.destroy(err as Error);
    }
  })();
  try {
    yield* gunzip as AsyncIterable<Buffer>;
  } finally {
    gunzip.destroy();
    void feed; // never rejects: its errors end up in the gunzip stream
  }
}

/**
 * `err`, a fault the CSV inside a gzip stream showed, unless the stream itself is damaged: bytes changed in a
 * gzip stream often inflate to text that is not CSV before zlib sees the damage (at the latest, the checksum
 * at its end). So the rest of the stream is inflated, its output dropped and at most `left` bytes of it (the
 * cap), and a stream that does not inflate whole is upload_corrupt (docs/decisions/0078-csv-faults-inside-files.md).
 */
export async function csvFaultOrDamage(err: unknown, rest: AsyncIterator<Uint8Array>, left: number, field: string): Promise<unknown> {
  if (!(err instanceof ServiceError && err.code === 'invalid_request')) return err;
  try {
    for (let r = await rest.next(); !r.done && left >= 0; r = await rest.next()) left -= r.value.byteLength;
  } catch (damage) {
    if (isGzipDamage(damage)) return gzipCorrupt(field, damage);
  }
  return err;
}

/** A gzip stream zlib cannot inflate (damaged bytes, cut short, not gzip after its first bytes). */
export function isGzipDamage(err: unknown): err is NodeJS.ErrnoException {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return err instanceof Error && typeof code === 'string' && code.startsWith('Z_');
}

/** A gzip stream that cannot be inflated, named as the upload `field`: upload_corrupt, whatever the route. */
export function gzipCorrupt(field: string, err: NodeJS.ErrnoException): ServiceError {
  return new ServiceError(
    'upload_corrupt',
    `${field}: the gzip CSV cannot be read: the gzip stream is corrupt (${err.message}); nothing was stored`,
    {
      field,
    },
  );
}

/**
 * A file that cannot be read as the problem it is (docs/decisions/0078-csv-faults-inside-files.md): a damaged
 * container (a gzip stream, a Parquet file's structure) is upload_corrupt; a fault of the CSV it holds (not
 * UTF-8, an unclosed quote, a row over the row limit) is invalid_request naming the field, as the same CSV sent
 * plain is, so a file gets one answer whichever route it takes.
 */
function corrupt(what: string, field: string, err: unknown): ServiceError {
  if (err instanceof ServiceError && err.code === 'invalid_request') {
    return new ServiceError('invalid_request', `${field}: the CSV the ${what} holds cannot be read: ${err.message} Nothing was stored.`, {
      field,
    });
  }
  if (err instanceof ServiceError) return err;
  if (err instanceof ParquetProblem && err.kind === 'row_too_long') {
    // the table's fault, as the same row in a CSV (docs/decisions/0088-a-parquet-row-over-the-row-limit.md)
    return new ServiceError(
      'invalid_request',
      `${field}: the CSV the ${what} renders to cannot be read: ${err.message} Nothing was stored.`,
      {
        field,
      },
    );
  }
  if (err instanceof ParquetProblem && err.kind === 'unsupported') {
    return new ServiceError('upload_unreadable', `${field}: the Parquet file cannot be read as a table: ${err.message}`, { field });
  }
  if (isGzipDamage(err)) return gzipCorrupt(field, err);
  return new ServiceError('upload_corrupt', `${field}: the ${what} cannot be read: ${(err as Error).message}; nothing was stored`, {
    field,
  });
}
