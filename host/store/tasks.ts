// Pending asks as tasks: any node may claim one with a lease, so a task survives the node that began it.
import { toCount, type SqlClient } from './sql.ts';
import type { NewTaskEvent, TaskRecord, TaskStatus, TaskStore } from './types.ts';
import { insertTaskEvents } from './task-events.ts';

interface TaskRow {
  id: string;
  workspace_id: string;
  status: string;
  request: string;
  result: string | null;
  problem: string | null;
  stage: string | null;
  lease_owner: string | null;
  lease_until: number | null;
  attempts: number;
  created_at: number;
  updated_at: number;
}

const COLUMNS = 'id, workspace_id, status, request, result, problem, stage, lease_owner, lease_until, attempts, created_at, updated_at';

// A task is claimable when nobody has it, or its holder stopped renewing the lease (crashed).
const CLAIMABLE = "(status = 'pending' OR (status = 'running' AND lease_until < ?))";

function toTask(r: TaskRow): TaskRecord {
  return {
    ...r,
    status: r.status as TaskStatus,
    lease_until: r.lease_until == null ? null : Number(r.lease_until),
    attempts: Number(r.attempts),
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };
}

export function taskQueries(db: SqlClient): TaskStore {
  async function claimTask(id: string, o: { owner: string; now: number; lease_ms: number }): Promise<TaskRecord | null> {
    // One UPDATE decides: of two claimers only one sees the row still claimable.
    const r = await db.get<TaskRow>(
      `UPDATE tasks SET status = 'running', lease_owner = ?, lease_until = ?, updated_at = ?, attempts = attempts + 1
       WHERE id = ? AND ${CLAIMABLE} RETURNING ${COLUMNS}`,
      [o.owner, o.now + o.lease_ms, o.now, id, o.now],
    );
    return r ? toTask(r) : null;
  }

  // A finished task drops its request: inline data is kept only while the call runs (docs/reference/limits.md#limits). Its last
  // event (docs/reference/tasks.md#events done/error) is stored in the same transaction, so a stream never sees one without the other.
  function finish(
    id: string,
    owner: string,
    status: TaskStatus,
    field: 'result' | 'problem',
    body: string,
    now: number,
    event: NewTaskEvent | undefined,
  ): Promise<boolean> {
    return db.transaction(async (tx) => {
      const n = await tx.run(
        `UPDATE tasks SET status = ?, ${field} = ?, request = '', lease_owner = NULL, lease_until = NULL, updated_at = ?
         WHERE id = ? AND status = 'running' AND lease_owner = ?`,
        [status, body, now, id, owner],
      );
      if (n > 0 && event) await insertTaskEvents(tx, id, [event]);
      return n > 0;
    });
  }

  return {
    createTask(t) {
      // Inserted running under its creator's lease: were it inserted pending and claimed after, another
      // process's runner could claim it in between and run the same work twice.
      const rec: TaskRecord = {
        id: t.id,
        workspace_id: t.workspace_id,
        status: t.lease ? 'running' : 'pending',
        request: t.request,
        result: null,
        problem: null,
        stage: t.stage ?? null,
        lease_owner: t.lease?.owner ?? null,
        lease_until: t.lease?.lease_until ?? null,
        attempts: t.lease ? 1 : 0,
        created_at: t.created_at,
        updated_at: t.created_at,
      };
      return db.transaction(async (tx) => {
        await tx.run(`INSERT INTO tasks (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
          rec.id,
          rec.workspace_id,
          rec.status,
          rec.request,
          null,
          null,
          rec.stage,
          rec.lease_owner,
          rec.lease_until,
          rec.attempts,
          rec.created_at,
          rec.updated_at,
        ]);
        if (t.events) await insertTaskEvents(tx, rec.id, t.events);
        const idem = t.idempotency;
        if (idem) {
          // Only a record still in flight under this task's creator: a reply already stored is never
          // turned back into a 202, and a record another process took over (this one's lease ran out)
          // stays that process's.
          await tx.run(
            `UPDATE idempotency_records SET status_code = ?, response = ?, task_id = ?, lease_owner = NULL, lease_until = NULL
             WHERE workspace_id = ? AND operation = ? AND idempotency_key = ? AND status_code = 0 AND lease_owner = ?`,
            [idem.status_code, idem.response, rec.id, rec.workspace_id, idem.operation, idem.key, idem.owner ?? rec.lease_owner],
          );
        }
        return rec;
      });
    },

    async getTask(workspace_id, id) {
      const r = await db.get<TaskRow>(`SELECT ${COLUMNS} FROM tasks WHERE id = ? AND workspace_id = ?`, [id, workspace_id]);
      return r ? toTask(r) : null;
    },

    claimTask,

    async claimNextTask(o) {
      // One statement picks the oldest claimable task and claims it. On PostgreSQL, FOR UPDATE SKIP
      // LOCKED makes nodes claiming at once pass over each other's rows instead of queueing on the
      // same oldest one, so each gets a different task; the outer WHERE checks again (READ COMMITTED).
      // SQLite runs one statement at a time.
      const lock = db.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
      const r = await db.get<TaskRow>(
        `UPDATE tasks SET status = 'running', lease_owner = ?, lease_until = ?, updated_at = ?, attempts = attempts + 1
         WHERE id = (SELECT id FROM tasks WHERE ${CLAIMABLE} ORDER BY created_at, id LIMIT 1${lock}) AND ${CLAIMABLE}
         RETURNING ${COLUMNS}`,
        [o.owner, o.now + o.lease_ms, o.now, o.now, o.now],
      );
      return r ? toTask(r) : null;
    },

    async renewTaskLease(id, o) {
      const n = await db.run(
        `UPDATE tasks SET lease_until = ?, updated_at = ?, stage = COALESCE(?, stage)
         WHERE id = ? AND status = 'running' AND lease_owner = ?`,
        [o.now + o.lease_ms, o.now, o.stage ?? null, id, o.owner],
      );
      return n > 0;
    },

    completeTask: (id, owner, result, now, event) => finish(id, owner, 'done', 'result', result, now, event),
    failTask: (id, owner, problem, now, event) => finish(id, owner, 'failed', 'problem', problem, now, event),

    async releaseTask(id, owner, now) {
      // A clean hand-back is not a start that died, so the attempt is not counted.
      const n = await db.run(
        `UPDATE tasks SET status = 'pending', lease_owner = NULL, lease_until = NULL, updated_at = ?, attempts = attempts - 1
         WHERE id = ? AND status = 'running' AND lease_owner = ?`,
        [now, id, owner],
      );
      return n > 0;
    },

    async countUnfinishedTasks(workspace_id) {
      // Only unfinished rows are read (tasks_by_status); there are at most the queue bound plus the running ones.
      const r = await db.get<{ pending: unknown; workspace: unknown }>(
        `SELECT COALESCE(SUM(CASE WHEN status = 'pending' THEN 1 ELSE 0 END), 0) AS pending,
                COALESCE(SUM(CASE WHEN workspace_id = ? THEN 1 ELSE 0 END), 0) AS workspace
         FROM tasks WHERE status IN ('pending', 'running')`,
        [workspace_id],
      );
      return { pending: toCount(r?.pending), workspace: toCount(r?.workspace) };
    },

    async discardTask(id, owner) {
      const n = await db.run(`DELETE FROM tasks WHERE id = ? AND status = 'running' AND lease_owner = ?`, [id, owner]);
      // its stream goes with it (nobody can follow a task whose id was never handed out)
      if (n > 0) await db.run('DELETE FROM task_events WHERE task_id = ?', [id]);
      return n > 0;
    },

    async listUnfinishedTasks() {
      const rows = await db.all<TaskRow>(`SELECT ${COLUMNS} FROM tasks WHERE status IN ('pending', 'running') ORDER BY created_at, id`);
      return rows.map(toTask);
    },
  };
}
