// Numbered schema migrations in the common subset of SQLite and PostgreSQL, and the runner applied on open.
import { lockForTransaction, type Dialect, type SqlClient } from './sql.ts';

export interface Migration {
  version: number;
  name: string;
  /**
   * One text for both dialects ({{BYTES}} stands for the binary column type, BLOB / BYTEA), or one per
   * dialect where they cannot share it (an empty text: nothing to do in that dialect).
   */
  sql: string | Record<Dialect, string>;
}

// Timestamps are epoch milliseconds in BIGINT columns; flags are INTEGER 0/1; JSON is TEXT.
// Never edit a released migration: add the next number.
//
// 2: a refit's drift report moves from `answers` (kept 24 hours, keyed by id alone, so a second
//    workspace's report of the same shared model_ref was dropped) to its workspace's refit link,
//    kept as long as the link (wire.md "The other operations": no_prior only without refit_of);
//    reports still in `answers` are carried over. `answers` is keyed per workspace. Tasks count their
//    starts (a task that keeps killing its process is given up). An in-flight idempotency record
//    carries its owner's lease, so a retry after a crash takes it over (wire.md "Idempotency"); rows
//    from before have no lease and count as stale.
// 3: `answers` goes: a reply is kept with its idempotency record or its task, and nothing read it.
// 4: PostgreSQL only: the big bytea columns (dataset pieces, fitted models) are compressed with lz4
//    instead of the default pglz. Measured here (PostgreSQL 15, 100 pieces of 1 MiB of CSV appended
//    and read back through the store, medians of 5, two runs on a shared 2-core machine): writing took
//    5.7-7.1 s with pglz and 1.3-1.6 s with lz4; reading 1.0-1.6 s with either; on disk 68 MB with
//    pglz, 79 MB with lz4 (109 MB uncompressed). Values stored before keep pglz and stay readable.
//    SQLite stores blobs as they are: nothing to do there.
// 5: contract 1.1 "ship a product" (additions 3.1, 2.2, 2.5, 2.6, 2.11, 3.7): a model link belongs to a
//    namespace of its workspace ('' = the workspace's own), names the shared fit it serves (`fit_ref`: a
//    namespaced model_ref differs from its fit's), and has an expiry and a deletion time (kept as a
//    tombstone, so a deleted ref answers 410 rather than 404); links from before expire 90 days (the
//    default model_ttl_days) after they were made. Usage is metered per namespace. Large answers are kept
//    24 hours in parts of about 1 MiB (answer_url, export CSV, svc_page cursors), and each namespace may
//    have a profile.
// 6: `task_events`: the events of a task's stream (spec 2.12), numbered per task, written by the node
//    running the task and read by any node serving the stream.
// 7: `upload_sessions`: an upload in pieces under way (spec 3.8), its session, format and progress; its
//    pieces are the dataset's pieces, unread until the upload completes.
// 8: what N nodes on one database must share beyond the data (README "More than one machine"): the HMAC
//    secrets of lever and upload tokens (were files under each node's DATA_DIR), rate-limit counters per
//    fixed window (PostgreSQL only counts there; SQLite keeps counting in its one process), the last run of
//    each periodic job (the sweeper runs once per period across the cluster), and claims on fits being
//    run (the same fit asked on several nodes at once runs once).
// 9: contract 1.1 track record (additions 2.1): what each answered case was told
//    (yesno, score, a rank's top_k; never choice), kept for pairing with reported outcomes: one row per
//    answer and model_ref holding its cases packed (a row per case cost 60 ms on SQLite and 186 ms on
//    PostgreSQL for a 10,000-case answer, 13% and 40% of the ask; BENCHMARKS.md "Track record").
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial schema',
    sql: `
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
`,
  },
  {
    version: 2,
    name: 'drift reports on the refit link, answers per workspace, task attempts, idempotency leases',
    sql: `
ALTER TABLE workspace_models ADD COLUMN drift TEXT;
UPDATE workspace_models SET drift = (
  SELECT a.body FROM answers a
  WHERE a.id = 'drift_' || workspace_models.model_ref AND a.workspace_id = workspace_models.workspace_id
) WHERE refit_of IS NOT NULL;
CREATE TABLE answers_v2 (
  workspace_id TEXT NOT NULL,
  id TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, id)
);
INSERT INTO answers_v2 (workspace_id, id, body, created_at)
  SELECT workspace_id, id, body, created_at FROM answers WHERE id NOT LIKE 'drift!_%' ESCAPE '!';
DROP TABLE answers;
ALTER TABLE answers_v2 RENAME TO answers;
CREATE INDEX answers_by_age ON answers (created_at);
ALTER TABLE tasks ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
UPDATE tasks SET attempts = 1 WHERE status = 'running';
ALTER TABLE idempotency_records ADD COLUMN lease_owner TEXT;
ALTER TABLE idempotency_records ADD COLUMN lease_until BIGINT;
`,
  },
  {
    version: 3,
    name: 'drop answers: replies are kept with idempotency records and tasks, drift reports on refit links',
    sql: `
DROP INDEX answers_by_age;
DROP TABLE answers;
`,
  },
  {
    version: 4,
    name: 'lz4 compression for dataset pieces and fitted models (PostgreSQL)',
    sql: {
      sqlite: '',
      postgres: `
ALTER TABLE dataset_pieces ALTER COLUMN content SET COMPRESSION lz4;
ALTER TABLE fits ALTER COLUMN bytes SET COMPRESSION lz4;
`,
    },
  },
  {
    version: 5,
    name: 'namespaces, model expiry and deletion, usage per namespace, stored answers, profiles',
    // as migration 4: answer parts are bytea of about 1 MiB, written and read whole
    sql: lz4OnPostgres(
      `
ALTER TABLE workspace_models ADD COLUMN namespace TEXT NOT NULL DEFAULT '';
ALTER TABLE workspace_models ADD COLUMN fit_ref TEXT;
ALTER TABLE workspace_models ADD COLUMN expires_at BIGINT;
ALTER TABLE workspace_models ADD COLUMN deleted_at BIGINT;
UPDATE workspace_models SET fit_ref = model_ref, expires_at = linked_at + 7776000000;
CREATE INDEX workspace_models_by_fit ON workspace_models (fit_ref);
ALTER TABLE usage_ledger ADD COLUMN namespace TEXT NOT NULL DEFAULT '';
CREATE TABLE stored_answers (
  workspace_id TEXT NOT NULL,
  id TEXT NOT NULL,
  kind TEXT NOT NULL,
  parts INTEGER NOT NULL,
  byte_count BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX stored_answers_by_expiry ON stored_answers (expires_at);
CREATE TABLE stored_answer_parts (
  answer_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  content {{BYTES}} NOT NULL,
  expires_at BIGINT NOT NULL,
  PRIMARY KEY (answer_id, seq)
);
CREATE INDEX stored_answer_parts_by_expiry ON stored_answer_parts (expires_at);
CREATE TABLE profiles (
  workspace_id TEXT NOT NULL,
  namespace TEXT NOT NULL,
  body TEXT NOT NULL,
  hash TEXT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, namespace)
);
`,
      { stored_answer_parts: 'content' },
    ),
  },
  {
    version: 6,
    name: 'task events',
    sql: `
CREATE TABLE task_events (
  task_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  data TEXT NOT NULL,
  at BIGINT NOT NULL,
  PRIMARY KEY (task_id, seq)
);
`,
  },
  {
    version: 7,
    name: 'upload sessions',
    sql: `
CREATE TABLE upload_sessions (
  dataset_id TEXT PRIMARY KEY,
  session TEXT NOT NULL,
  format TEXT NOT NULL,
  pieces INTEGER NOT NULL,
  bytes BIGINT NOT NULL,
  rows BIGINT NOT NULL,
  header TEXT,
  open_row INTEGER NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
`,
  },
  {
    version: 8,
    name: 'shared token secrets, rate-limit windows, periodic jobs and fit claims for several nodes',
    sql: `
CREATE TABLE service_secrets (
  purpose TEXT PRIMARY KEY,
  secret {{BYTES}} NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE TABLE rate_windows (
  bucket TEXT NOT NULL,
  window_start BIGINT NOT NULL,
  count BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  PRIMARY KEY (bucket, window_start)
);
CREATE INDEX rate_windows_by_expiry ON rate_windows (expires_at);
CREATE TABLE cluster_jobs (
  name TEXT PRIMARY KEY,
  last_run BIGINT NOT NULL,
  owner TEXT NOT NULL
);
CREATE TABLE fit_claims (
  fit_key TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  lease_until BIGINT NOT NULL
);
`,
  },
  {
    version: 9,
    name: 'answers kept for the track record',
    // as migration 4: the cases of a 10,000-case answer are about 0.3 MB, written and read whole
    sql: lz4OnPostgres(
      `
CREATE TABLE kept_answers (
  workspace_id TEXT NOT NULL,
  model_ref TEXT NOT NULL,
  answer_id TEXT NOT NULL,
  namespace TEXT NOT NULL,
  issued_at BIGINT NOT NULL,
  case_count INTEGER NOT NULL,
  cases {{BYTES}} NOT NULL,
  PRIMARY KEY (workspace_id, model_ref, answer_id)
);
`,
      { kept_answers: 'cases' },
    ),
  },
  // 10: additions 2.7 mappings, per workspace and namespace ('' = its own).
  {
    version: 10,
    name: 'mappings',
    sql: `
CREATE TABLE mappings (
  workspace_id TEXT NOT NULL,
  namespace TEXT NOT NULL,
  mapping_id TEXT NOT NULL,
  request TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, namespace, mapping_id)
);
`,
  },
  // 11: additions 2.9 schedules: a confirmed mapping answered on a cadence. The row carries the key the runs
  // act as (its id and scopes) and the sealed fetch_headers; deleting the row erases them (additions 2.10).
  // next_run_at is the period's claim: a run starts only by moving it on in the same statement (schedules.ts);
  // schedule_runs holds one row per period run, its key the period, so no period can have two.
  {
    version: 11,
    name: 'schedules',
    sql: `
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
`,
  },
];

const BINARY_TYPE: Record<Dialect, string> = { sqlite: 'BLOB', postgres: 'BYTEA' };

/**
 * A migration the same on both dialects, with lz4 compression of these bytea columns on PostgreSQL
 * (`{ table: column }`; why lz4: migration 4's comment). SQLite stores blobs as they are.
 */
function lz4OnPostgres(sql: string, columns: Record<string, string>): { sqlite: string; postgres: string } {
  const alters = Object.entries(columns).map(([table, column]) => `ALTER TABLE ${table} ALTER COLUMN ${column} SET COMPRESSION lz4;\n`);
  return { sqlite: sql, postgres: sql + alters.join('') };
}

export function renderMigration(sql: Migration['sql'], dialect: Dialect): string {
  return (typeof sql === 'string' ? sql : sql[dialect]).replaceAll('{{BYTES}}', BINARY_TYPE[dialect]);
}

// PostgreSQL: nodes starting at once on an empty database would each see a migration missing and run
// it (a second CREATE TABLE fails; a second data step would run twice). Every step of the runner takes
// this transaction-scoped advisory lock first (lockForTransaction), so they queue: the next holder finds
// the version recorded and skips it. SQLite: BEGIN IMMEDIATE already lets one writer in at a time.
// The key is an arbitrary constant ('oqsmig' in ASCII).
export const MIGRATION_LOCK_KEY = 0x6f71736d6967;

/**
 * Applies every migration not yet in schema_migrations, each in its own transaction together with
 * its bookkeeping row, so a crash leaves either all of a migration or none. Returns the versions applied.
 */
export async function runMigrations(db: SqlClient, now: number = Date.now()): Promise<number[]> {
  await db.transaction(async (tx) => {
    await lockForTransaction(tx, MIGRATION_LOCK_KEY);
    await tx.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)',
    );
  });
  const applied: number[] = [];
  for (const m of MIGRATIONS) {
    const ran = await db.transaction(async (tx) => {
      await lockForTransaction(tx, MIGRATION_LOCK_KEY);
      const seen = await tx.get('SELECT version FROM schema_migrations WHERE version = ?', [m.version]);
      if (seen) return false;
      const sql = renderMigration(m.sql, tx.dialect);
      if (sql.trim() !== '') await tx.exec(sql);
      await tx.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [m.version, m.name, now]);
      return true;
    });
    if (ran) applied.push(m.version);
  }
  return applied;
}
