// Reads a stored dataset as one record for an ask or preflight (spec 2.1 dataset_id, 3.3, wire.md "Datasets").
import { ServiceError } from '../../http/problem.ts';
import type { RawTable } from '../../table/types.ts';
import type { OpContext } from '../../services.ts';
import { RecordHasher, TableConcatenator, decodePiece, pieceTable } from './pieces.ts';
import { requireCaller, unknownDataset } from './errors.ts';

export interface StoredRecord {
  table: RawTable;
  contentHash: string;
}

/**
 * The caller's dataset `id` as one table, pieces concatenated in order, and the hash of its stored
 * bytes (pieces.ts). Seals it (spec 3.3: the first ask seals; wire.md: ask or preflight) and so
 * refreshes its last use (spec 2.2: kept 24 hours after last use). `field` names the argument in errors.
 */
export async function loadStoredRecord(ctx: OpContext, id: string, field: string): Promise<StoredRecord> {
  const caller = requireCaller(ctx);
  const { store, now } = ctx.services;
  const dataset = await store.getDataset(caller.workspaceId, id);
  if (!dataset) throw unknownDataset(id, field);
  if (dataset.status === 'awaiting_upload') {
    throw new ServiceError(
      'invalid_request',
      `${field}: dataset ${id} is still awaiting its upload (upload not finished); PUT the CSV to its upload_url first`,
      { field },
    );
  }
  // sealDataset also sets last_used_at; false means it was deleted since the read above.
  if (!(await store.sealDataset(caller.workspaceId, id, now()))) throw unknownDataset(id, field);

  const hasher = new RecordHasher();
  const tables = new TableConcatenator();
  try {
    for await (const stored of store.listDatasetPieces(caller.workspaceId, id)) {
      const piece = decodePiece(stored.content);
      hasher.add(piece);
      tables.add(pieceTable(piece, field));
    }
  } catch (err) {
    if (err instanceof ServiceError) throw err;
    // The store throws when the dataset is deleted mid-read (svc_delete_dataset or the sweeper).
    if (!(await store.getDataset(caller.workspaceId, id))) throw unknownDataset(id, field);
    throw err;
  }
  return { table: tables.result(), contentHash: hasher.digest() };
}
