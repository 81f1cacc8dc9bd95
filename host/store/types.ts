// The storage interface: one async API shared by the SQLite and PostgreSQL adapters.
import type { Dialect } from './sql.ts';
import type { MappingStore } from './mappings.ts';
import type { ScheduleStore } from './schedules.ts';
import type {
  Workspace,
  ApiKeyRecord,
  NewApiKey,
  StoredSigningKey,
  DatasetRecord,
  DatasetPiece,
  NewDatasetPiece,
  AppendPieceResult,
  FitRecord,
  ModelLink,
  ModelRecord,
  NewModel,
  DeleteModelResult,
  StoredAnswer,
  StoredAnswerPart,
  ProfileRecord,
  TaskRecord,
  NewTask,
  NewTaskEvent,
  TaskEventRecord,
  NewUploadPiece,
  UploadPieceResult,
  UploadSessionRecord,
  CompleteUploadResult,
  ClaimOptions,
  IdempotencyRecord,
  IdempotencyPutResult,
  DriftRecord,
  UsageEntry,
  MonthlyUsage,
  OutcomeRecord,
  WriteOutcomesResult,
  AttestationRecord,
  InsertAttestationResult,
  SweepResult,
  TaskCounts,
  WindowCount,
} from './records.ts';
import type { TrackRecordStore } from './track-record.ts';

export type * from './records.ts';
export type { AnsweredCase, KeptAnswers, ToldAnswer, TrackRecordStore } from './track-record.ts';
export type { ScheduleRecord, ScheduleRunStart, ScheduleRunUpdate, ScheduleState, ScheduleStore } from './schedules.ts';

export interface WorkspaceStore {
  createWorkspace(name: string, created_at?: number): Promise<Workspace>;
  getWorkspace(id: string): Promise<Workspace | null>;
  /** Creates the workspace with this id unless it exists (any number of processes at once); returns the stored row. */
  ensureWorkspace(id: string, name: string, created_at: number): Promise<Workspace>;
}

export interface ApiKeyStore {
  createApiKey(key: NewApiKey): Promise<ApiKeyRecord>;
  /** Revoked keys are returned too (check revoked_at). */
  findApiKeyByHash(key_hash: string): Promise<ApiKeyRecord | null>;
  listApiKeysByWorkspace(workspace_id: string): Promise<ApiKeyRecord[]>;
  listAllApiKeys(): Promise<ApiKeyRecord[]>;
  /** false when the key is unknown or already revoked. */
  revokeApiKey(id: string, revoked_at: number): Promise<boolean>;
}

export interface SigningKeyStore {
  loadKeys(): Promise<StoredSigningKey[]>;
  saveKey(k: StoredSigningKey): Promise<void>;
  /** Saves k (unretired) only when no unretired key exists, atomically across nodes; true when it was saved. */
  insertFirstKey(k: StoredSigningKey): Promise<boolean>;
  retireKey(kid: string, retired_at: string): Promise<boolean>;
}

export interface DatasetStore {
  createDataset(d: DatasetRecord): Promise<DatasetRecord>;
  getDataset(workspace_id: string, id: string): Promise<DatasetRecord | null>;
  /** Accepted only while the dataset is 'open' or 'awaiting_upload'. */
  appendDatasetPiece(piece: NewDatasetPiece): Promise<AppendPieceResult>;
  listDatasetPieces(workspace_id: string, dataset_id: string): AsyncIterable<DatasetPiece>;
  /** false when unknown or already sealed / not yet uploaded. */
  sealDataset(workspace_id: string, id: string, at: number): Promise<boolean>;
  touchDataset(workspace_id: string, id: string, last_used_at: number): Promise<boolean>;
  deleteDataset(workspace_id: string, id: string): Promise<boolean>;
  deleteDatasetsUnusedBefore(cutoff: number): Promise<string[]>;
}

/** docs/reference/datasets.md#uploads: uploads in pieces, stored as their dataset's pieces (host/store/uploads.ts). */
export interface UploadStore {
  /**
   * docs/reference/datasets.md#uploads: stores piece `index` of an upload in pieces (0 of a new session starts it over); a piece already
   * stored under this session is reported as resent and changes nothing.
   */
  receiveUploadPiece(p: NewUploadPiece): Promise<UploadPieceResult>;
  getUploadSession(dataset_id: string): Promise<UploadSessionRecord | null>;
  /** Marks the dataset ready when `session` holds exactly `pieces` pieces; the session ends. */
  completeUpload(
    workspace_id: string,
    dataset_id: string,
    session: string,
    pieces: number,
    r: { columns: string | null; row_count: number; at: number },
  ): Promise<CompleteUploadResult>;
  /** Drops the session and its pieces (a corrupt file: nothing half-stored); false when another session holds it. */
  abortUpload(dataset_id: string, session: string): Promise<boolean>;
  /** Each stored piece's number and byte length, in order. */
  listDatasetPieceSizes(workspace_id: string, dataset_id: string): Promise<Array<{ seq: number; size: number }>>;
  getDatasetPiece(workspace_id: string, dataset_id: string, seq: number): Promise<Uint8Array | null>;
}

export interface ModelStore {
  /**
   * Insert-if-absent for the fit, and the workspace's link to it: created, or kept with its expiry raised
   * to m.expires_at (a deleted link comes back); returns the stored model.
   */
  putModel(m: NewModel): Promise<ModelRecord>;
  /** Insert-if-absent for the fit alone (no link). */
  putFit(f: FitRecord): Promise<void>;
  /** The link and its fit; null when the link is unknown or its fit's bytes were deleted. */
  getModelByRef(workspace_id: string, model_ref: string): Promise<ModelRecord | null>;
  /** The link alone (also a deleted one, whose fit may be gone). */
  getModelLink(workspace_id: string, model_ref: string): Promise<ModelLink | null>;
  /** Whether the workspace holds a link to the fit `fit_ref` in any namespace, not deleted and not expired at `now`. */
  hasLiveFitLink(workspace_id: string, fit_ref: string, now: number): Promise<boolean>;
  /**
   * Moves a live link's expiry to `expires_at` unless it already ends later or never (extending never
   * shortens: docs/decisions/0064-extend-never-shortens.md); false when unknown or deleted.
   */
  extendModelExpiry(workspace_id: string, model_ref: string, expires_at: number): Promise<boolean>;
  /** Marks the link deleted and deletes its fit's bytes when no live link to that fit is left (one transaction). */
  deleteModel(workspace_id: string, model_ref: string, at: number): Promise<DeleteModelResult>;
  getModelByFitKey(fit_key: string): Promise<FitRecord | null>;
  /** Sets refit_of; a changed refit_of drops the drift report of the old one. */
  linkRefit(workspace_id: string, model_ref: string, refit_of: string): Promise<boolean>;
  /** Sets refit_of and its drift report together (one statement); false when the link is unknown. */
  saveDriftReport(workspace_id: string, model_ref: string, refit_of: string, report: string): Promise<boolean>;
  /** The report of the workspace's current refit_of; kept as long as the link. */
  getDriftReport(workspace_id: string, model_ref: string): Promise<DriftRecord | null>;
}

export interface TaskStore {
  /** Pending, or running under t.lease; with t.idempotency, that record points at the task in the same transaction. */
  createTask(t: NewTask): Promise<TaskRecord>;
  getTask(workspace_id: string, id: string): Promise<TaskRecord | null>;
  /** Claims this task when pending or its lease expired (counting an attempt); null when someone else holds it. */
  claimTask(id: string, opts: ClaimOptions): Promise<TaskRecord | null>;
  claimNextTask(opts: ClaimOptions): Promise<TaskRecord | null>;
  /** Extends the lease and records the stage; false when the lease was lost. */
  renewTaskLease(id: string, opts: ClaimOptions & { stage?: string }): Promise<boolean>;
  /** With `event` (the stream's `done`), that event is stored in the same transaction as the status. */
  completeTask(id: string, owner: string, result: string, now: number, event?: NewTaskEvent): Promise<boolean>;
  /** With `event` (the stream's `error`), that event is stored in the same transaction as the status. */
  failTask(id: string, owner: string, problem: string, now: number, event?: NewTaskEvent): Promise<boolean>;
  /** Hands a running task back (pending, this attempt not counted) so any runner claims it at once. */
  releaseTask(id: string, owner: string, now: number): Promise<boolean>;
  listUnfinishedTasks(): Promise<TaskRecord[]>;
  /**
   * Admission control (host/runtime/admission.ts): tasks waiting for a thread over the whole store, and
   * this workspace's unfinished (pending or running) tasks. Every node sharing the store counts the same.
   */
  countUnfinishedTasks(workspace_id: string): Promise<TaskCounts>;
  /** Deletes a running task whose reply went out in-line (nobody can poll it); only its lease owner. */
  discardTask(id: string, owner: string): Promise<boolean>;
}

/**
 * docs/reference/tasks.md#events: the events of a task, written by the node running it and read by any node serving its stream.
 * Only the lease holder appends; `done`/`error` come with completeTask/failTask.
 */
export interface TaskEventStore {
  /** Appends after the task's last event while `owner` holds its lease; false (nothing stored) otherwise. */
  appendTaskEvents(task_id: string, owner: string, events: NewTaskEvent[]): Promise<boolean>;
  /** Events after `after_seq`, oldest first, at most `limit`. */
  listTaskEvents(task_id: string, after_seq: number, limit: number): Promise<TaskEventRecord[]>;
  /** The task's latest event of this kind. */
  lastTaskEvent(task_id: string, kind: NewTaskEvent['kind']): Promise<TaskEventRecord | null>;
}

export interface ReplayStore {
  getIdempotency(workspace_id: string, operation: string, key: string): Promise<IdempotencyRecord | null>;
  /** Atomic insert-if-absent; a row created before replace_before is replaced as if absent. */
  putIdempotency(r: IdempotencyRecord, replace_before?: number): Promise<IdempotencyPutResult>;
  /** Stores the reply and ends the lease; with `owner`, only while that owner still holds the in-flight record. */
  updateIdempotencyResponse(
    workspace_id: string,
    operation: string,
    key: string,
    status_code: number,
    response: string,
    owner?: string,
  ): Promise<boolean>;
  /** Extends the in-flight lease; false when the reply is stored or another owner took it over. */
  renewIdempotencyLease(workspace_id: string, operation: string, key: string, owner: string, lease_until: number): Promise<boolean>;
  /** Takes over an in-flight record of this body whose lease ran out (or was released); true when won. */
  takeOverIdempotency(workspace_id: string, operation: string, key: string, body_hash: string, opts: ClaimOptions): Promise<boolean>;
  /** Gives up the in-flight lease (shutdown) so the next retry takes the record over at once. */
  releaseIdempotency(workspace_id: string, operation: string, key: string, owner: string): Promise<boolean>;
  deleteIdempotencyOlderThan(cutoff: number): Promise<number>;
  /** Forgets a key's record (a call that failed with a 5xx: the next retry runs it again). */
  deleteIdempotency(workspace_id: string, operation: string, key: string): Promise<boolean>;
}

export interface UsageStore {
  recordUsage(e: UsageEntry): Promise<void>;
  /** Totals for the UTC calendar month containing `at`: the workspace's (every namespace), or one namespace's. */
  getMonthlyUsage(workspace_id: string, at: number, namespace?: string): Promise<MonthlyUsage>;
}

export interface AnswerStore {
  putStoredAnswerPart(p: StoredAnswerPart): Promise<void>;
  /** Written after its parts: from then on the answer is readable. */
  finishStoredAnswer(a: StoredAnswer): Promise<void>;
  /** A whole answer held in memory: its parts and header in one transaction (one sync instead of one per part). */
  putStoredAnswer(a: StoredAnswer, parts: ReadonlyArray<Uint8Array | string>): Promise<void>;
  getStoredAnswer(workspace_id: string, id: string): Promise<StoredAnswer | null>;
  getStoredAnswerPart(answer_id: string, seq: number): Promise<Uint8Array | null>;
}

export interface ProfileStore {
  getProfile(workspace_id: string, namespace: string): Promise<ProfileRecord | null>;
  /** Replaces the namespace's profile (docs/reference/models.md#profile: a write replaces it whole). */
  putProfile(p: ProfileRecord): Promise<void>;
}

export interface EvidenceStore {
  /**
   * One transaction: all rows or none; a repeated event_id counts as a duplicate (`written_each` says which
   * item was written, in the items' order; of two items with one event_id the first is written).
   */
  writeOutcomes(items: OutcomeRecord[]): Promise<WriteOutcomesResult>;
  listOutcomes(workspace_id: string, model_ref: string): Promise<OutcomeRecord[]>;
  insertAttestation(a: AttestationRecord): Promise<InsertAttestationResult>;
  listAttestations(workspace_id: string, model_ref: string): Promise<AttestationRecord[]>;
}

/**
 * What the nodes sharing a store agree on (docs/guides/more-than-one-machine.md). On SQLite there is one node, and
 * the same calls work there too.
 */
export interface CoordinationStore {
  /** Which database: the service keeps some counting in process on SQLite (one node), in the store on PostgreSQL. */
  readonly dialect: Dialect;
  /** The database server's clock (epoch ms) on PostgreSQL, read now; null on SQLite, whose clock is the process's. */
  databaseTime(): Promise<number | null>;
  /** The secret kept for `purpose`: `candidate` when none was stored yet (the first caller's wins); every caller gets the stored one. */
  ensureSecret(purpose: string, candidate: Uint8Array, created_at: number): Promise<Uint8Array>;
  /**
   * Counts one event in the fixed window of `bucket` that starts at `window_start`, unless it holds `limit`
   * already: the count after this one, or null when the window is full (the refused event is not counted).
   */
  countInWindow(w: WindowCount): Promise<number | null>;
  /** Claims this period's run of the periodic job `name`: true unless it ran (anywhere) less than `period_ms` before `now`. */
  claimJob(name: string, now: number, period_ms: number, owner: string): Promise<boolean>;
  /** Claims the running of the fit `fit_key` under a lease: true when nobody holds it, its holder's lease lapsed, or it is ours. */
  claimFit(fit_key: string, opts: ClaimOptions): Promise<boolean>;
  /** Extends this owner's claim; false when it lost it. */
  renewFitClaim(fit_key: string, owner: string, lease_until: number): Promise<boolean>;
  /** Drops this owner's claim (the fit is stored, or failed: a waiter claims it at once). */
  releaseFitClaim(fit_key: string, owner: string): Promise<boolean>;
}

export interface Store
  extends
    WorkspaceStore,
    ApiKeyStore,
    SigningKeyStore,
    DatasetStore,
    UploadStore,
    ModelStore,
    TaskStore,
    TaskEventStore,
    ReplayStore,
    UsageStore,
    EvidenceStore,
    AnswerStore,
    ProfileStore,
    CoordinationStore,
    TrackRecordStore,
    MappingStore,
    ScheduleStore {
  /**
   * Removes idempotency records and tasks not updated for retention_ms (default 24 h), datasets unused that
   * long, and stored answers past their expiry; also counters of ended rate windows and fit claims whose
   * lease ran out.
   */
  sweep(now: number, retention_ms?: number): Promise<SweepResult>;
  /** One round trip to the database (GET /readyz); throws when it cannot answer. */
  ping(): Promise<void>;
  /** Tasks waiting for any process to claim them (pending), across the cluster (GET /metrics). */
  countQueuedTasks(): Promise<number>;
  close(): Promise<void>;
}
