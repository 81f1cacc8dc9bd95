-- initial schema
--
-- Timestamps are epoch milliseconds in BIGINT columns; flags are INTEGER 0/1; JSON is TEXT.

CREATE TABLE workspaces (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  key_hash TEXT NOT NULL UNIQUE,
  prefix TEXT NOT NULL,
  workspace_id TEXT NOT NULL,
  mode TEXT NOT NULL,
  scopes TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  revoked_at BIGINT
);
CREATE INDEX api_keys_by_workspace ON api_keys (workspace_id);
CREATE TABLE signing_keys (
  kid TEXT PRIMARY KEY,
  private_jwk TEXT NOT NULL,
  public_jwk TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  retired_at BIGINT
);
CREATE TABLE datasets (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  status TEXT NOT NULL,
  column_names TEXT,
  row_count BIGINT NOT NULL,
  filename TEXT,
  created_at BIGINT NOT NULL,
  last_used_at BIGINT NOT NULL
);
CREATE INDEX datasets_by_last_use ON datasets (last_used_at);
CREATE TABLE dataset_pieces (
  dataset_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  row_count BIGINT NOT NULL,
  content {{BYTES}} NOT NULL,
  PRIMARY KEY (dataset_id, seq)
);
CREATE TABLE fits (
  model_ref TEXT PRIMARY KEY,
  fit_key TEXT NOT NULL UNIQUE,
  record_hash TEXT NOT NULL,
  bytes {{BYTES}} NOT NULL,
  meta TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE TABLE workspace_models (
  workspace_id TEXT NOT NULL,
  model_ref TEXT NOT NULL,
  refit_of TEXT,
  linked_at BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, model_ref)
);
CREATE TABLE tasks (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  status TEXT NOT NULL,
  request TEXT NOT NULL,
  result TEXT,
  problem TEXT,
  stage TEXT,
  lease_owner TEXT,
  lease_until BIGINT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX tasks_by_status ON tasks (status, created_at);
CREATE INDEX tasks_by_update ON tasks (updated_at);
CREATE TABLE idempotency_records (
  workspace_id TEXT NOT NULL,
  operation TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  body_hash TEXT NOT NULL,
  status_code INTEGER NOT NULL,
  response TEXT,
  task_id TEXT,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, operation, idempotency_key)
);
CREATE INDEX idempotency_by_age ON idempotency_records (created_at);
CREATE TABLE answers (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX answers_by_age ON answers (created_at);
CREATE TABLE usage_ledger (
  workspace_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  count BIGINT NOT NULL,
  at BIGINT NOT NULL
);
CREATE INDEX usage_by_workspace ON usage_ledger (workspace_id, at);
CREATE TABLE outcomes (
  workspace_id TEXT NOT NULL,
  model_ref TEXT NOT NULL,
  entity_id TEXT NOT NULL,
  outcome INTEGER NOT NULL,
  observed_at BIGINT NOT NULL,
  event_id TEXT,
  created_at BIGINT NOT NULL,
  UNIQUE (workspace_id, model_ref, event_id)
);
CREATE INDEX outcomes_by_model ON outcomes (workspace_id, model_ref, observed_at);
CREATE TABLE attestations (
  workspace_id TEXT NOT NULL,
  model_ref TEXT NOT NULL,
  entity_id TEXT NOT NULL,
  feature TEXT NOT NULL,
  direction TEXT NOT NULL,
  compliant INTEGER NOT NULL,
  post_value TEXT NOT NULL,
  acted_at BIGINT NOT NULL,
  event_id TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  UNIQUE (workspace_id, model_ref, event_id)
);
CREATE INDEX attestations_by_model ON attestations (workspace_id, model_ref, acted_at);
