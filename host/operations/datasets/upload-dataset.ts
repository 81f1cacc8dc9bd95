// `PUT /v1/uploads/<token>` (docs/reference/datasets.md): the presigned upload of a large CSV (or a gzip of it),
// stored with memory that does not grow with its size. The body is streamed to a file under DATA_DIR and checked as CSV on
// the way, noting a row boundary about every MiB; then the file is copied into the store one part at a time.
//
// Why parts in the store rather than pieces pointing at the kept file: the store stays the one place a
// dataset lives (delete, retention sweep and a second process see it with no file bookkeeping), and a
// part is a whole-row CSV like any other piece. Each part is read into one reused buffer (about 1 MiB)
// that SQLite copies; the whole body is never in memory. The content hash covers the body's bytes only
// (pieces.ts), so it does not depend on the part size.
import fs from 'node:fs/promises';
import path from 'node:path';
import { ServiceError } from '../../errors.ts';
import type { DatasetRecord, UploadFormat } from '../../store/index.ts';
import type { OpContext, OpResult } from '../../runtime/services.ts';
import type { Config } from '../../config.ts';
import { CsvScanner, type CsvSummary } from '../../table/csv-scan.ts';
import { PART_HEAD_BYTES, writePartHead } from '../../table/pieces.ts';
import { datasetReply } from './reply.ts';
import { assertUsableTable, unknownDataset } from './errors.ts';
import { verifyUploadToken } from '../../signing/upload-token.ts';
import { detectFormat } from './formats.ts';
import { csvFaultOrDamage, gzipCorrupt, inflated, isGzipDamage } from './stored-file.ts';
import type { Operation, OperationRequest } from '../operation.ts';
import { UPLOAD_DIR, uploadFileName } from '../../runtime/upload-files.ts';
import { type AddDatasetResponse, AddDatasetResponseSchema } from './add-dataset.schema.ts';

const FIELD = 'body';

/** A byte range of the body holding whole rows (the first also holds the header), and its row count. */
interface Part {
  start: number;
  end: number;
  rows: number;
}

interface Received {
  /** What the body was (a gzip CSV is stored as the CSV it holds). */
  format: UploadFormat;
  /** Bytes of the CSV. */
  size: number;
  summary: CsvSummary;
  header: Uint8Array;
  parts: Part[];
}

// A dataset takes one upload: the remedy is a new upload URL, not a new dataset of pieces (the code's own remedy).
const NEW_URL = 'Request a new upload URL with add-dataset {"upload": true} and PUT the file there; this URL took its one upload.';

const finished = (id: string) =>
  new ServiceError('dataset_sealed', `The upload of dataset ${id} already finished; a dataset takes one upload.`, { remedy: NEW_URL });

const interrupted = (id: string) =>
  new ServiceError(
    'dataset_sealed',
    `Another upload to this URL is being stored, or one was interrupted, so dataset ${id} takes no other; a dataset takes one upload.`,
    { remedy: NEW_URL },
  );

async function runUpload(ctx: OpContext, _body: unknown, req: OperationRequest): Promise<OpResult<AddDatasetResponse>> {
  const token = req.params.token ?? '';
  const body = req.stream;
  const declared = req.header('content-length');
  const declaredBytes = declared !== undefined && /^\d+$/.test(declared) ? Number(declared) : undefined;
  const { store, config } = ctx.services;
  const grant = verifyUploadToken(ctx.services.secrets, token, ctx.services.now());
  const dataset = await store.getDataset(grant.workspaceId, grant.datasetId);
  if (!dataset) throw unknownDataset(grant.datasetId, 'upload_url');
  if (dataset.status !== 'awaiting_upload') throw finished(dataset.id);

  const settings = config;
  if (declaredBytes !== undefined && declaredBytes > settings.maxUploadBytes) throw tooLarge(settings.maxUploadBytes);
  const dir = path.join(config.dataDir, UPLOAD_DIR);
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, uploadFileName(dataset.id));
  try {
    const received = await receive(body, file, settings, req.signal);
    assertUsableTable(received.summary.columns, received.summary.rowCount, FIELD, true);
    const stored = await storeParts(ctx, grant.workspaceId, dataset, file, received);
    // docs/reference/datasets.md#formats: a gzip CSV answers as one passed through (rows and columns null, its format named)
    if (received.format !== 'csv') return { status: 200, body: { ...datasetReply(stored, received.format), format: received.format } };
    return { status: 200, body: datasetReply(stored) };
  } finally {
    await fs.rm(file, { force: true });
  }
}

/**
 * Streams the body to `file` (never more than the cap), checking it as CSV on the way and cutting it
 * into parts at the first row that starts `uploadPartBytes` or more after the part's start. A gzip CSV
 * (docs/reference/datasets.md#uploads: recognised by its first bytes) is inflated on the way and stored as the CSV it holds (so it
 * hashes, and is read, as that CSV): the cap counts its bytes as sent and, while it inflates, the CSV's.
 */
async function receive(body: ReadableStream<Uint8Array> | null, file: string, settings: Config, signal: AbortSignal): Promise<Received> {
  const parts: Part[] = [];
  let partStart = 0;
  let rowsBefore = 0;
  const scanner = new CsvScanner(FIELD, {
    // A row is never split, so the longest row bounds a part's size (and the memory used to store it).
    maxRowBytes: settings.maxUploadRowBytes,
    onRowStart(at, rows) {
      if (at - partStart < settings.uploadPartBytes) return;
      parts.push({ start: partStart, end: at, rows: rows - rowsBefore });
      partStart = at;
      rowsBefore = rows;
    },
  });
  const out = await fs.open(file, 'wx', 0o600);
  const reader = body?.getReader();
  // docs/guides/overload.md: a client that goes away mid-body ends the read at once, so its partial file goes now (the
  // caller's finally), not at a later sweep.
  const onAbort = () => void reader?.cancel().catch(() => undefined);
  signal.addEventListener('abort', onAbort, { once: true });
  let sent = 0;
  async function* bodyChunks(): AsyncGenerator<Uint8Array> {
    for (;;) {
      const next = reader ? await reader.read() : { done: true as const, value: undefined };
      if (signal.aborted) throw interruptedBody();
      if (next.done) return;
      sent += next.value.byteLength;
      if (sent > settings.maxUploadBytes) throw tooLarge(settings.maxUploadBytes);
      yield next.value;
    }
  }
  let size = 0;
  try {
    const { format, chunks } = await withFormat(bodyChunks());
    if (format === 'parquet') throw parquetPut();
    const stream = format === 'gzip' ? inflated(chunks) : chunks;
    for await (const chunk of stream) {
      size += chunk.byteLength;
      if (size > settings.maxUploadBytes) throw tooLarge(settings.maxUploadBytes, format === 'gzip');
      try {
        scanner.push(chunk);
      } catch (err) {
        // a fault of the CSV a gzip holds, unless the gzip stream is damaged (docs/decisions/0078-csv-faults-inside-files.md)
        throw format === 'gzip' ? await csvFaultOrDamage(err, stream, settings.maxUploadBytes - size, FIELD) : err;
      }
      await out.write(chunk);
    }
    const summary = scanner.finish();
    parts.push({ start: partStart, end: size, rows: summary.rowCount - rowsBefore });
    return { size, summary, header: scanner.headerRow(), parts, format };
  } catch (err) {
    await reader?.cancel().catch(() => undefined);
    // a damaged gzip is the file's problem, as it is at a pieces upload's /complete (never a 500)
    throw isGzipDamage(err) ? gzipCorrupt(FIELD, err) : err;
  } finally {
    signal.removeEventListener('abort', onAbort);
    await out.close();
  }
}

/** The stream's format from its first 4 bytes (fewer if it is shorter), and the stream itself, whole. */
async function withFormat(chunks: AsyncGenerator<Uint8Array>): Promise<{ format: UploadFormat; chunks: AsyncGenerator<Uint8Array> }> {
  const head: Uint8Array[] = [];
  let bytes = 0;
  while (bytes < 4) {
    const next = await chunks.next();
    if (next.done) break;
    head.push(next.value);
    bytes += next.value.byteLength;
  }
  async function* whole(): AsyncGenerator<Uint8Array> {
    yield* head;
    yield* chunks;
  }
  return { format: detectFormat(Buffer.concat(head).subarray(0, 4)), chunks: whole() };
}

function parquetPut(): ServiceError {
  return new ServiceError('invalid_request', `${FIELD}: this is a Parquet file; the upload_url takes a CSV or a gzip CSV`, {
    field: FIELD,
    remedy:
      'Send a Parquet file in pieces to the upload_pieces_url of the same add-dataset reply (POST <upload_pieces_url>/0, 1, ..., then /complete).',
  });
}

function interruptedBody(): ServiceError {
  return new ServiceError('invalid_request', 'The upload ended before its body did (the connection closed); nothing was stored.', {
    field: FIELD,
    remedy: 'PUT the whole CSV to the same upload_url again while it is valid.',
  });
}

/**
 * Appends the parts in order (pieces.ts 'p'); only the last append marks the dataset ready and sets
 * its columns, so a process stopped part-way leaves it awaiting_upload, never a half dataset that is ready.
 */
async function storeParts(
  ctx: OpContext,
  workspaceId: string,
  dataset: DatasetRecord,
  file: string,
  got: Received,
): Promise<DatasetRecord> {
  const { store, now } = ctx.services;
  const handle = await fs.open(file, 'r');
  let buffer = Buffer.alloc(0);
  try {
    for (let i = 0; i < got.parts.length; i++) {
      const { start, end, rows } = got.parts[i];
      const header = i === 0 ? new Uint8Array(0) : got.header; // the first part starts with the header itself
      const length = PART_HEAD_BYTES + header.byteLength + (end - start);
      // One buffer, grown to the largest part: SQLite copies the bytes during the append.
      if (buffer.byteLength < length) buffer = Buffer.allocUnsafe(length);
      writePartHead(buffer, got.size, start, header.byteLength);
      buffer.set(header, PART_HEAD_BYTES);
      await readRange(handle, buffer, PART_HEAD_BYTES + header.byteLength, start, end, file);
      const last = i === got.parts.length - 1;
      const result = await store.appendDatasetPiece({
        workspace_id: workspaceId,
        dataset_id: dataset.id,
        // Numbered, so a second PUT racing this one finds seq 1 taken and stores nothing.
        seq: i + 1,
        content: buffer.subarray(0, length),
        row_count: rows,
        columns: last ? JSON.stringify(got.summary.columns) : null,
        status: last ? 'ready' : undefined,
        at: now(),
      });
      if (result.ok) {
        if (last) return result.dataset;
        continue;
      }
      // Deleted (delete-dataset or the sweeper) while it was being stored: its parts went with it.
      if (result.reason === 'unknown_dataset') throw unknownDataset(dataset.id, 'upload_url');
      if (result.reason === 'dataset_sealed') throw finished(dataset.id);
      throw interrupted(dataset.id);
    }
    throw new Error('an upload has at least one part');
  } finally {
    await handle.close();
  }
}

/** Reads file bytes [start, end) into `into` at `at`. */
async function readRange(handle: fs.FileHandle, into: Buffer, at: number, start: number, end: number, file: string): Promise<void> {
  let done = 0;
  while (done < end - start) {
    const { bytesRead } = await handle.read(into, at + done, end - start - done, start + done);
    if (bytesRead === 0) throw new Error(`upload file ${file} ended early`);
    done += bytesRead;
  }
}

function tooLarge(limit: number, inflating = false): ServiceError {
  const what = inflating
    ? `The gzip CSV inflates to more than this server's limit of ${limit} bytes of CSV (UPLOAD_MAX_BYTES); inflating stopped there and nothing was stored.`
    : `The upload is larger than this server's limit of ${limit} bytes; nothing was stored.`;
  return new ServiceError('request_too_large', what, {
    remedy:
      'Upload at most UPLOAD_MAX_BYTES (the limit named) of CSV: fewer rows or columns, or the table split into datasets of their own.',
  });
}

/**
 * `PUT /v1/uploads/:token` (docs/reference/datasets.md): no bearer key (the signed token in the path authorises)
 * and a raw CSV body streamed to the operation unread. REST only: it is the target of `upload_url`.
 */
export const uploadOperation: Operation = {
  name: 'upload_dataset',
  resource: 'datasets',
  path: '/v1/uploads/:token',
  method: 'PUT',
  auth: 'none',
  body: 'stream',
  title: 'Upload the CSV of a presigned dataset',
  description:
    'The upload_url an add-dataset call with upload: true returned: PUT the CSV there (text/csv, UTF-8, a header ' +
    'row), or a gzip of it (recognised by its first bytes), up to UPLOAD_MAX_BYTES as sent and, for a gzip, as CSV ' +
    'once inflated (413 request_too_large past either, inflating stopped at the limit). No key: the signed token in ' +
    'the URL authorises this one upload, for expires_in seconds. Answers like add-dataset: {dataset_id, status: ' +
    '"ready", rows, columns} (a gzip: rows and columns null, format "gzip"). A Parquet file goes in pieces to ' +
    'upload_pieces_url.',
  response: AddDatasetResponseSchema,
  status: 200,
  examples: [],
  run: runUpload,
};
