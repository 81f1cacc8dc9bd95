// One domain error type and one table of codes (docs/reference/errors.md#problem): the only place statuses, titles and
// remedies live. Below the transports everything throws ServiceError (or a typed engine or store error that
// `serviceErrorOf` maps here); host/http and host/mcp only turn them into responses.
import { EngineError } from './engine/errors.ts';
import { StoreUnavailableError } from './store/errors.ts';

interface CodeInfo {
  status: number;
  title: string;
  remedy: string;
}

/** docs/reference/errors.md#problem: status per code, a stable title, and what the caller should do. */
export const PROBLEM_CODES = {
  invalid_json: { status: 400, title: 'Body is not valid JSON', remedy: 'Send a JSON object as the request body.' },
  unauthorized: {
    status: 401,
    title: 'Missing or unknown API key',
    remedy: 'Send Authorization: Bearer <key>. Get a test key from POST /v1/agents/register.',
  },
  invalid_token: {
    status: 401,
    title: 'Access token not accepted',
    remedy:
      'Get a new access token for this service from your identity provider; `failed_check` names the check this one failed (iss, aud, exp, nbf, alg, typ, kid, signature, sub, workspace or format).',
  },
  test_key_samples_only: {
    status: 403,
    title: 'Test keys work on sample datasets only',
    remedy: 'Use a sample (dataset_id "sample:<name>", listed by /v1/describe) or a live key.',
  },
  scope_required: {
    status: 403,
    title: 'The key lacks a required capability',
    remedy: 'Use a key created with the write:outcomes capability (Can report outcomes).',
  },
  unknown_dataset: {
    status: 404,
    title: 'Unknown dataset',
    remedy: 'The dataset was deleted (24 hours after last use) or belongs to another workspace. Store it again.',
  },
  unknown_task: {
    status: 404,
    title: 'Unknown task',
    remedy: 'Poll a task_id returned by an ask of this workspace within the last 24 hours.',
  },
  watch_link_expired: {
    status: 410,
    title: 'The watch link expired',
    remedy: 'A watch link works for 24 hours, as long as its answer is kept. Ask again for a new task and link.',
  },
  watch_streams_limited: {
    status: 429,
    title: 'Too many watchers of this task',
    remedy: 'At most 5 streams of one task are open at once and 60 open a minute: wait retry_after_ms, then reconnect.',
  },
  model_ref_missing: {
    status: 404,
    title: 'Unknown model_ref',
    remedy:
      'Use a model_ref returned by an answered ask of this workspace, with the namespace that ask named (a model of another namespace or workspace is unknown here).',
  },
  model_expired: {
    status: 410,
    title: 'The model expired',
    remedy: 'An expired model cannot be renewed: ask again on the record (with model_ttl_days) to get a model, then score with it.',
  },
  model_deleted: {
    status: 410,
    title: 'The model was deleted',
    remedy: 'A deleted model answers nothing: ask again on the record to fit a new one (billed as a fit).',
  },
  unknown_link: {
    status: 404,
    title: 'Unknown or altered link',
    remedy: 'Use a cursor, answer_url or results_url exactly as an answer gave it.',
  },
  answer_expired: {
    status: 410,
    title: 'The stored answer expired',
    remedy: 'Answers are kept 24 hours: ask again (with response_format or export) to get a new link.',
  },
  not_found: { status: 404, title: 'No such endpoint', remedy: 'See POST /v1/describe for the operations.' },
  method_not_allowed: { status: 405, title: 'Method not allowed', remedy: 'Operations are POST with a JSON body.' },
  dataset_sealed: {
    status: 409,
    title: 'Dataset is sealed',
    remedy: 'An ask or preflight sealed this dataset. Store the new rows as a new dataset.',
  },
  request_too_large: {
    status: 413,
    title: 'Request body too large',
    remedy: 'Send at most 10,000 rows per call, or store large tables with add-dataset (upload: true).',
  },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    remedy: 'Send Content-Type: application/json.',
  },
  invalid_request: {
    status: 422,
    title: 'Invalid request',
    remedy: 'Fix the field named in `field`; see POST /v1/describe for shapes and limits.',
  },
  unknown_case_id: {
    status: 422,
    title: 'Unknown case id',
    remedy: 'Send ids that appear in the entity column, or send the cases as rows.',
  },
  positive_values_required: {
    status: 422,
    title: 'Which outcome values mean yes?',
    remedy: 'The outcome column does not have two recognisable values. Say which values mean yes in positive_values.',
  },
  outcome_one_value: {
    status: 422,
    title: 'The outcome column has one value',
    remedy:
      'A yes/no question learns from past cases of both kinds: send a record whose outcome column has yes and no rows, or name another outcome_column.',
  },
  entity_not_an_id: {
    status: 422,
    title: 'The entity column does not identify cases',
    remedy:
      'Name as entity_column the column that identifies each case, one row per case (a customer or account id). If the ' +
      'record is a log of several rows per case, add time_column so the latest row of each case is read, or read it ' +
      'with shape {"kind": "events"}. If several rows per case are meant (each row its own example), name the case ' +
      'column as group_column too: its cases are then held out whole, and the last row of each case is answered.',
  },
  row_not_scoreable: {
    status: 422,
    title: 'Case row cannot be scored',
    remedy: 'Send every column the model uses, with the same types as in the record.',
  },
  shape_invalid: { status: 422, title: 'Invalid shape', remedy: 'Fix the shape definition named in `field`.' },
  shape_empty: {
    status: 422,
    title: 'Shape yields no usable rows',
    remedy: 'Check the time column, as_of and windows: the shape read produced no cases.',
  },
  columns_mismatch: {
    status: 422,
    title: 'Columns differ from the dataset',
    remedy: 'Every piece of a dataset must have exactly the same columns as the first.',
  },
  upload_piece_out_of_order: {
    status: 409,
    title: 'Piece out of order',
    remedy: 'Send the pieces 0, 1, 2, ... in order: resend from next_piece (a piece sent twice is ignored).',
  },
  upload_session_mismatch: {
    status: 409,
    title: 'Another upload session',
    remedy:
      'Send every piece and /complete with the x-upload-session of piece 0; to start the upload over, send piece 0 with a new session.',
  },
  upload_pieces_missing: {
    status: 409,
    title: 'Pieces missing',
    remedy: 'Send the pieces from next_piece on, then /complete again; the pieces already received are kept until the link expires.',
  },
  upload_already_complete: {
    status: 409,
    title: 'Upload already completed',
    remedy: 'The dataset is stored: ask with its dataset_id. For another file, request a new upload with add-dataset (upload: true).',
  },
  upload_corrupt: {
    status: 422,
    title: 'The uploaded file cannot be read',
    remedy:
      'Nothing of it was kept. Check the file (gzip -t for gzip; a Parquet reader for Parquet), then upload it again: in pieces from piece 0 with a new x-upload-session, or PUT it again.',
  },
  upload_unreadable: {
    status: 422,
    title: 'The file holds columns this service does not read',
    remedy:
      'Write the Parquet file with flat columns of text, numbers, booleans, dates or times (no lists, maps, groups or raw bytes), or send CSV.',
  },
  invalid_outcomes: {
    status: 422,
    title: 'Invalid outcomes',
    remedy: 'Fix the rows listed in `errors`; nothing was written.',
  },
  idempotency_key_reused: {
    status: 422,
    title: 'Idempotency key reused with a different body',
    remedy: 'Use a new idempotency_key for a different request.',
  },
  fetch_refused: {
    status: 422,
    title: 'fetch_url refused',
    remedy: 'Use a public https URL that answers without redirects.',
  },
  rate_limited: { status: 429, title: 'Too many requests', remedy: 'Wait retry_after_ms, then try again.' },
  fetch_failed: {
    status: 502,
    title: 'Download failed',
    remedy: 'Check that fetch_url answers 200 with CSV text, then try again.',
  },
  idempotency_in_progress: {
    status: 409,
    title: 'The first call with this idempotency_key is still running',
    remedy: "Wait retry_after_ms and send the same call again with the same idempotency_key: it then gets the first call's reply.",
  },
  drift_not_recorded: {
    status: 409,
    title: 'No drift report was recorded for this model_ref',
    remedy:
      'The ask that named refit_of did not finish: poll its task if it is pending, or ask again with refit_of set to the earlier model_ref.',
  },
  engine_unavailable: {
    status: 503,
    title: 'Engine unavailable',
    remedy: 'A fit worker stopped (it ran out of memory or the server is shutting down). Retry after Retry-After seconds.',
  },
  engine_fault: {
    status: 500,
    title: 'The engine failed on this request',
    remedy: 'This is a fault in the service, not in your request, and the same call will fail the same way: report the request_id.',
  },
  engine_changed: {
    status: 503,
    title: 'The engine changed since this server started',
    remedy:
      'build/engine.wasm was rebuilt while the server ran: the operator restarts the server so the page and the service run one engine.',
  },
  preview_not_built: {
    status: 503,
    title: 'The preview page is not built',
    remedy: 'The operator runs npm run build, which writes the page script beside the built service.',
  },
  metrics_off: {
    status: 403,
    title: 'Metrics are off on this node',
    remedy: 'The operator starts the node with METRICS_TOKEN set; the scraper then sends it as a bearer token.',
  },
  metrics_token: {
    status: 401,
    title: 'Metrics need the operator token',
    remedy: 'Send Authorization: Bearer <METRICS_TOKEN>, the token this node was started with.',
  },
  store_unavailable: {
    status: 503,
    title: 'The database is unreachable',
    remedy: 'Nothing was written. Retry after Retry-After seconds; the service reconnects by itself when the database is back.',
  },
  issuer_unavailable: {
    status: 503,
    title: "The identity provider's keys could not be fetched",
    remedy:
      'Retry after retry_after_ms with the same token; if it persists, the operator should check that the issuer is reachable from the service.',
  },
  node_unavailable: {
    // Sent by the load balancer, not by a node: deploy/haproxy.cfg's http-error lines repeat this title and
    // remedy (docs/decisions/0087-a-call-lost-with-its-node.md).
    status: 503,
    title: 'No node could finish this call',
    remedy:
      'Send the same call again after Retry-After seconds with the same idempotency_key (or event_id): it then gets the first reply, or runs once. ' +
      'A call sent without one may have taken effect: check before sending it again.',
  },
  server_busy: {
    status: 503,
    title: 'The service is at capacity',
    remedy:
      'Every fit slot and the queue of waiting fits are taken. Send the same call again after Retry-After seconds; asks whose fits are already made are still answered at once.',
  },
  workspace_busy: {
    status: 429,
    title: 'This workspace has as many fits running or queued as it may',
    remedy:
      'Wait for a pending ask to finish (follow its task_id with svc_poll), then send this call again after retry_after_ms; asks whose fits are already made are still answered at once.',
  },
  record_too_large: {
    status: 422,
    title: 'The record needs more memory than one task may use',
    remedy:
      'Send a record with fewer rows or columns (or ask about a part of it); the operator can raise TASK_MEMORY_MB. Retrying the same call fails the same way.',
  },
  headers_too_large: {
    status: 431,
    title: 'Request headers too large',
    remedy: 'Send the request with smaller headers: an Authorization header holds only the key or access token.',
  },
  request_timeout: {
    status: 408,
    title: 'The request did not arrive in time',
    remedy:
      'Nothing was done: send the request again on a new connection, its headers at once and its body without pausing; a file too large to send within the limit goes up in pieces (POST /v1/uploads/{token}/{index}).',
  },
  bad_request: {
    status: 400,
    title: 'Malformed HTTP request',
    remedy: 'Send a well-formed HTTP/1.1 request (a request line, headers, then the body its Content-Length or chunking declares).',
  },
  // docs/reference/map.md#map, decided (docs/decisions/README.md): map codes are 422, an expired mapping 410, an unknown one 404
  mapping_answers_incomplete: {
    status: 422,
    title: 'A mapping answer is missing or wrong',
    remedy: 'Answer the slot named in `field` with one of the options the proposal listed (send svc_map without answers to see them).',
  },
  horizon_budget_exhausted: {
    status: 422,
    title: 'Three horizons already mapped for these sources',
    remedy: 'Reuse one of the horizons already mapped for these sources (at most 3 per record), or map other sources.',
  },
  mapping_expired: {
    status: 410,
    title: 'A source of the mapping is gone',
    remedy: 'Store the sources again and map them again (the manifest says how the mapping was built).',
  },
  unknown_mapping: {
    status: 404,
    title: 'Unknown mapping',
    remedy: 'Replay a mapping_id svc_map gave in this workspace and namespace, or map the sources again.',
  },
  // docs/reference/map.md#backtest (contract 1.1 decision on docs/decisions/README.md: 422, naming the field)
  dataset_not_built: {
    status: 422,
    title: 'Not a record built by svc_map',
    remedy:
      'Backtest a log record: call svc_map with the log as a source and answers, then send the dataset_id it was built from ' +
      '(the data.dataset_id of its ask), or a sample log such as sample:customer_events.',
  },
  backtest_cutoffs_invalid: {
    status: 422,
    title: 'Cutoffs do not fit the record',
    remedy:
      "Send cutoffs.every equal to the record's snapshot_every or a multiple of it (1d: any; 1w: 1w or 4w; 4w: 4w), and cutoffs.last from 3 to 12.",
  },
  // docs/reference/schedules.md#schedule, docs/reference/schedules.md#delete (contract 1.1 decision on docs/decisions/README.md: 403, 422 and 404, naming the field)
  schedule_key_required: {
    status: 403,
    title: 'A schedule needs a live API key',
    remedy:
      'Call svc_schedule with a live API key (svck_live_) holding write:outcomes: the runs act as that key, which an OAuth sign-in cannot lend.',
  },
  schedule_sources_not_refetchable: {
    status: 422,
    title: 'The mapping has a source that cannot be fetched again',
    remedy:
      'Map sources given as fetch_url (each run fetches them again), then schedule that mapping; a stored dataset_id does not change between runs.',
  },
  unknown_schedule: {
    status: 404,
    title: 'Unknown schedule',
    remedy: 'Send a schedule_id svc_schedule gave in this workspace (svc_describe with a key lists them); a deleted schedule is gone.',
  },
  internal: { status: 500, title: 'Internal error', remedy: 'Retry; if it persists, report the request_id.' },
} satisfies Record<string, CodeInfo>;

/** Every problem code: the keys of the table above, written once. */
export type ProblemCode = keyof typeof PROBLEM_CODES;

export interface ServiceErrorOptions {
  field?: string;
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
  remedy?: string;
  /** The error this one answers for (ES2022 error cause): kept for logs, never sent to the caller. */
  cause?: unknown;
}

/** The one domain error: thrown anywhere below the transports, mapped to problem+json in one place. */
export class ServiceError extends Error {
  readonly code: ProblemCode;
  readonly field?: string;
  readonly extra?: Record<string, unknown>;
  readonly headers?: Record<string, string>;
  /** A remedy for this occurrence when the code's own is too general (it names the real next step). */
  readonly remedy?: string;

  constructor(code: ProblemCode, detail: string, opts: ServiceErrorOptions = {}) {
    super(detail, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'ServiceError';
    this.code = code;
    this.field = opts.field;
    this.extra = opts.extra;
    this.headers = opts.headers;
    this.remedy = opts.remedy;
  }

  get status(): number {
    return PROBLEM_CODES[this.code].status;
  }
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
  remedy: string;
  field?: string;
  request_id?: string;
  doc_url?: string;
  [extra: string]: unknown;
}

/** Builds the docs/reference/errors.md#problem Problem object for an error; `baseUrl` prefixes `type`. */
export function toProblem(err: ServiceError, baseUrl: string, requestId?: string): Problem {
  const info = PROBLEM_CODES[err.code];
  const problem: Problem = {
    type: `${baseUrl}/problems/${err.code}`,
    title: info.title,
    status: info.status,
    detail: err.message,
    code: err.code,
    remedy: err.remedy ?? info.remedy,
    doc_url: `${baseUrl}/problems/${err.code}`,
  };
  if (err.field !== undefined) problem.field = err.field;
  if (requestId !== undefined) problem.request_id = requestId;
  if (err.extra) Object.assign(problem, err.extra);
  return problem;
}

/** Seconds a client waits before retrying a 503 that says "retry" (Retry-After and retry_after_ms). */
const RETRY_AFTER_S = 2;

function retryable(code: ProblemCode, detail: string, cause: unknown): ServiceError {
  return new ServiceError(code, detail, {
    extra: { retry_after_ms: RETRY_AFTER_S * 1000 },
    headers: { 'Retry-After': String(RETRY_AFTER_S) },
    cause,
  });
}

/**
 * The ServiceError any thrown value is answered with, or null for an unexpected one (a bug: the transport
 * logs it and answers 500 internal without internals). REST, MCP and stored task problems all use this.
 */
export function serviceErrorOf(err: unknown): ServiceError | null {
  if (err instanceof ServiceError) return err;
  if (err instanceof EngineError) {
    return err.retryable
      ? retryable('engine_unavailable', err.message, err)
      : new ServiceError('engine_fault', err.message, { cause: err });
  }
  if (err instanceof StoreUnavailableError) return retryable('store_unavailable', err.message, err);
  return null;
}

/** Problems that must outlive a call (a failed task, a replayed idempotent error) are kept as this. */
export interface StoredProblem {
  code: ProblemCode;
  detail: string;
  field?: string;
  extra?: Record<string, unknown>;
  remedy?: string;
}

export function storeProblem(err: unknown): StoredProblem {
  const e = serviceErrorOf(err);
  if (!e) return { code: 'internal', detail: 'the task failed unexpectedly; retry the ask' };
  return { code: e.code, detail: e.message, field: e.field, extra: e.extra, remedy: e.remedy };
}

/** The same ServiceError again, from its stored form. */
export function reviveProblem(p: StoredProblem): ServiceError {
  return new ServiceError(p.code, p.detail, { field: p.field, extra: p.extra, remedy: p.remedy });
}

interface ErrorLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * What a transport answers a thrown value with (REST and MCP alike): its ServiceError, a 5xx of which is
 * logged as a warning; or, for anything unexpected, 500 internal with no internals, the error logged.
 */
export function answerFor(err: unknown, log: ErrorLog, context: Record<string, unknown>): ServiceError {
  const known = serviceErrorOf(err);
  if (known) {
    if (known.status >= 500) log.warn({ ...context, code: known.code, detail: known.message }, 'service error');
    return known;
  }
  log.error({ ...context, err }, 'unhandled error');
  return new ServiceError('internal', 'The server failed to handle this request.');
}
