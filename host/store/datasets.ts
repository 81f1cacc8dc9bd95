// Stored datasets and their pieces (appended in order, read back one piece at a time).
import { toBytes, type SqlClient } from './sql.ts';
import type { DatasetPiece, DatasetRecord, DatasetStatus, DatasetStore } from './types.ts';

interface DatasetRow {
  id: string;
  workspace_id: string;
  status: string;
  column_names: string | null;
  row_count: number;
  filename: string | null;
  created_at: number;
  last_used_at: number;
}

const COLUMNS = 'id, workspace_id, status, column_names, row_count, filename, created_at, last_used_at';

function toDataset(r: DatasetRow): DatasetRecord {
  return {
    id: r.id,
    workspace_id: r.workspace_id,
    status: r.status as DatasetStatus,
    columns: r.column_names,
    row_count: Number(r.row_count),
    filename: r.filename,
    created_at: Number(r.created_at),
    last_used_at: Number(r.last_used_at),
  };
}

/** Thrown inside an append's transaction to roll it back when the caller's seq is not the next one. */
class OutOfOrder extends Error {}

export function datasetQueries(db: SqlClient): DatasetStore {
  async function getDataset(workspace_id: string, id: string, q: SqlClient = db): Promise<DatasetRecord | null> {
    const r = await q.get<DatasetRow>(`SELECT ${COLUMNS} FROM datasets WHERE id = ? AND workspace_id = ?`, [id, workspace_id]);
    return r ? toDataset(r) : null;
  }

  return {
    async createDataset(d) {
      await db.run(`INSERT INTO datasets (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, [
        d.id,
        d.workspace_id,
        d.status,
        d.columns,
        d.row_count,
        d.filename,
        d.created_at,
        d.last_used_at,
      ]);
      return { ...d };
    },

    getDataset: (workspace_id, id) => getDataset(workspace_id, id),

    async appendDatasetPiece(p) {
      try {
        return await db.transaction(async (tx) => {
          // The dataset's UPDATE comes first and carries the status check: on PostgreSQL it takes the
          // row lock for the rest of the transaction, so appends to one dataset, its sealing and its
          // deletion queue behind each other (READ COMMITTED), and a seal or delete that committed
          // meanwhile is seen here (docs/reference/datasets.md#lifecycle: only an open dataset, or one waiting for its upload,
          // takes more rows). Only then is MAX(seq) read: two appends can no longer both take the same
          // seq, and a deletion cannot miss a piece. SQLite's BEGIN IMMEDIATE serialises them anyway.
          const row = await tx.get<DatasetRow>(
            `UPDATE datasets SET row_count = row_count + ?, last_used_at = ?,
               column_names = COALESCE(?, column_names), status = COALESCE(?, status)
             WHERE id = ? AND workspace_id = ? AND status IN ('open', 'awaiting_upload')
             RETURNING ${COLUMNS}`,
            [p.row_count, p.at, p.columns ?? null, p.status ?? null, p.dataset_id, p.workspace_id],
          );
          if (!row) {
            const ds = await getDataset(p.workspace_id, p.dataset_id, tx);
            return { ok: false, reason: ds ? 'dataset_sealed' : 'unknown_dataset' } as const;
          }
          const last = await tx.get<{ seq: number | null }>('SELECT MAX(seq) AS seq FROM dataset_pieces WHERE dataset_id = ?', [
            p.dataset_id,
          ]);
          const seq = Number(last?.seq ?? 0) + 1;
          if (p.seq !== undefined && p.seq !== seq) throw new OutOfOrder(); // undoes the UPDATE
          await tx.run('INSERT INTO dataset_pieces (dataset_id, seq, row_count, content) VALUES (?, ?, ?, ?)', [
            p.dataset_id,
            seq,
            p.row_count,
            toBytes(p.content),
          ]);
          return { ok: true, seq, dataset: toDataset(row) } as const;
        });
      } catch (err) {
        if (err instanceof OutOfOrder) return { ok: false, reason: 'out_of_order' } as const;
        throw err;
      }
    },

    async *listDatasetPieces(workspace_id, dataset_id): AsyncGenerator<DatasetPiece> {
      const seqs = await db.all<{ seq: number }>(
        `SELECT p.seq FROM dataset_pieces p JOIN datasets d ON d.id = p.dataset_id
         WHERE d.id = ? AND d.workspace_id = ? ORDER BY p.seq`,
        [dataset_id, workspace_id],
      );
      // One piece per query, so a large dataset never sits in memory whole.
      for (const { seq } of seqs) {
        const r = await db.get<{ seq: number; row_count: number; content: Uint8Array }>(
          'SELECT seq, row_count, content FROM dataset_pieces WHERE dataset_id = ? AND seq = ?',
          [dataset_id, seq],
        );
        if (!r) throw new Error(`dataset ${dataset_id} was deleted while it was being read`);
        yield { seq: Number(r.seq), row_count: Number(r.row_count), content: r.content };
      }
    },

    async sealDataset(workspace_id, id, at) {
      // Sealing twice is fine (every ask seals); an upload not yet arrived cannot be sealed.
      const n = await db.run(
        `UPDATE datasets SET status = 'sealed', last_used_at = ?
         WHERE id = ? AND workspace_id = ? AND status IN ('open', 'ready', 'sealed')`,
        [at, id, workspace_id],
      );
      return n > 0;
    },

    async touchDataset(workspace_id, id, last_used_at) {
      return (await db.run('UPDATE datasets SET last_used_at = ? WHERE id = ? AND workspace_id = ?', [last_used_at, id, workspace_id])) > 0;
    },

    deleteDataset(workspace_id, id) {
      return db.transaction(async (tx) => {
        const n = await tx.run('DELETE FROM datasets WHERE id = ? AND workspace_id = ?', [id, workspace_id]);
        if (n > 0) await tx.run('DELETE FROM dataset_pieces WHERE dataset_id = ?', [id]);
        if (n > 0) await tx.run('DELETE FROM upload_sessions WHERE dataset_id = ?', [id]);
        return n > 0;
      });
    },

    deleteDatasetsUnusedBefore(cutoff) {
      return db.transaction(async (tx) => {
        const rows = await tx.all<{ id: string }>('SELECT id FROM datasets WHERE last_used_at < ? ORDER BY id', [cutoff]);
        const deleted: string[] = [];
        for (const { id } of rows) {
          // Re-check per row: a use between the SELECT and here (another connection) keeps the dataset.
          if ((await tx.run('DELETE FROM datasets WHERE id = ? AND last_used_at < ?', [id, cutoff])) === 0) continue;
          await tx.run('DELETE FROM dataset_pieces WHERE dataset_id = ?', [id]);
          await tx.run('DELETE FROM upload_sessions WHERE dataset_id = ?', [id]);
          deleted.push(id);
        }
        return deleted;
      });
    },
  };
}
