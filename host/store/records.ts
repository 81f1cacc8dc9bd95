// Plain records the store returns: they mirror the table columns (snake_case); timestamps are epoch ms unless noted.

export type Bytes = Uint8Array;

export interface Workspace {
  id: string;
  name: string;
  created_at: number;
}

export type KeyMode = 'live' | 'test';

export interface ApiKeyRecord {
  id: string;
  key_hash: string; // sha256 hex of the whole key; the key itself is never stored
  prefix: string; // shown to operators, e.g. the first 14 chars
  workspace_id: string;
  mode: KeyMode;
  scopes: string[]; // e.g. ['write:outcomes']
  created_at: number;
  revoked_at: number | null;
}

export interface NewApiKey {
  key_hash: string;
  prefix: string;
  workspace_id: string;
  mode: KeyMode;
  scopes: string[];
  created_at: number;
}

/** The key ring's own shape: timestamps as ISO strings (stored as epoch ms, read back via toISOString). */
export interface StoredSigningKey {
  kid: string;
  private_jwk: string;
  public_jwk: string;
  created_at: string;
  retired_at: string | null;
}

export type DatasetStatus = 'open' | 'ready' | 'awaiting_upload' | 'sealed';

export interface DatasetRecord {
  id: string;
  workspace_id: string;
  status: DatasetStatus;
  columns: string | null; // JSON text (array of column names)
  row_count: number;
  filename: string | null;
  created_at: number;
  last_used_at: number;
}

export interface DatasetPiece {
  seq: number;
  row_count: number;
  content: Bytes; // CSV text or canonical rows JSON, as UTF-8 bytes
}

export interface NewDatasetPiece {
  workspace_id: string;
  dataset_id: string;
  seq?: number; // expected seq (1, 2, ...); omitted: the next one. Anything but the next is refused
  content: Bytes | string;
  row_count: number;
  columns?: string | null; // set the dataset's columns (JSON text) in the same transaction
  status?: 'open' | 'ready'; // move the dataset to this status in the same transaction
  at: number; // also refreshes last_used_at
}

export type AppendPieceResult =
  { ok: true; seq: number; dataset: DatasetRecord } | { ok: false; reason: 'unknown_dataset' | 'dataset_sealed' | 'out_of_order' };

/** docs/reference/datasets.md#formats: how the pieces of an upload are read; gzip and Parquet are kept as sent (passed through). */
export type UploadFormat = 'csv' | 'gzip' | 'parquet';

/** An upload in pieces under way (docs/reference/datasets.md#uploads): who sends it, what it is, how far it has got. */
export interface UploadSessionRecord {
  dataset_id: string;
  session: string;
  format: UploadFormat;
  /** Pieces received: 0 .. pieces-1 are stored, `pieces` is the next index. */
  pieces: number;
  bytes: number;
  /** CSV: data rows so far, the header row (UTF-8), and whether the last piece ended inside a row. */
  rows: number;
  header: string | null;
  open_row: boolean;
  created_at: number;
  updated_at: number;
}

export interface NewUploadPiece {
  workspace_id: string;
  dataset_id: string;
  session: string;
  index: number;
  /** Only read for piece 0: the format the whole upload takes. */
  format: UploadFormat;
  content: Bytes;
  /** The bytes this piece adds to the file (its payload), its data rows (CSV), its header (CSV piece 0). */
  bytes: number;
  rows: number;
  header: string | null;
  open_row: boolean;
  at: number;
}

export type UploadPieceResult =
  | { ok: true; resent: boolean; upload: UploadSessionRecord }
  | { ok: false; reason: 'unknown_dataset' | 'complete' | 'session_mismatch' | 'out_of_order'; upload: UploadSessionRecord | null };

export type CompleteUploadResult =
  | { ok: true; dataset: DatasetRecord }
  | { ok: false; reason: 'unknown_dataset' | 'complete' | 'session_mismatch' | 'pieces_missing'; upload: UploadSessionRecord | null };

/** A fit as cached by fit key; shared by every workspace (it depends only on record content). */
export interface FitRecord {
  model_ref: string;
  fit_key: string;
  record_hash: string;
  bytes: Bytes;
  meta: string; // JSON text: state, quality, ...
  created_at: number;
}

/** A workspace's link to a model_ref (docs/reference/ask.md#namespace): the namespace it serves, its fit, its life. */
export interface ModelLink {
  /** The ref this link answers to (a namespaced ref differs from its fit's). */
  model_ref: string;
  workspace_id: string;
  /** '' = the workspace's own models (no namespace). */
  namespace: string;
  /** The fits row it serves (fits.model_ref). */
  fit_ref: string;
  /** The fit's key; null once the fit's bytes were deleted (every link to it deleted). */
  fit_key: string | null;
  refit_of: string | null;
  linked_at: number; // when this workspace first got the model_ref
  /** Epoch ms after which it serves no scoring and cannot be extended (docs/reference/models.md#extend, docs/reference/errors.md#codes model_expired). */
  expires_at: number | null;
  /** Set by svc_delete_model (docs/reference/models.md#delete); the link stays as a tombstone so the ref answers model_deleted. */
  deleted_at: number | null;
}

/** A fit as seen by one workspace (and namespace) that was given its model_ref: the link and the fit. */
export interface ModelRecord extends FitRecord, Omit<ModelLink, 'fit_key'> {}

export interface NewModel {
  /** The ref the workspace is given: the fit's own, or a namespaced one (core/fit-outcome.ts). */
  model_ref: string;
  workspace_id: string;
  namespace?: string;
  /** The fits row's ref (default model_ref). */
  fit_ref?: string;
  fit_key: string;
  record_hash: string;
  bytes: Bytes;
  meta: string;
  refit_of?: string | null;
  created_at: number;
  /**
   * The link lives at least until then (an existing later expiry is kept); a deleted link comes back with
   * exactly this. null keeps what is stored.
   */
  expires_at?: number | null;
}

/** What svc_delete_model did: whether the link was live, and the fit key whose bytes went with it. */
export interface DeleteModelResult {
  deleted: boolean;
  /** The fit whose bytes were removed (no live link to it was left), so caches drop it too. */
  fit_key_removed: string | null;
}

export type TaskStatus = 'pending' | 'running' | 'done' | 'failed';

export interface TaskRecord {
  id: string;
  workspace_id: string;
  status: TaskStatus;
  request: string; // JSON text
  result: string | null; // JSON text
  problem: string | null; // JSON text
  stage: string | null;
  lease_owner: string | null;
  lease_until: number | null;
  /** How many times the task was started (claimed); a graceful hand-back does not count. */
  attempts: number;
  created_at: number;
  updated_at: number;
}

export interface NewTask {
  id: string;
  workspace_id: string;
  request: string;
  stage?: string | null;
  created_at: number;
  /** Inserted already running under this lease (attempt 1), so no other runner can claim it first. */
  lease?: { owner: string; lease_until: number };
  /**
   * The in-flight idempotency record of the call that became this task: given this reply (the 202)
   * and the task id in the same transaction, so a retry finds the task, never a second fit.
   */
  idempotency?: {
    operation: string;
    key: string;
    status_code: number;
    response: string;
    /** The process holding the record in flight (the task's creator, also when the task is queued without a lease). */
    owner?: string;
  };
  /** Events the call made before it became a task (docs/reference/tasks.md#events), stored with it as seq 1, 2, ... */
  events?: NewTaskEvent[];
}

/** docs/reference/tasks.md#events event kinds of a task's stream. */
export type TaskEventKind = 'stage' | 'answer' | 'done' | 'error';

export interface NewTaskEvent {
  kind: TaskEventKind;
  /** The event's `data` as JSON text. */
  data: string;
  at: number;
}

/** A stored event: `seq` is its SSE id, counting 1, 2, ... per task (docs/decisions/0045-event-ids.md: integer ids). */
export interface TaskEventRecord extends NewTaskEvent {
  task_id: string;
  seq: number;
}

export interface ClaimOptions {
  owner: string;
  now: number;
  lease_ms: number;
}

/** Unfinished tasks as admission control sees them (TaskStore.countUnfinishedTasks). */
export interface TaskCounts {
  /** Tasks of every workspace waiting for a thread. */
  pending: number;
  /** This workspace's pending and running tasks. */
  workspace: number;
}

export interface IdempotencyRecord {
  workspace_id: string;
  operation: string;
  key: string;
  body_hash: string;
  status_code: number;
  response: string | null; // JSON text
  task_id: string | null;
  /** While in flight (status_code 0): who is running the first call, and until when (renewed). */
  lease_owner: string | null;
  lease_until: number | null;
  created_at: number;
}

export interface IdempotencyPutResult {
  inserted: boolean;
  record: IdempotencyRecord; // the row now stored: the new one, or the existing one
}

/** A refit's drift report, kept with the workspace's link to the new model_ref. */
export interface DriftRecord {
  refit_of: string;
  report: string; // JSON text
}

export type UsageKind = 'fit' | 'decision';

export interface UsageEntry {
  workspace_id: string;
  /** docs/reference/ask.md#namespace: usage is metered per namespace ('' = the workspace's own). */
  namespace?: string;
  kind: UsageKind;
  count: number;
  at: number;
}

export interface MonthlyUsage {
  month: string; // 'YYYY-MM' (UTC)
  fits: number;
  decisions: number;
}

export interface OutcomeRecord {
  workspace_id: string;
  model_ref: string;
  entity_id: string;
  outcome: 0 | 1;
  observed_at: number;
  event_id: string | null; // null: no idempotency for this item
  created_at: number;
}

export interface WriteOutcomesResult {
  written: number;
  duplicates: number;
  /** Per item, in the order given: true when written, false when a duplicate (docs/reference/outcomes.md#report per-row results). */
  written_each: boolean[];
}

export interface AttestationRecord {
  workspace_id: string;
  model_ref: string;
  entity_id: string;
  feature: string;
  direction: string;
  compliant: boolean;
  post_value: string; // JSON text
  acted_at: number;
  event_id: string;
  created_at: number;
}

export interface InsertAttestationResult {
  written: boolean;
  record: AttestationRecord; // the existing row when event_id was already used
}

export interface SweepResult {
  idempotency: number;
  tasks: number;
  datasets: string[];
  answers: number;
}

export type StoredAnswerKind = 'json' | 'csv';

/** An answer kept for 24 hours (docs/reference/models.md#stored-answers, docs/reference/ask.md#large-answers): written in parts, readable once `parts` is set. */
export interface StoredAnswer {
  workspace_id: string;
  id: string;
  kind: StoredAnswerKind;
  parts: number;
  byte_count: number;
  created_at: number;
  expires_at: number;
}

export interface StoredAnswerPart {
  answer_id: string;
  seq: number; // 1, 2, ...
  content: Bytes | string;
  expires_at: number;
}

/** A namespace's profile (docs/reference/models.md#profile): the JSON body and its hash. */
export interface ProfileRecord {
  workspace_id: string;
  namespace: string; // '' = the workspace's own
  body: string; // JSON text
  hash: string;
  updated_at: number;
}

/** One count in a fixed window of a rate limit (CoordinationStore.countInWindow). */
export interface WindowCount {
  /** What is counted, e.g. `workspace:<id>` or `register:<address>`. */
  bucket: string;
  /** Epoch ms at which the window starts; with the bucket it names the counter. */
  window_start: number;
  /** When the counter may be swept (the window's end). */
  expires_at: number;
  limit: number;
}
