// Idempotency records (workspace + operation + key, leased while in flight) and stored answers, both kept 24 hours for replay.
import type { SqlClient } from './sql.ts';
import type { IdempotencyRecord, ReplayStore } from './types.ts';

interface IdempotencyRow {
  workspace_id: string;
  operation: string;
  idempotency_key: string;
  body_hash: string;
  status_code: number;
  response: string | null;
  task_id: string | null;
  lease_owner: string | null;
  lease_until: number | null;
  created_at: number;
}

const IDEM_COLUMNS =
  'workspace_id, operation, idempotency_key, body_hash, status_code, response, task_id, lease_owner, lease_until, created_at';
const IDEM_WHERE = 'workspace_id = ? AND operation = ? AND idempotency_key = ?';
const IN_FLIGHT = 'status_code = 0';

function toIdempotency(r: IdempotencyRow): IdempotencyRecord {
  return {
    workspace_id: r.workspace_id,
    operation: r.operation,
    key: r.idempotency_key,
    body_hash: r.body_hash,
    status_code: Number(r.status_code),
    response: r.response,
    task_id: r.task_id,
    lease_owner: r.lease_owner,
    lease_until: r.lease_until == null ? null : Number(r.lease_until),
    created_at: Number(r.created_at),
  };
}

export function replayQueries(db: SqlClient): ReplayStore {
  return {
    async getIdempotency(workspace_id, operation, key) {
      const r = await db.get<IdempotencyRow>(`SELECT ${IDEM_COLUMNS} FROM idempotency_records WHERE ${IDEM_WHERE}`, [
        workspace_id,
        operation,
        key,
      ]);
      return r ? toIdempotency(r) : null;
    },

    putIdempotency(rec, replace_before) {
      const pk = [rec.workspace_id, rec.operation, rec.key];
      return db.transaction(async (tx) => {
        // A record past its 24 hours that the sweeper has not reached yet no longer binds the key.
        // Two puts replacing it at once: the second DELETE waits for the first's row lock, finds the
        // row gone, and its INSERT then meets the first one's new row (PostgreSQL, READ COMMITTED).
        if (replace_before !== undefined) {
          await tx.run(`DELETE FROM idempotency_records WHERE ${IDEM_WHERE} AND created_at < ?`, [...pk, replace_before]);
        }
        for (let attempt = 1; ; attempt++) {
          const inserted = await tx.run(
            `INSERT INTO idempotency_records (${IDEM_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (workspace_id, operation, idempotency_key) DO NOTHING`,
            [...pk, rec.body_hash, rec.status_code, rec.response, rec.task_id, rec.lease_owner, rec.lease_until, rec.created_at],
          );
          const row = await tx.get<IdempotencyRow>(`SELECT ${IDEM_COLUMNS} FROM idempotency_records WHERE ${IDEM_WHERE}`, pk);
          if (row) return { inserted: inserted > 0, record: toIdempotency(row) };
          // The row our INSERT yielded to was deleted (deleteIdempotency, the sweeper) before this
          // SELECT looked (PostgreSQL: each statement sees what committed before it): insert again.
          if (attempt >= 5) throw new Error(`idempotency record ${rec.key} kept vanishing while it was being stored`);
        }
      });
    },

    async updateIdempotencyResponse(workspace_id, operation, key, status_code, response, owner) {
      // With an owner: a first call that lost its lease (another process re-ran it) does not overwrite.
      const mine = owner === undefined ? '' : ` AND ${IN_FLIGHT} AND lease_owner = ?`;
      const n = await db.run(
        `UPDATE idempotency_records SET status_code = ?, response = ?, lease_owner = NULL, lease_until = NULL
         WHERE ${IDEM_WHERE}${mine}`,
        [status_code, response, workspace_id, operation, key, ...(owner === undefined ? [] : [owner])],
      );
      return n > 0;
    },

    async renewIdempotencyLease(workspace_id, operation, key, owner, lease_until) {
      const n = await db.run(`UPDATE idempotency_records SET lease_until = ? WHERE ${IDEM_WHERE} AND ${IN_FLIGHT} AND lease_owner = ?`, [
        lease_until,
        workspace_id,
        operation,
        key,
        owner,
      ]);
      return n > 0;
    },

    async takeOverIdempotency(workspace_id, operation, key, body_hash, o) {
      // One UPDATE decides, as for tasks: of two retries only one sees the lease still lapsed.
      const n = await db.run(
        `UPDATE idempotency_records SET lease_owner = ?, lease_until = ?
         WHERE ${IDEM_WHERE} AND ${IN_FLIGHT} AND body_hash = ? AND (lease_until IS NULL OR lease_until < ?)`,
        [o.owner, o.now + o.lease_ms, workspace_id, operation, key, body_hash, o.now],
      );
      return n > 0;
    },

    async releaseIdempotency(workspace_id, operation, key, owner) {
      const n = await db.run(
        `UPDATE idempotency_records SET lease_owner = NULL, lease_until = NULL WHERE ${IDEM_WHERE} AND ${IN_FLIGHT} AND lease_owner = ?`,
        [workspace_id, operation, key, owner],
      );
      return n > 0;
    },

    deleteIdempotencyOlderThan(cutoff) {
      return db.run('DELETE FROM idempotency_records WHERE created_at < ?', [cutoff]);
    },

    async deleteIdempotency(workspace_id, operation, key) {
      return (await db.run(`DELETE FROM idempotency_records WHERE ${IDEM_WHERE}`, [workspace_id, operation, key])) > 0;
    },
  };
}
