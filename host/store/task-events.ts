// docs/reference/tasks.md#events: the events of a task (its SSE stream), numbered 1, 2, ... per task. The node that holds the
// task's lease writes them; any node serving the stream reads them, so a client connected anywhere sees a
// task running elsewhere (docs/design/architecture.md#runtime).
import { withoutSync, type SqlClient } from './sql.ts';
import type { NewTaskEvent, TaskEventKind, TaskEventRecord, TaskEventStore } from './types.ts';

interface EventRow {
  task_id: string;
  seq: number;
  kind: string;
  data: string;
  at: number;
}

const COLUMNS = 'task_id, seq, kind, data, at';

function toEvent(r: EventRow): TaskEventRecord {
  return { task_id: r.task_id, seq: Number(r.seq), kind: r.kind as TaskEventKind, data: r.data, at: Number(r.at) };
}

/**
 * Inserts `events` after the task's last one, inside the caller's transaction. A second writer that races
 * this one (a node that lost the lease a moment ago) finds the numbers taken and stores nothing twice.
 */
export async function insertTaskEvents(tx: SqlClient, task_id: string, events: readonly NewTaskEvent[]): Promise<void> {
  if (events.length === 0) return;
  const last = await tx.get<{ seq: number | null }>('SELECT MAX(seq) AS seq FROM task_events WHERE task_id = ?', [task_id]);
  let seq = Number(last?.seq ?? 0);
  for (const e of events) {
    await tx.run(`INSERT INTO task_events (${COLUMNS}) VALUES (?, ?, ?, ?, ?) ON CONFLICT (task_id, seq) DO NOTHING`, [
      task_id,
      ++seq,
      e.kind,
      e.data,
      e.at,
    ]);
  }
}

export function taskEventQueries(db: SqlClient): TaskEventStore {
  return {
    // Progress, appended while the task runs: no fsync (sql.ts TransactionOptions). The task's creation and
    // its final event, stored with its status, stay durable.
    appendTaskEvents(task_id, owner, events) {
      return withoutSync(db).transaction(async (tx) => {
        // Only the lease holder speaks for a running task: one that lost it leaves the stream to the taker.
        const held = await tx.get('SELECT id FROM tasks WHERE id = ? AND status = ? AND lease_owner = ?', [task_id, 'running', owner]);
        if (!held) return false;
        await insertTaskEvents(tx, task_id, events);
        return true;
      });
    },

    async listTaskEvents(task_id, after_seq, limit) {
      const rows = await db.all<EventRow>(`SELECT ${COLUMNS} FROM task_events WHERE task_id = ? AND seq > ? ORDER BY seq LIMIT ?`, [
        task_id,
        after_seq,
        limit,
      ]);
      return rows.map(toEvent);
    },

    async lastTaskEvent(task_id, kind) {
      const r = await db.get<EventRow>(`SELECT ${COLUMNS} FROM task_events WHERE task_id = ? AND kind = ? ORDER BY seq DESC LIMIT 1`, [
        task_id,
        kind,
      ]);
      return r ? toEvent(r) : null;
    },
  };
}
