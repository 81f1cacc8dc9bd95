// Idempotency records (workspace + operation + key) and stored answers, both kept 24 hours for replay.
import type { SqlClient } from './sql.ts';
import type { IdempotencyRecord, ReplayStore, StoredAnswer } from './types.ts';

interface IdempotencyRow {
  workspace_id: string;
  operation: string;
  idempotency_key: string;
  body_hash: string;
  status_code: number;
  response: string | null;
  task_id: string | null;
  created_at: number;
}

const IDEM_COLUMNS = 'workspace_id, operation, idempotency_key, body_hash, status_code, response, task_id, created_at';
const IDEM_WHERE = 'workspace_id = ? AND operation = ? AND idempotency_key = ?';

function toIdempotency(r: IdempotencyRow): IdempotencyRecord {
  return {
    workspace_id: r.workspace_id,
    operation: r.operation,
    key: r.idempotency_key,
    body_hash: r.body_hash,
    status_code: Number(r.status_code),
    response: r.response,
    task_id: r.task_id,
    created_at: Number(r.created_at),
  };
}

export function replayQueries(db: SqlClient): ReplayStore {
  return {
    async getIdempotency(workspace_id, operation, key) {
      const r = await db.get<IdempotencyRow>(`SELECT ${IDEM_COLUMNS} FROM idempotency_records WHERE ${IDEM_WHERE}`, [
        workspace_id, operation, key,
      ]);
      return r ? toIdempotency(r) : null;
    },

    putIdempotency(rec, replace_before) {
      const pk = [rec.workspace_id, rec.operation, rec.key];
      return db.transaction(async (tx) => {
        // A record past its 24 hours that the sweeper has not reached yet no longer binds the key.
        if (replace_before !== undefined) {
          await tx.run(`DELETE FROM idempotency_records WHERE ${IDEM_WHERE} AND created_at < ?`, [...pk, replace_before]);
        }
        const inserted = await tx.run(
          `INSERT INTO idempotency_records (${IDEM_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (workspace_id, operation, idempotency_key) DO NOTHING`,
          [...pk, rec.body_hash, rec.status_code, rec.response, rec.task_id, rec.created_at],
        );
        const row = await tx.get<IdempotencyRow>(`SELECT ${IDEM_COLUMNS} FROM idempotency_records WHERE ${IDEM_WHERE}`, pk);
        return { inserted: inserted > 0, record: toIdempotency(row as IdempotencyRow) };
      });
    },

    async updateIdempotencyResponse(workspace_id, operation, key, status_code, response) {
      const n = await db.run(`UPDATE idempotency_records SET status_code = ?, response = ? WHERE ${IDEM_WHERE}`, [
        status_code, response, workspace_id, operation, key,
      ]);
      return n > 0;
    },

    deleteIdempotencyOlderThan(cutoff) {
      return db.run('DELETE FROM idempotency_records WHERE created_at < ?', [cutoff]);
    },

    async putAnswer(a) {
      // Same id again replaces the body, but never across workspaces.
      await db.run(
        `INSERT INTO answers (id, workspace_id, body, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET body = excluded.body, created_at = excluded.created_at
         WHERE answers.workspace_id = excluded.workspace_id`,
        [a.id, a.workspace_id, a.body, a.created_at],
      );
    },

    async getAnswer(workspace_id, id) {
      const r = await db.get<StoredAnswer>('SELECT id, workspace_id, body, created_at FROM answers WHERE id = ? AND workspace_id = ?', [
        id, workspace_id,
      ]);
      return r ? { ...r, created_at: Number(r.created_at) } : null;
    },
  };
}
