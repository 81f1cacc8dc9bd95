// svc_add_dataset (docs/reference/datasets.md#add-dataset, docs/reference/datasets.md#lifecycle; docs/reference/datasets.md): store a piece (rows, csv, fetch_url) as a new
// dataset or append it to an open one, or hand out a presigned upload URL.
import { ServiceError } from '../../errors.ts';
import { parseBody } from '../../schemas/index.ts';
import { parseCsv, requireDataRows } from '../../table/csv.ts';
import { rowsToTable } from '../../table/rows.ts';
import type { DatasetRecord } from '../../store/index.ts';
import type { Caller, OpContext, OpResult } from '../../runtime/services.ts';
import { newId } from '../../lib/ids.ts';
import { downloadTooLarge, fetchRecord, fetchedFile, parseFetchedCsv, type Fetched } from './fetch.ts';
import { countCsvOf, readLimits } from './stored-file.ts';
import { encodeUploadPiece } from '../../table/pieces.ts';
import { PIECE_MAX_BYTES } from './formats.ts';
import { randomBytes } from 'node:crypto';
import { columnsOf, encodePiece, type PieceKind } from '../../table/pieces.ts';
import { datasetReply } from './reply.ts';
import { assertUsableTable, requireCaller, refuseTestKey, unknownDataset } from './errors.ts';
import { UPLOAD_TTL_SECONDS, signUploadToken } from '../../signing/upload-token.ts';
import { FREE, type Operation } from '../operation.ts';
import {
  type AddDatasetRequest,
  AddDatasetRequestSchema,
  type AddDatasetResponse,
  AddDatasetResponseSchema,
} from './add-dataset.schema.ts';

interface NewPiece {
  kind: PieceKind;
  payload: string;
  columns: string[];
  rowCount: number;
  /** The request field the piece came from (named in errors). */
  field: 'rows' | 'csv' | 'fetch_url';
}

export async function runAddDataset(ctx: OpContext, raw: unknown): Promise<OpResult<AddDatasetResponse>> {
  const req = parseBody(AddDatasetRequestSchema, raw);
  const caller = requireCaller(ctx);
  refuseTestKey(ctx, caller);
  if (req.upload) return startUpload(ctx, caller, req);
  if (req.dataset_id !== undefined) {
    // Checked before any download: an unknown or closed dataset should not cost a fetch.
    const target = await appendable(ctx, caller, req.dataset_id);
    const piece = await readPiece(ctx, req, await fetchOf(ctx, req));
    if (piece === null) {
      throw new ServiceError(
        'invalid_request',
        'fetch_url: a gzip CSV or Parquet file is stored as a dataset of its own; leave out dataset_id',
        {
          field: 'fetch_url',
        },
      );
    }
    assertUsableTable(piece.columns, piece.rowCount, piece.field, false);
    checkColumns(columnsOf(target.columns), piece);
    return { status: 200, body: await storePiece(ctx, caller, req.dataset_id, piece, false) };
  }
  const fetched = await fetchOf(ctx, req);
  if (fetched && fetched.format !== 'csv') return { status: 200, body: await storePassedThrough(ctx, caller, req, fetched) };
  const piece = (await readPiece(ctx, req, fetched))!;
  assertUsableTable(piece.columns, piece.rowCount, piece.field, true);
  const now = ctx.services.now();
  const id = newId('ds_');
  await ctx.services.store.createDataset({
    id,
    workspace_id: caller.workspaceId,
    status: 'open',
    columns: null,
    row_count: 0,
    filename: req.filename ?? null,
    created_at: now,
    last_used_at: now,
  });
  // docs/reference/datasets.md#fetch-url: open after rows/csv (more pieces may follow), ready after fetch_url.
  return { status: 200, body: await storePiece(ctx, caller, id, piece, true, piece.field === 'fetch_url' ? 'ready' : undefined) };
}

/** docs/reference/datasets.md: upload: true returns this service's own presigned PUT URL; the dataset waits for it. */
async function startUpload(ctx: OpContext, caller: Caller, req: AddDatasetRequest): Promise<OpResult<AddDatasetResponse>> {
  if (req.dataset_id !== undefined) {
    throw new ServiceError('invalid_request', 'upload: an upload stores a new dataset; it cannot be appended to dataset_id', {
      field: 'upload',
    });
  }
  const { store, config, now } = ctx.services;
  const at = now();
  const dataset = await createAwaitingUpload(ctx, caller, req.filename, at);
  const token = signUploadToken(ctx.services.secrets, {
    datasetId: dataset.id,
    workspaceId: caller.workspaceId,
    expiresAt: Math.floor(at / 1000) + UPLOAD_TTL_SECONDS,
  });
  const body: AddDatasetResponse = {
    ...datasetReply(dataset),
    upload_url: `${config.baseUrl}/v1/uploads/${token}`,
    upload_method: 'PUT',
    expires_in: UPLOAD_TTL_SECONDS,
    // docs/reference/datasets.md#uploads: the same link takes pieces, and a person uses the page ({site_url} is this service)
    upload_pieces_url: `${config.baseUrl}/v1/uploads/${token}`,
    upload_page: `${config.baseUrl}/upload/${token}`,
    upload_page_expires_in: UPLOAD_TTL_SECONDS,
  };
  return { status: 200, body };
}

/** docs/reference/datasets.md#add-dataset: only an open dataset takes more rows. */
async function appendable(ctx: OpContext, caller: Caller, id: string): Promise<DatasetRecord> {
  const dataset = await ctx.services.store.getDataset(caller.workspaceId, id);
  if (!dataset) throw unknownDataset(id, 'dataset_id');
  if (dataset.status === 'sealed') throw sealed(id);
  if (dataset.status !== 'open') {
    const why = dataset.status === 'ready' ? 'is ready (stored from fetch_url or an upload)' : 'is awaiting its upload';
    throw new ServiceError(
      'invalid_request',
      `dataset_id: dataset ${id} ${why} and takes no more pieces; only a dataset stored from rows or csv is open`,
      {
        field: 'dataset_id',
      },
    );
  }
  return dataset;
}

function sealed(id: string): ServiceError {
  return new ServiceError('dataset_sealed', `dataset_id: dataset ${id} was sealed by an ask or preflight and takes no more pieces`, {
    field: 'dataset_id',
  });
}

const fetchOf = (ctx: OpContext, req: AddDatasetRequest): Promise<Fetched | null> =>
  req.fetch_url === undefined ? Promise.resolve(null) : fetchRecord(ctx, req.fetch_url, req.fetch_headers ?? {}, 'fetch_url');

/** The piece a request sends; null for a fetched gzip or Parquet file (stored passed through instead). */
async function readPiece(ctx: OpContext, req: AddDatasetRequest, fetched: Fetched | null): Promise<NewPiece | null> {
  if (req.rows !== undefined) {
    const table = rowsToTable(req.rows, 'rows');
    // The same bytes record.ts hashes for inline rows, so one stored piece hashes like the inline call.
    return { kind: 'rows', payload: JSON.stringify(req.rows), columns: table.columns, rowCount: table.rowCount, field: 'rows' };
  }
  if (req.csv !== undefined) {
    const table = requireDataRows(parseCsv(req.csv, { field: 'csv' }), 'csv');
    return { kind: 'csv', payload: req.csv, columns: table.columns, rowCount: table.rowCount, field: 'csv' };
  }
  if (!fetched || fetched.format !== 'csv') return null;
  const text = fetched.text;
  const table = requireDataRows(parseFetchedCsv(text, 'fetch_url'), 'fetch_url');
  return { kind: 'csv', payload: text, columns: table.columns, rowCount: table.rowCount, field: 'fetch_url' };
}

/** docs/reference/datasets.md#lifecycle: a piece with different columns (compared as sets) is refused; the problem names them. */
function checkColumns(existing: string[] | null, piece: NewPiece): void {
  if (existing === null) return;
  const have = new Set(existing);
  const got = new Set(piece.columns);
  const missing = existing.filter((c) => !got.has(c));
  const extra = piece.columns.filter((c) => !have.has(c));
  if (missing.length === 0 && extra.length === 0) return;
  const parts = [
    missing.length > 0 ? `missing ${missing.map((c) => JSON.stringify(c)).join(', ')}` : '',
    extra.length > 0 ? `extra ${extra.map((c) => JSON.stringify(c)).join(', ')}` : '',
  ].filter(Boolean);
  throw new ServiceError('columns_mismatch', `${piece.field}: the piece's columns differ from the dataset's: ${parts.join('; ')}`, {
    field: piece.field,
    extra: { missing_columns: missing, extra_columns: extra },
  });
}

async function storePiece(
  ctx: OpContext,
  caller: Caller,
  id: string,
  piece: NewPiece,
  first: boolean,
  status?: 'ready',
): Promise<AddDatasetResponse> {
  const result = await ctx.services.store.appendDatasetPiece({
    workspace_id: caller.workspaceId,
    dataset_id: id,
    content: encodePiece(piece.kind, piece.payload),
    row_count: piece.rowCount,
    // The first piece fixes the columns and their order; later pieces match them as a set.
    columns: first ? JSON.stringify(piece.columns) : null,
    status,
    at: ctx.services.now(),
  });
  if (result.ok) return datasetReply(result.dataset);
  if (result.reason === 'unknown_dataset') throw unknownDataset(id, 'dataset_id');
  // Sealed (or uploaded) between the check above and this write.
  throw sealed(id);
}

const ADD_DATASET_RULES =
  'Also required, beyond what the input schema says: exactly one of rows, csv, fetch_url, upload; fetch_headers only with fetch_url; ' +
  'upload cannot be combined with dataset_id.';

const EXAMPLE_ROWS = Array.from({ length: 6 }, (_, i) => ({
  id: `c${i + 1}`,
  visits: 3 + i,
  plan: i % 2 ? 'pro' : 'basic',
  renewed: i % 3 === 0,
}));

/** svc_add_dataset: the one declaration the transports, MCP, OpenAPI and tasks are derived from. */
export const addDatasetOperation: Operation = {
  name: 'svc_add_dataset',
  resource: 'datasets',
  path: '/v1/add-dataset',
  method: 'POST',
  auth: 'key',
  body: 'json',
  title: 'Store a table',
  description:
    'Stores a table as a dataset_id (ds_...) to ask about later, for a record you will ask about more than once or one ' +
    'too big for one call: send rows or csv (up to 10,000 rows per call) and append more pieces with dataset_id until ' +
    'the first ask seals it (a piece with different columns is refused); or fetch_url (a public https CSV; no ' +
    'redirects; private hosts refused); or upload: true for a presigned PUT URL for a large CSV. Returns {dataset_id, ' +
    'status (open, ready or awaiting_upload), rows, columns} and, for an upload, upload_url, upload_method and ' +
    'expires_in. A stored dataset is deleted 24 hours after it was last used. Needs a live key. ' +
    FREE,
  rules: ADD_DATASET_RULES,
  request: AddDatasetRequestSchema,
  response: AddDatasetResponseSchema,
  status: 200,
  pending: false,
  // docs/reference/mcp.md: writes, open-world (fetch_url); each call stores another dataset or piece.
  tool: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  examples: [
    { name: 'rows', summary: 'A small table as rows', value: { rows: EXAMPLE_ROWS } },
    { name: 'csv', summary: 'The same table as CSV text', value: { csv: 'id,visits,plan,renewed\nc1,3,basic,true\nc2,4,pro,false\n' } },
  ],
  run: runAddDataset,
};

/**
 * docs/reference/datasets.md#formats: a fetched gzip CSV or Parquet file is read through once (a corrupt one is refused, nothing stored;
 * the CSV it holds capped at UPLOAD_MAX_BYTES while it inflates), then stored as it came, in raw pieces, like
 * an upload in pieces, with its rows and columns (null in the reply).
 */
async function storePassedThrough(
  ctx: OpContext,
  caller: Caller,
  req: AddDatasetRequest,
  fetched: Exclude<Fetched, { format: 'csv' }>,
): Promise<AddDatasetResponse> {
  const { store, now } = ctx.services;
  const counted = await countCsvOf(
    fetched.format,
    fetchedFile(fetched),
    readLimits(ctx.services.config, 'fetch_url', downloadTooLarge('fetch_url')),
  );
  assertUsableTable(counted.columns, counted.rows, 'fetch_url', true);
  const at = now();
  const dataset = await createAwaitingUpload(ctx, caller, req.filename, at);
  const session = randomBytes(16).toString('hex');
  const bytes = fetched.bytes;
  let index = 0;
  for (let offset = 0; offset < bytes.byteLength; offset += PIECE_MAX_BYTES, index++) {
    const slice = bytes.subarray(offset, offset + PIECE_MAX_BYTES);
    await store.receiveUploadPiece({
      workspace_id: caller.workspaceId,
      dataset_id: dataset.id,
      session,
      index,
      format: fetched.format,
      content: encodeUploadPiece(fetched.format, offset, new Uint8Array(0), slice),
      bytes: slice.byteLength,
      rows: 0,
      header: null,
      open_row: false,
      at,
    });
  }
  const done = await store.completeUpload(caller.workspaceId, dataset.id, session, index, {
    columns: JSON.stringify(counted.columns),
    row_count: counted.rows,
    at,
  });
  if (!done.ok) throw unknownDataset(dataset.id, 'fetch_url'); // deleted while it was being stored
  return { ...datasetReply(done.dataset, fetched.format), format: fetched.format } as AddDatasetResponse;
}

/** A new dataset that waits for its bytes (a presigned upload, pieces, or a gzip or Parquet download). */
function createAwaitingUpload(ctx: OpContext, caller: Caller, filename: string | undefined, at: number): Promise<DatasetRecord> {
  return ctx.services.store.createDataset({
    id: newId('ds_'),
    workspace_id: caller.workspaceId,
    status: 'awaiting_upload',
    columns: null,
    row_count: 0,
    filename: filename ?? null,
    created_at: at,
    last_used_at: at,
  });
}
