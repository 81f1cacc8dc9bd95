// What a schedule and its latest run look like on the wire (docs/reference/schedules.md#runs `schedule`, `last_run`; 3.10
// svc_describe `schedules[]`), from the stored row.
import type { ScheduleRecord } from '../../store/index.ts';

export const STEPS = ['map', 'fit', 'drift', 'score', 'report'] as const;
export type StepName = (typeof STEPS)[number];
export type StepState = 'pending' | 'running' | 'done' | 'skipped' | 'failed';
export type RunState = 'running' | 'done' | 'halted' | 'stopped';

/** docs/reference/schedules.md#runs `last_run`, plus what it read (`as_of`), the model it scored with, and why a step failed. */
export interface RunReport {
  run_id: string;
  at: string;
  state: RunState;
  step: StepName | null;
  steps: Record<StepName, StepState>;
  fits_run: number;
  decisions: number;
  scored: number;
  reported: number;
  duplicates: number;
  drift: { pattern: string; recommendation: string; refit_quality: string } | null;
  /** The model the open cases were scored with (null: none yet). */
  model_ref: string | null;
  /** The record's as_of (the latest time in the fetched logs); the next run reports outcomes closed since. */
  as_of: string | null;
  /** The previous run's as_of: readings whose label became known since then are reported (null: the first run). */
  closed_since: string | null;
  /** A failed step's problem, or the halt's. */
  error?: { step: StepName; code: string; detail: string };
}

export function newRunReport(runId: string, at: number, closedSince: string | null): RunReport {
  return {
    run_id: runId,
    at: new Date(at).toISOString(),
    state: 'running',
    step: null,
    steps: { map: 'pending', fit: 'pending', drift: 'pending', score: 'pending', report: 'pending' },
    fits_run: 0,
    decisions: 0,
    scored: 0,
    reported: 0,
    duplicates: 0,
    drift: null,
    model_ref: null,
    as_of: null,
    closed_since: closedSince,
  };
}

export function runReportOf(s: ScheduleRecord): RunReport | null {
  return s.last_run === null ? null : (JSON.parse(s.last_run) as RunReport);
}

/** docs/reference/schedules.md#runs `schedule`: the required fields always, halt_code and model_ref as they stand. */
export function scheduleView(s: ScheduleRecord): Record<string, unknown> {
  return {
    schedule_id: s.schedule_id,
    mapping_id: s.mapping_id,
    cadence: s.cadence,
    ...(s.namespace ? { namespace: s.namespace } : {}),
    state: s.state,
    next_run_at: s.next_run_at === null ? null : new Date(s.next_run_at).toISOString(),
    halt_code: s.halt_code,
    model_ref: s.model_ref,
    last_run: runReportOf(s),
  };
}
