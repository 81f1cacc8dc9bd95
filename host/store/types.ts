// The storage interface: one async API shared by the SQLite adapter and a PostgreSQL adapter to come.
import type { MappingStore } from './mappings.ts';
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
} from './records.ts';

export type * from './records.ts';

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
  /** Sets a live link's expiry; false when unknown or deleted. */
  setModelExpiry(workspace_id: string, model_ref: string, expires_at: number): Promise<boolean>;
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
  completeTask(id: string, owner: string, result: string, now: number): Promise<boolean>;
  failTask(id: string, owner: string, problem: string, now: number): Promise<boolean>;
  /** Hands a running task back (pending, this attempt not counted) so any runner claims it at once. */
  releaseTask(id: string, owner: string, now: number): Promise<boolean>;
  listUnfinishedTasks(): Promise<TaskRecord[]>;
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
  /** Replaces the namespace's profile (additions 2.2: a write replaces it whole). */
  putProfile(p: ProfileRecord): Promise<void>;
}

export interface EvidenceStore {
  /** One transaction: all rows or none; a repeated event_id counts as a duplicate. */
  writeOutcomes(items: OutcomeRecord[]): Promise<WriteOutcomesResult>;
  listOutcomes(workspace_id: string, model_ref: string): Promise<OutcomeRecord[]>;
  insertAttestation(a: AttestationRecord): Promise<InsertAttestationResult>;
  listAttestations(workspace_id: string, model_ref: string): Promise<AttestationRecord[]>;
}

export interface Store
  extends
    WorkspaceStore,
    ApiKeyStore,
    SigningKeyStore,
    DatasetStore,
    ModelStore,
    TaskStore,
    ReplayStore,
    UsageStore,
    EvidenceStore,
    AnswerStore,
    ProfileStore,
    MappingStore {
  /**
   * Removes idempotency records and tasks not updated for retention_ms (default 24 h), datasets unused that
   * long, and stored answers past their expiry.
   */
  sweep(now: number, retention_ms?: number): Promise<SweepResult>;
  close(): Promise<void>;
}
