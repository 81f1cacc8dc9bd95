// Schedules (docs/reference/schedules.md#runs, docs/reference/schedules.md#delete): a confirmed mapping answered on a cadence. A period's run starts only by
// moving next_run_at on from the value the dispatcher read, in the same transaction that queues the run's
// task, so of N nodes (or one node and its restart) exactly one starts each period's run, and a run
// whose node dies is a task like any other: claimed again when its lease lapses.
import type { SqlClient, SqlValue } from './sql.ts';

export type ScheduleState = 'active' | 'stopped' | 'halted';

export interface ScheduleRecord {
  schedule_id: string;
  workspace_id: string;
  /** '' = the workspace's own models (docs/reference/ask.md#namespace). */
  namespace: string;
  mapping_id: string;
  cadence: 'daily' | 'weekly' | 'monthly';
  subject_kind: string;
  acknowledged: boolean;
  /** The API key the runs act as, and its scopes when the schedule was made (docs/reference/schedules.md#runs). */
  key_id: string;
  scopes: string[];
  /** The mapping's fetch_headers, sealed (host/signing/sealed-headers.ts); null when it has none. */
  sealed_headers: string | null;
  state: ScheduleState;
  halt_code: string | null;
  /** The model the runs score with (docs/reference/schedules.md#runs `model_ref`, in use); null before the first answered fit. */
  model_ref: string | null;
  /** The labelled readings (their sha256, row for row) of the latest fit: an unchanged record is not fitted again. */
  fit_hash: string | null;
  /** The first run's time: periods count from it (a month is the same day of the month as this). */
  anchor_at: number;
  next_run_at: number | null;
  /** The latest run's task id and state, and its whole report as JSON (docs/reference/schedules.md#runs `last_run`). */
  run_id: string | null;
  run_state: string | null;
  last_run: string | null;
  created_at: number;
}

/** What a run may change of its schedule as it goes (only while it is still the schedule's run). */
export interface ScheduleRunUpdate {
  last_run: string;
  run_state: string;
  state?: ScheduleState;
  halt_code?: string | null;
  model_ref?: string | null;
  fit_hash?: string | null;
  next_run_at?: number | null;
}

/** The run a dispatcher starts: its task, queued (pending) for any node's runner. */
export interface ScheduleRunStart {
  run_id: string;
  /** The TaskRequest of the run, as JSON. */
  request: string;
  last_run: string;
  now: number;
}

export interface ScheduleStore {
  putSchedule(s: ScheduleRecord): Promise<void>;
  getSchedule(workspace_id: string, schedule_id: string): Promise<ScheduleRecord | null>;
  /** The workspace's schedules, oldest first (svc_describe). */
  listSchedules(workspace_id: string): Promise<ScheduleRecord[]>;
  /** false when there is no such schedule (docs/reference/schedules.md#delete: a repeat is unknown_schedule). */
  deleteSchedule(workspace_id: string, schedule_id: string): Promise<boolean>;
  /** The runs a schedule has had, one per period, oldest first. */
  listScheduleRuns(schedule_id: string): Promise<Array<{ period_at: number; run_id: string; started_at: number }>>;
  /** Active schedules whose next run is due at `now`, soonest first. */
  dueSchedules(now: number, limit: number): Promise<ScheduleRecord[]>;
  /** Runs under way across every node (docs/reference/schedules.md#runs: at most 10 at once). */
  runningScheduleRuns(): Promise<number>;
  /**
   * Starts the period's run when next_run_at still reads `expectedNext` (nobody started it): moves it to
   * `nextRunAt` and queues the run's task, in one transaction. false: another node (or an earlier tick)
   * started it, or the schedule was deleted or stopped.
   */
  startScheduleRun(schedule_id: string, expectedNext: number, nextRunAt: number, run: ScheduleRunStart): Promise<boolean>;
  /**
   * Runs recorded as running whose task is gone or ended without recording its end (its process died
   * more often than a task is retried): the dispatcher closes them, so the schedule runs on.
   */
  lostScheduleRuns(): Promise<ScheduleRecord[]>;
  /** Records a run's progress; false when the schedule is gone or runs another run now. */
  updateScheduleRun(schedule_id: string, run_id: string, u: ScheduleRunUpdate): Promise<boolean>;
}

const COLUMNS =
  'schedule_id, workspace_id, namespace, mapping_id, cadence, subject_kind, acknowledged, key_id, scopes, sealed_headers, ' +
  'state, halt_code, model_ref, fit_hash, anchor_at, next_run_at, run_id, run_state, last_run, created_at';

type Row = Omit<ScheduleRecord, 'acknowledged' | 'scopes'> & { acknowledged: number; scopes: string };

function fromRow(r: Row): ScheduleRecord {
  return {
    ...r,
    acknowledged: Number(r.acknowledged) === 1,
    scopes: JSON.parse(r.scopes) as string[],
    anchor_at: Number(r.anchor_at),
    next_run_at: r.next_run_at === null ? null : Number(r.next_run_at),
    created_at: Number(r.created_at),
  };
}

export function scheduleQueries(db: SqlClient): ScheduleStore {
  return {
    async putSchedule(s) {
      await db.run(`INSERT INTO schedules (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
        s.schedule_id,
        s.workspace_id,
        s.namespace,
        s.mapping_id,
        s.cadence,
        s.subject_kind,
        s.acknowledged ? 1 : 0,
        s.key_id,
        JSON.stringify(s.scopes),
        s.sealed_headers,
        s.state,
        s.halt_code,
        s.model_ref,
        s.fit_hash,
        s.anchor_at,
        s.next_run_at,
        s.run_id,
        s.run_state,
        s.last_run,
        s.created_at,
      ]);
    },

    async getSchedule(workspace_id, schedule_id) {
      const r = await db.get<Row>(`SELECT ${COLUMNS} FROM schedules WHERE workspace_id = ? AND schedule_id = ?`, [
        workspace_id,
        schedule_id,
      ]);
      return r ? fromRow(r) : null;
    },

    async listSchedules(workspace_id) {
      const rows = await db.all<Row>(`SELECT ${COLUMNS} FROM schedules WHERE workspace_id = ? ORDER BY created_at, schedule_id`, [
        workspace_id,
      ]);
      return rows.map(fromRow);
    },

    async deleteSchedule(workspace_id, schedule_id) {
      return db.transaction(async (tx) => {
        const n = await tx.run('DELETE FROM schedules WHERE workspace_id = ? AND schedule_id = ?', [workspace_id, schedule_id]);
        if (n > 0) await tx.run('DELETE FROM schedule_runs WHERE schedule_id = ?', [schedule_id]);
        return n > 0;
      });
    },

    async listScheduleRuns(schedule_id) {
      const rows = await db.all<{ period_at: number; run_id: string; started_at: number }>(
        'SELECT period_at, run_id, started_at FROM schedule_runs WHERE schedule_id = ? ORDER BY period_at',
        [schedule_id],
      );
      return rows.map((r) => ({ period_at: Number(r.period_at), run_id: r.run_id, started_at: Number(r.started_at) }));
    },

    async dueSchedules(now, limit) {
      const rows = await db.all<Row>(
        `SELECT ${COLUMNS} FROM schedules WHERE state = 'active' AND next_run_at IS NOT NULL AND next_run_at <= ?
         ORDER BY next_run_at, schedule_id LIMIT ?`,
        [now, limit],
      );
      return rows.map(fromRow);
    },

    async runningScheduleRuns() {
      const r = await db.get<{ n: number }>("SELECT COUNT(*) AS n FROM schedules WHERE run_state = 'running'");
      return r ? Number(r.n) : 0;
    },

    async startScheduleRun(schedule_id, expectedNext, nextRunAt, run) {
      return db.transaction(async (tx) => {
        const moved = await tx.run(
          `UPDATE schedules SET next_run_at = ?, run_id = ?, run_state = 'running', last_run = ?
           WHERE schedule_id = ? AND state = 'active' AND next_run_at = ? AND (run_state IS NULL OR run_state <> 'running')`,
          [nextRunAt, run.run_id, run.last_run, schedule_id, expectedNext],
        );
        if (moved === 0) return false;
        // the period's one run (the primary key refuses a second, whatever raced past the UPDATE)
        await tx.run('INSERT INTO schedule_runs (schedule_id, period_at, run_id, started_at) VALUES (?, ?, ?, ?)', [
          schedule_id,
          expectedNext,
          run.run_id,
          run.now,
        ]);
        const s = await tx.get<{ workspace_id: string }>('SELECT workspace_id FROM schedules WHERE schedule_id = ?', [schedule_id]);
        // Queued, not leased: whichever node's runner has a free thread claims it (host/runtime/tasks.ts).
        await tx.run(
          `INSERT INTO tasks (id, workspace_id, status, request, result, problem, stage, lease_owner, lease_until, attempts, created_at, updated_at)
           VALUES (?, ?, 'pending', ?, NULL, NULL, 'reading_data', NULL, NULL, 0, ?, ?)`,
          [run.run_id, s!.workspace_id, run.request, run.now, run.now],
        );
        return true;
      });
    },

    async lostScheduleRuns() {
      const rows = await db.all<Row>(
        `SELECT ${COLUMNS.split(', ')
          .map((c) => `s.${c}`)
          .join(', ')} FROM schedules s LEFT JOIN tasks t ON t.id = s.run_id
         WHERE s.run_state = 'running' AND (t.id IS NULL OR t.status IN ('done', 'failed'))`,
      );
      return rows.map(fromRow);
    },

    async updateScheduleRun(schedule_id, run_id, u) {
      const sets = ['last_run = ?', 'run_state = ?'];
      const args: SqlValue[] = [u.last_run, u.run_state];
      for (const key of ['state', 'halt_code', 'model_ref', 'fit_hash', 'next_run_at'] as const) {
        if (u[key] !== undefined) {
          sets.push(`${key} = ?`);
          args.push(u[key]);
        }
      }
      return (
        (await db.run(`UPDATE schedules SET ${sets.join(', ')} WHERE schedule_id = ? AND run_id = ?`, [...args, schedule_id, run_id])) > 0
      );
    },
  };
}
