// Uploads in pieces (docs/reference/datasets.md#uploads): `POST <upload_pieces_url>/<index>` for 0, 1, ... in order (each at most
// 4,000,000 bytes, header x-upload-session the same on all), then `POST <upload_pieces_url>/complete` with
// {pieces: n}. No key: the signed link authorises uploads to its one dataset for an hour. Each piece is
// stored as it arrives (any node may receive any piece); the dataset stays awaiting_upload, unreadable, until
// /complete has checked the whole file, and a file that fails the check is dropped whole (docs/decisions/README.md
// : the replies, the problems and the dataset's status after each).
import * as v from 'valibot';
import { ServiceError } from '../../errors.ts';
import type { DatasetRecord, UploadFormat, UploadSessionRecord } from '../../store/index.ts';
import type { OpContext, OpResult } from '../../runtime/services.ts';
import { parseBody } from '../../schemas/index.ts';
import { CsvScanner } from '../../table/csv-scan.ts';
import { parseCsv } from '../../table/csv.ts';
import { encodeUploadPiece } from '../../table/pieces.ts';
import { datasetReply } from './reply.ts';
import { assertUsableTable, unknownDataset } from './errors.ts';
import { verifyUploadToken, type UploadGrant } from '../../signing/upload-token.ts';
import { PIECES_MAX, PIECE_MAX_BYTES, detectFormat } from './formats.ts';
import { countCsvOf, readLimits, storedFile, uploadTooLarge } from './stored-file.ts';
import type { Operation, OperationRequest } from '../operation.ts';
import { AddDatasetResponseSchema } from './add-dataset.schema.ts';
import { CompleteRequestSchema } from './upload-pieces.schema.ts';

const SESSION = /^[0-9a-f]{32}$/;
const SESSION_HEADER = 'x-upload-session';

function sessionOf(req: OperationRequest): string {
  const s = req.header(SESSION_HEADER)?.trim().toLowerCase();
  if (!s || !SESSION.test(s)) {
    throw new ServiceError(
      'invalid_request',
      `${SESSION_HEADER}: send the same 32 hexadecimal characters with every piece and with /complete (one random value per upload)`,
      { field: SESSION_HEADER },
    );
  }
  return s;
}

async function grantOf(ctx: OpContext, req: OperationRequest): Promise<{ grant: UploadGrant; dataset: DatasetRecord }> {
  const grant = verifyUploadToken(ctx.services.secrets, req.params.token ?? '', ctx.services.now());
  const dataset = await ctx.services.store.getDataset(grant.workspaceId, grant.datasetId);
  if (!dataset) throw unknownDataset(grant.datasetId, 'upload_pieces_url');
  return { grant, dataset };
}

const alreadyComplete = (id: string) =>
  new ServiceError('upload_already_complete', `dataset ${id} is already stored: its upload was completed, and it takes no more pieces`, {
    extra: { dataset_id: id },
  });

const outOfOrder = (index: number, up: UploadSessionRecord | null) => {
  const next = up?.pieces ?? 0;
  return new ServiceError('upload_piece_out_of_order', `piece ${index} came before piece ${next}; pieces go 0, 1, 2, ... in order`, {
    field: 'index',
    extra: { next_piece: next },
  });
};

const sessionMismatch = (up: UploadSessionRecord | null) =>
  new ServiceError(
    'upload_session_mismatch',
    up
      ? `another upload session holds this dataset (it has ${up.pieces} piece${up.pieces === 1 ? '' : 's'}); every piece and /complete carry the session of piece 0`
      : 'no piece of this session was received; an upload begins with piece 0',
    { field: SESSION_HEADER, extra: { next_piece: up?.pieces ?? 0 } },
  );

/** The body, at most PIECE_MAX_BYTES (413 beyond, nothing stored). */
async function readPiece(req: OperationRequest): Promise<Uint8Array> {
  const declared = Number(req.header('content-length') ?? NaN);
  const tooLarge = () =>
    new ServiceError(
      'request_too_large',
      `a piece is at most ${PIECE_MAX_BYTES.toLocaleString('en-US')} bytes; send the file in more pieces`,
      {
        remedy:
          'Cut the file into pieces of at most 4,000,000 bytes (CSV pieces at row ends, repeating the header) and send them in order.',
      },
    );
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (req.stream) {
    const reader = req.stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      // Over the limit the rest is read and dropped (up to 4x the limit), so the client hears the 413
      // instead of a connection closed under it; a body larger still is cut off.
      if (size > PIECE_MAX_BYTES) chunks.length = 0;
      else chunks.push(value);
      if (size > 4 * PIECE_MAX_BYTES || (size > PIECE_MAX_BYTES && declared > 4 * PIECE_MAX_BYTES)) {
        await reader.cancel().catch(() => undefined);
        break;
      }
    }
  }
  if (size > PIECE_MAX_BYTES || declared > PIECE_MAX_BYTES) throw tooLarge();
  if (size === 0) throw new ServiceError('invalid_request', 'body: a piece holds at least one byte of the file', { field: 'body' });
  return Buffer.concat(chunks, size);
}

interface PreparedPiece {
  format: UploadFormat;
  content: Uint8Array;
  bytes: number;
  rows: number;
  header: string | null;
  openRow: boolean;
}

/**
 * A CSV piece is whole rows with the header repeated first (docs/reference/datasets.md#uploads): checked as CSV, the header compared
 * with piece 0's, and stored without its copy of the header so the pieces join into the file itself.
 */
function prepareCsv(index: number, bytes: Uint8Array, up: UploadSessionRecord | null): PreparedPiece {
  const field = 'body';
  if (index > 0 && up?.open_row) {
    throw new ServiceError('invalid_request', `body: piece ${index - 1} did not end at a row end; CSV pieces end with a line break`, {
      field,
    });
  }
  const scanner = new CsvScanner(field);
  scanner.push(bytes);
  const summary = scanner.finish();
  const headerRow = scanner.headerRow();
  const header = Buffer.from(headerRow).toString('utf8');
  if (index > 0 && up && header !== up.header) {
    throw new ServiceError(
      'invalid_request',
      `body: piece ${index} does not begin with the header row of piece 0; every CSV piece repeats it`,
      {
        field,
      },
    );
  }
  const payload = index === 0 ? bytes : bytes.subarray(headerRow.byteLength);
  const offset = index === 0 ? 0 : (up?.bytes ?? 0);
  const last = bytes[bytes.byteLength - 1];
  return {
    format: 'csv',
    content: encodeUploadPiece('csv', offset, index === 0 ? new Uint8Array(0) : headerRow, payload),
    bytes: payload.byteLength,
    rows: summary.rowCount,
    header,
    openRow: last !== 0x0a && last !== 0x0d,
  };
}

/**
 * A problem found before the body was read still reads it (up to 4x the piece limit, then cuts it off), so
 * the client hears the problem on a connection it can use again rather than one closed under its upload.
 */
async function runPiece(ctx: OpContext, _body: unknown, req: OperationRequest): Promise<OpResult> {
  let reading: Promise<Uint8Array> | null = null;
  const read = () => (reading ??= readPiece(req));
  try {
    return await receivePiece(ctx, req, read);
  } catch (err) {
    await read().catch(() => undefined);
    throw err;
  }
}

async function receivePiece(ctx: OpContext, req: OperationRequest, read: () => Promise<Uint8Array>): Promise<OpResult> {
  const { store, now } = ctx.services;
  const rawIndex = req.params.index ?? '';
  if (!/^\d{1,3}$/.test(rawIndex)) {
    throw new ServiceError(
      'invalid_request',
      `index: a piece index is 0, 1, 2, ... (at most ${PIECES_MAX - 1}), got ${JSON.stringify(rawIndex)}`,
      {
        field: 'index',
      },
    );
  }
  const index = Number(rawIndex);
  if (index >= PIECES_MAX) {
    throw new ServiceError('request_too_large', `an upload has at most ${PIECES_MAX} pieces of 4,000,000 bytes`, { field: 'index' });
  }
  const session = sessionOf(req);
  const { grant, dataset } = await grantOf(ctx, req);
  if (dataset.status !== 'awaiting_upload') throw alreadyComplete(dataset.id);
  const body = await read();
  const up = await store.getUploadSession(dataset.id);
  const same = up !== null && up.session === session;
  // docs/reference/datasets.md#uploads: a resent piece is ignored
  if (same && index < up.pieces) return { status: 200, body: pieceReply(dataset.id, index, up, true) };
  if (index > 0 && !same) throw up ? sessionMismatch(up) : outOfOrder(index, up);
  if (index > 0 && index > up!.pieces) throw outOfOrder(index, up);
  const format = index === 0 ? detectFormat(body) : up!.format;
  const prepared: PreparedPiece =
    format === 'csv'
      ? prepareCsv(index, body, index === 0 ? null : up)
      : {
          format,
          content: encodeUploadPiece(format, index === 0 ? 0 : up!.bytes, new Uint8Array(0), body),
          bytes: body.byteLength,
          rows: 0,
          header: null,
          openRow: false,
        };
  const result = await store.receiveUploadPiece({
    workspace_id: grant.workspaceId,
    dataset_id: dataset.id,
    session,
    index,
    format: prepared.format,
    content: prepared.content,
    bytes: prepared.bytes,
    rows: prepared.rows,
    header: prepared.header,
    open_row: prepared.openRow,
    at: now(),
  });
  if (result.ok) return { status: 200, body: pieceReply(dataset.id, index, result.upload, result.resent) };
  if (result.reason === 'unknown_dataset') throw unknownDataset(dataset.id, 'upload_pieces_url');
  if (result.reason === 'complete') throw alreadyComplete(dataset.id);
  if (result.reason === 'session_mismatch') throw sessionMismatch(result.upload);
  throw outOfOrder(index, result.upload);
}

/** docs/decisions/README.md: what a piece answers. */
function pieceReply(id: string, index: number, up: UploadSessionRecord, resent: boolean): Record<string, unknown> {
  return {
    dataset_id: id,
    status: 'awaiting_upload',
    piece: index,
    resent,
    pieces_received: up.pieces,
    bytes_received: up.bytes,
    format: up.format,
  };
}

async function runComplete(ctx: OpContext, raw: unknown, req: OperationRequest): Promise<OpResult> {
  const { pieces } = parseBody(CompleteRequestSchema, raw);
  const session = sessionOf(req);
  const { store, config, now } = ctx.services;
  const { grant, dataset } = await grantOf(ctx, req);
  if (dataset.status !== 'awaiting_upload') throw alreadyComplete(dataset.id);
  const up = await store.getUploadSession(dataset.id);
  if (!up || up.session !== session) throw sessionMismatch(up);
  if (up.pieces !== pieces) throw piecesMissing(pieces, up);
  let columns: string;
  let rowCount = up.rows;
  if (up.format === 'csv') {
    columns = JSON.stringify(parseCsv(up.header ?? '', { field: 'body' }).columns);
  } else {
    // The whole file is read once now (flat memory, the CSV it holds capped as it inflates; a Parquet file of
    // more than STORE_READ_CELLS checked from its footer and page headers), so a corrupt or oversized one is
    // refused here and not at an ask, and the dataset keeps its true rows and columns: an ask then reads it
    // on the request thread only when it is small (read.ts).
    try {
      const file = await storedFile(store, grant.workspaceId, dataset.id);
      const counted = await countCsvOf(up.format, file, readLimits(config, 'body', uploadTooLarge('body')));
      assertUsableTable(counted.columns, counted.rows, 'body', true);
      columns = JSON.stringify(counted.columns);
      rowCount = counted.rows;
    } catch (err) {
      // nothing half-stored: the pieces go, the dataset waits for a new upload from piece 0
      await store.abortUpload(dataset.id, session);
      throw err;
    }
  }
  const result = await store.completeUpload(grant.workspaceId, dataset.id, session, pieces, { columns, row_count: rowCount, at: now() });
  if (!result.ok) {
    if (result.reason === 'unknown_dataset') throw unknownDataset(dataset.id, 'upload_pieces_url');
    if (result.reason === 'complete') throw alreadyComplete(dataset.id);
    if (result.reason === 'pieces_missing') throw piecesMissing(pieces, result.upload!);
    throw sessionMismatch(result.upload);
  }
  return { status: 200, body: { ...datasetReply(result.dataset, up.format), format: up.format, pieces, bytes: up.bytes } };
}

function piecesMissing(pieces: number, up: UploadSessionRecord): ServiceError {
  const detail =
    up.pieces < pieces
      ? `complete says ${pieces} pieces, but only pieces 0 to ${up.pieces - 1} arrived; piece ${up.pieces} is missing`
      : `complete says ${pieces} pieces, but ${up.pieces} arrived`;
  return new ServiceError('upload_pieces_missing', detail, {
    field: 'pieces',
    extra: { pieces_received: up.pieces, next_piece: up.pieces },
  });
}

const PIECE_TEXT =
  'Piece <index> (0, 1, 2, ... in order; at most 250) of an upload in pieces to the upload_pieces_url of add-dataset ' +
  '(upload: true): at most 4,000,000 bytes, header x-upload-session (32 hex, the same on every piece and /complete). ' +
  'CSV pieces (text/csv, UTF-8) end at row ends and repeat the header; gzip CSV and Parquet files (recognised by ' +
  'their first bytes) are cut anywhere and sent as raw slices (application/octet-stream). A resent piece is ' +
  'ignored; piece 0 with a new session starts the upload over. No key: the link authorises this one dataset for an ' +
  'hour. Answers {dataset_id, status: "awaiting_upload", piece, resent, pieces_received, bytes_received, format}.';

/** `POST /v1/uploads/:token/complete`. */
export const uploadCompleteOperation: Operation = {
  name: 'upload_complete',
  resource: 'datasets',
  path: '/v1/uploads/:token/complete',
  method: 'POST',
  auth: 'none',
  body: 'json',
  title: 'Finish an upload in pieces',
  description:
    'Ends an upload in pieces with {pieces: n} and the x-upload-session header: when exactly pieces 0 to n-1 arrived, ' +
    'the file is checked whole (a gzip CSV inflated, a Parquet file read) and the dataset becomes ready, answering as ' +
    'add-dataset does plus format, pieces and bytes (rows and columns are null for gzip and Parquet). A missing piece ' +
    'is upload_pieces_missing (send it, then complete again); a corrupt file is upload_corrupt and nothing of it is ' +
    'kept (upload it again from piece 0 with a new session); a second /complete is upload_already_complete.',
  request: CompleteRequestSchema,
  response: AddDatasetResponseSchema,
  status: 200,
  examples: [{ name: 'complete', summary: 'After pieces 0 to 24', value: { pieces: 25 } }],
  run: runComplete,
};

export const uploadPieceOperation: Operation = {
  name: 'upload_piece',
  resource: 'datasets',
  // digits only, so /complete never matches this route as well (Hono would run both routes' middleware)
  path: '/v1/uploads/:token/:index{[0-9]+}',
  method: 'POST',
  auth: 'none',
  body: 'stream',
  title: 'Send a piece of an upload',
  description: PIECE_TEXT,
  status: 200,
  examples: [],
  run: runPiece,
};
