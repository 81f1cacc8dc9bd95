// Reads a stored dataset as one record for an ask or preflight (docs/reference/ask.md#data dataset_id, 3.3, docs/reference/datasets.md).
import { ServiceError } from '../../errors.ts';
import type { RawTable } from '../../table/types.ts';
import type { OpContext } from '../../runtime/services.ts';
import { RecordHasher, TableConcatenator, decodePiece, pieceTable } from '../../table/pieces.ts';
import { csvPartsOf, readLimits, storedFile, storedTooLarge } from './stored-file.ts';
import type { UploadFormat } from '../../store/index.ts';
import { requireCaller, unknownDataset } from './errors.ts';
import type { StoredRecord } from '../../runtime/record-cache.ts';
import { RunAsTask } from '../../runtime/tasks.ts';
import type { DatasetRecord } from '../../store/index.ts';

// Sealed datasets never change, so their parsed tables are kept (by id, weighed in cells) and reread
// only after eviction; the store is still asked first, so a deleted dataset is never served from here,
// and delete and the sweeper drop its entry (docs/reference/datasets.md#delete: "removes the rows now").
const TOUCH_EVERY_MS = 60_000;
/**
 * docs/guides/overload.md: the largest stored record (rows x columns) the request thread reads itself; a larger one is
 * read on a task thread. About an inline ask's worth (10,000 rows of 25 columns), whose reading and
 * typing take tens of milliseconds.
 */
export const REQUEST_THREAD_READ_CELLS = 250_000;

/**
 * The caller's dataset `id` as one table, pieces concatenated in order, and the hash of its stored
 * bytes (pieces.ts). Seals it (docs/reference/datasets.md#lifecycle: the first ask seals; docs/reference/datasets.md#preflight: ask or preflight) and so
 * refreshes its last use (docs/reference/datasets.md#lifecycle: kept 24 hours after last use). `field` names the argument in errors.
 */
export async function loadStoredRecord(
  ctx: OpContext,
  id: string,
  field: string,
  opts: {
    /** An ask's attempt on the request thread: a record past REQUEST_THREAD_READ_CELLS (or of unknown size) is RunAsTask. */
    quick?: boolean;
    /** A read that can only run on the request thread (svc_preflight): at most this many cells, else 422. */
    maxCells?: number;
  } = {},
): Promise<StoredRecord> {
  const caller = requireCaller(ctx);
  const { store, now } = ctx.services;
  const dataset = await store.getDataset(caller.workspaceId, id);
  if (!dataset) {
    // Deleted, perhaps through another node: its parsed rows go from this node's memory too.
    ctx.services.records.forget(id);
    throw unknownDataset(id, field);
  }
  if (dataset.status === 'awaiting_upload') {
    throw new ServiceError(
      'invalid_request',
      `${field}: dataset ${id} is still awaiting its upload (upload not finished); PUT the CSV to its upload_url first`,
      { field },
    );
  }
  // sealDataset also sets last_used_at; false means it was deleted since the read above. A sealed
  // dataset used within the last minute is not written again (retention is 24 hours; a write per
  // ask would cost an fsync per ask).
  const at = now();
  const fresh = dataset.status === 'sealed' && at - dataset.last_used_at < TOUCH_EVERY_MS;
  if (!fresh && !(await store.sealDataset(caller.workspaceId, id, at))) throw unknownDataset(id, field);
  const sealedTables = ctx.services.records.sealed;
  const cached = sealedTables.get(id);
  if (cached && cached.workspaceId === caller.workspaceId) return { table: cached.table, contentHash: cached.contentHash };
  const cells = cellsOf(dataset);
  if (opts.quick && (cells === null || cells > REQUEST_THREAD_READ_CELLS))
    throw new RunAsTask('the stored record is large or of unknown size');
  if (opts.maxCells !== undefined && (cells === null || cells > opts.maxCells)) {
    const size = cells === null ? 'of unknown size (stored before its rows were counted)' : `of ${cells.toLocaleString('en-US')} cells`;
    throw new ServiceError(
      'record_too_large',
      `${field}: dataset ${id} is ${size}; this call reads at most ${opts.maxCells.toLocaleString('en-US')} cells (rows x columns)`,
      { field, remedy: 'Ask about it with svc_ask (data.dataset_id), which reads a record of any size in a task.' },
    );
  }

  const hasher = new RecordHasher();
  const tables = new TableConcatenator();
  try {
    let passedThrough: Exclude<UploadFormat, 'csv'> | null = null;
    for await (const stored of store.listDatasetPieces(caller.workspaceId, id)) {
      const piece = decodePiece(stored.content);
      if (piece.upload === 'gzip' || piece.upload === 'parquet') {
        passedThrough = piece.upload;
        break;
      }
      hasher.add(piece);
      tables.add(pieceTable(piece, field));
    }
    if (passedThrough !== null) {
      // docs/reference/datasets.md#formats: a gzip or Parquet upload is kept as sent and read here as the CSV it holds
      const file = await storedFile(store, caller.workspaceId, id);
      const parts = csvPartsOf(passedThrough, file, readLimits(ctx.services.config, field, storedTooLarge(field)));
      for (let r = await parts.next(); !r.done; r = await parts.next()) {
        hasher.add(r.value);
        tables.add(pieceTable(r.value, field));
      }
    }
  } catch (err) {
    if (err instanceof ServiceError) throw err;
    // The store throws when the dataset is deleted mid-read (svc_delete_dataset or the sweeper).
    if (!(await store.getDataset(caller.workspaceId, id))) throw unknownDataset(id, field);
    throw err;
  }
  const record = { table: tables.result(), contentHash: hasher.digest() };
  // A delete that landed after the last piece was read has already dropped the entry: do not put it back.
  if (!(await store.getDataset(caller.workspaceId, id))) throw unknownDataset(id, field);
  const weight = Math.max(1, record.table.rowCount * record.table.columns.length);
  sealedTables.set(id, { ...record, workspaceId: caller.workspaceId }, weight);
  return record;
}

/**
 * Rows x columns of a stored dataset, from its record (no piece is read); null when the record does not say
 * (a gzip or Parquet file stored before its rows were counted), so it is read in a task: a 1 GB CSV in a
 * 1.6 MB gzip once counted as 0 cells, was read on the request thread and took the process down.
 */
function cellsOf(dataset: DatasetRecord): number | null {
  let names: unknown;
  try {
    names = dataset.columns === null ? null : JSON.parse(dataset.columns);
  } catch {
    return null;
  }
  if (!Array.isArray(names) || names.length === 0) return null;
  return dataset.row_count * names.length;
}
