// Uploads in pieces (docs/reference/datasets.md#uploads): each piece is stored as it arrives, under the upload's session, as a piece of
// its dataset that nothing reads until /complete marks the dataset ready (a dataset awaiting its upload is
// never read). Every move is one transaction, so two nodes receiving pieces of one upload agree on the order.
import { toBytes, type SqlClient } from './sql.ts';
import type { UploadFormat, UploadSessionRecord, UploadStore } from './types.ts';

interface SessionRow {
  dataset_id: string;
  session: string;
  format: string;
  pieces: number;
  bytes: number;
  rows: number;
  header: string | null;
  open_row: number;
  created_at: number;
  updated_at: number;
}

const COLUMNS = 'dataset_id, session, format, pieces, bytes, rows, header, open_row, created_at, updated_at';

function toSession(r: SessionRow): UploadSessionRecord {
  return {
    dataset_id: r.dataset_id,
    session: r.session,
    format: r.format as UploadFormat,
    pieces: Number(r.pieces),
    bytes: Number(r.bytes),
    rows: Number(r.rows),
    header: r.header,
    open_row: Number(r.open_row) === 1,
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };
}

export function uploadQueries(db: SqlClient): UploadStore {
  const sessionOf = async (q: SqlClient, id: string) => {
    const r = await q.get<SessionRow>(`SELECT ${COLUMNS} FROM upload_sessions WHERE dataset_id = ?`, [id]);
    return r ? toSession(r) : null;
  };
  const datasetStatus = async (q: SqlClient, workspace_id: string, id: string) =>
    (await q.get<{ status: string }>('SELECT status FROM datasets WHERE id = ? AND workspace_id = ?', [id, workspace_id]))?.status;

  return {
    receiveUploadPiece(p) {
      return db.transaction(async (tx) => {
        const status = await datasetStatus(tx, p.workspace_id, p.dataset_id);
        const up = await sessionOf(tx, p.dataset_id);
        if (status === undefined) return { ok: false, reason: 'unknown_dataset', upload: up } as const;
        if (status !== 'awaiting_upload') return { ok: false, reason: 'complete', upload: up } as const;
        if (up && up.session === p.session && p.index < up.pieces) return { ok: true, resent: true, upload: up } as const;
        if (p.index === 0) {
          // Piece 0 of a new session starts the upload over: the pieces of an earlier session go.
          await tx.run('DELETE FROM dataset_pieces WHERE dataset_id = ?', [p.dataset_id]);
          await tx.run('DELETE FROM upload_sessions WHERE dataset_id = ?', [p.dataset_id]);
          await tx.run(`INSERT INTO upload_sessions (${COLUMNS}) VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?)`, [
            p.dataset_id,
            p.session,
            p.format,
            p.bytes,
            p.rows,
            p.header,
            p.open_row ? 1 : 0,
            p.at,
            p.at,
          ]);
        } else {
          if (!up) return { ok: false, reason: 'out_of_order', upload: null } as const;
          if (up.session !== p.session) return { ok: false, reason: 'session_mismatch', upload: up } as const;
          // Only the next index moves it on; of two nodes storing the same piece at once, one does.
          const n = await tx.run(
            `UPDATE upload_sessions SET pieces = pieces + 1, bytes = bytes + ?, rows = rows + ?, open_row = ?, updated_at = ?
             WHERE dataset_id = ? AND session = ? AND pieces = ?`,
            [p.bytes, p.rows, p.open_row ? 1 : 0, p.at, p.dataset_id, p.session, p.index],
          );
          if (n === 0) {
            const now = await sessionOf(tx, p.dataset_id);
            if (now && now.session === p.session && p.index < now.pieces) return { ok: true, resent: true, upload: now } as const;
            return { ok: false, reason: 'out_of_order', upload: now } as const;
          }
        }
        await tx.run('INSERT INTO dataset_pieces (dataset_id, seq, row_count, content) VALUES (?, ?, ?, ?)', [
          p.dataset_id,
          p.index + 1,
          p.rows,
          toBytes(p.content),
        ]);
        await tx.run('UPDATE datasets SET last_used_at = ? WHERE id = ?', [p.at, p.dataset_id]);
        return { ok: true, resent: false, upload: (await sessionOf(tx, p.dataset_id))! } as const;
      });
    },

    getUploadSession: (dataset_id) => sessionOf(db, dataset_id),

    completeUpload(workspace_id, dataset_id, session, pieces, r) {
      return db.transaction(async (tx) => {
        const status = await datasetStatus(tx, workspace_id, dataset_id);
        const up = await sessionOf(tx, dataset_id);
        if (status === undefined) return { ok: false, reason: 'unknown_dataset', upload: up } as const;
        if (status !== 'awaiting_upload') return { ok: false, reason: 'complete', upload: up } as const;
        if (!up || up.session !== session) return { ok: false, reason: 'session_mismatch', upload: up } as const;
        if (up.pieces !== pieces) return { ok: false, reason: 'pieces_missing', upload: up } as const;
        await tx.run(
          `UPDATE datasets SET status = 'ready', column_names = ?, row_count = ?, last_used_at = ? WHERE id = ? AND status = 'awaiting_upload'`,
          [r.columns, r.row_count, r.at, dataset_id],
        );
        await tx.run('DELETE FROM upload_sessions WHERE dataset_id = ?', [dataset_id]);
        const row = await tx.get<Record<string, unknown>>(
          'SELECT id, workspace_id, status, column_names, row_count, filename, created_at, last_used_at FROM datasets WHERE id = ?',
          [dataset_id],
        );
        return {
          ok: true,
          dataset: {
            id: String(row!.id),
            workspace_id: String(row!.workspace_id),
            status: 'ready',
            columns: (row!.column_names as string | null) ?? null,
            row_count: Number(row!.row_count),
            filename: (row!.filename as string | null) ?? null,
            created_at: Number(row!.created_at),
            last_used_at: Number(row!.last_used_at),
          },
        } as const;
      });
    },

    abortUpload(dataset_id, session) {
      return db.transaction(async (tx) => {
        const n = await tx.run('DELETE FROM upload_sessions WHERE dataset_id = ? AND session = ?', [dataset_id, session]);
        if (n === 0) return false;
        // still awaiting its upload: these pieces were never readable
        await tx.run(
          `DELETE FROM dataset_pieces WHERE dataset_id = ? AND EXISTS (SELECT 1 FROM datasets WHERE id = ? AND status = 'awaiting_upload')`,
          [dataset_id, dataset_id],
        );
        return true;
      });
    },

    async listDatasetPieceSizes(workspace_id, dataset_id) {
      const rows = await db.all<{ seq: number; size: number }>(
        `SELECT p.seq, LENGTH(p.content) AS size FROM dataset_pieces p JOIN datasets d ON d.id = p.dataset_id
         WHERE d.id = ? AND d.workspace_id = ? ORDER BY p.seq`,
        [dataset_id, workspace_id],
      );
      return rows.map((r) => ({ seq: Number(r.seq), size: Number(r.size) }));
    },

    async getDatasetPiece(workspace_id, dataset_id, seq) {
      const r = await db.get<{ content: Uint8Array }>(
        `SELECT p.content FROM dataset_pieces p JOIN datasets d ON d.id = p.dataset_id WHERE d.id = ? AND d.workspace_id = ? AND p.seq = ?`,
        [dataset_id, workspace_id, seq],
      );
      return r ? r.content : null;
    },
  };
}
