// Assembles the Store from the per-entity query modules over any SqlClient (SQLite or PostgreSQL).
import { answerQueries, profileQueries } from './answers.ts';
import { apiKeyQueries, signingKeyQueries, workspaceQueries } from './accounts.ts';
import { coordinationQueries, sweepCoordination } from './coordination.ts';
import { datasetQueries } from './datasets.ts';
import { evidenceQueries, usageQueries } from './evidence.ts';
import { modelQueries } from './models.ts';
import { mappingQueries } from './mappings.ts';
import { scheduleQueries } from './schedules.ts';
import { replayQueries } from './replay.ts';
import type { SqlClient } from './sql.ts';
import { taskQueries } from './tasks.ts';
import { trackRecordQueries } from './track-record.ts';
import { taskEventQueries } from './task-events.ts';
import { uploadQueries } from './uploads.ts';
import type { Store } from './types.ts';

/** docs/reference/limits.md#limits: idempotency keys, answers, poll results and unused datasets are kept 24 hours. */
export const RETENTION_MS = 24 * 60 * 60 * 1000;

export function createSqlStore(db: SqlClient): Store {
  const datasets = datasetQueries(db);
  const replay = replayQueries(db);
  return {
    ...workspaceQueries(db),
    ...apiKeyQueries(db),
    ...signingKeyQueries(db),
    ...datasets,
    ...uploadQueries(db),
    ...modelQueries(db),
    ...taskQueries(db),
    ...taskEventQueries(db),
    ...replay,
    ...usageQueries(db),
    ...evidenceQueries(db),
    ...coordinationQueries(db),
    ...answerQueries(db),
    ...profileQueries(db),
    ...trackRecordQueries(db),
    ...mappingQueries(db),
    ...scheduleQueries(db),

    async sweep(now, retention_ms = RETENTION_MS) {
      const cutoff = now - retention_ms;
      const idempotency = await replay.deleteIdempotencyOlderThan(cutoff);
      // A running task renews updated_at with its lease, so only finished or abandoned tasks go.
      const tasks = await db.run('DELETE FROM tasks WHERE updated_at < ?', [cutoff]);
      // A task's events go with it (docs/reference/tasks.md#events: the stream of a task kept 24 hours).
      await db.run('DELETE FROM task_events WHERE task_id NOT IN (SELECT id FROM tasks)');
      const deleted = await datasets.deleteDatasetsUnusedBefore(cutoff);
      await sweepCoordination(db, now);
      // docs/reference/models.md#stored-answers: a stored answer lives 24 hours from its completion (its own expires_at); parts
      // carry it too, so the parts of an answer whose writer died before finishing go as well.
      const answers = await db.run('DELETE FROM stored_answers WHERE expires_at < ?', [now]);
      await db.run('DELETE FROM stored_answer_parts WHERE expires_at < ?', [now]);
      return { idempotency, tasks, datasets: deleted, answers };
    },

    async ping() {
      await db.get('SELECT 1 AS one');
    },

    async countQueuedTasks() {
      const r = await db.get<{ n: number | string }>("SELECT COUNT(*) AS n FROM tasks WHERE status = 'pending'");
      return Number(r?.n ?? 0);
    },

    close: () => db.close(),
  };
}
