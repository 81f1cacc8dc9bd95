-- schedules
--
-- additions 2.9 schedules: a confirmed mapping answered on a cadence. The row carries the key the runs
-- act as (its id and scopes) and the sealed fetch_headers; deleting the row erases them (additions 2.10).
-- next_run_at is the period's claim: a run starts only by moving it on in the same statement (schedules.ts);
-- schedule_runs holds one row per period run, its key the period, so no period can have two.

CREATE TABLE schedules (
  schedule_id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  namespace TEXT NOT NULL,
  mapping_id TEXT NOT NULL,
  cadence TEXT NOT NULL,
  subject_kind TEXT NOT NULL,
  acknowledged INTEGER NOT NULL,
  key_id TEXT NOT NULL,
  scopes TEXT NOT NULL,
  sealed_headers TEXT,
  state TEXT NOT NULL,
  halt_code TEXT,
  model_ref TEXT,
  fit_hash TEXT,
  anchor_at BIGINT NOT NULL,
  next_run_at BIGINT,
  run_id TEXT,
  run_state TEXT,
  last_run TEXT,
  created_at BIGINT NOT NULL
);
CREATE INDEX schedules_by_workspace ON schedules (workspace_id, created_at);
CREATE INDEX schedules_due ON schedules (state, next_run_at);
CREATE TABLE schedule_runs (
  schedule_id TEXT NOT NULL,
  period_at BIGINT NOT NULL,
  run_id TEXT NOT NULL,
  started_at BIGINT NOT NULL,
  PRIMARY KEY (schedule_id, period_at)
);
