// The store's typed errors: the database cannot be reached (upper layers answer 503, retryable) and bad store settings.

/** The store's own failures, each with a stable code; messages are whole sentences an operator can act on. */
export abstract class StoreError extends Error {
  abstract readonly code: string;
}

/**
 * The database did not answer: refused, dropped or timed-out connections, a server shutting down or
 * starting up, no free connection slot. Retrying later can succeed (the pool reconnects by itself),
 * so upper layers map it to a 503 problem; nothing about the request was wrong. A transaction that met
 * it was rolled back, except when the connection died during COMMIT itself: then the database alone
 * knows, so a retry must be safe to repeat (every write of the store is).
 */
export class StoreUnavailableError extends StoreError {
  override name = 'StoreUnavailableError';
  readonly code = 'store_unavailable';
}

/** A store setting (DATABASE_URL, DATABASE_POOL_SIZE) that cannot work: the operator must fix it. */
export class StoreConfigError extends StoreError {
  override name = 'StoreConfigError';
  readonly code = 'store_config';
}

/** PostgreSQL's read_only_sql_transaction, and SQLite's read-only result codes (SQLITE_READONLY_*). */
export function isReadOnly(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '25006' || (typeof code === 'string' && code.startsWith('SQLITE_READONLY'));
}

// Node socket errors that mean the server is not there (or went away).
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

// PostgreSQL SQLSTATEs: 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now
// (starting up or shutting down), 53300 too_many_connections; class 08 is "connection exception".
const SERVER_CODES = new Set(['57P01', '57P02', '57P03', '53300']);

// Messages of the pg client and pool for a connection that is gone or never came.
const CLIENT_MESSAGES = [
  /^Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /Client has encountered a connection error and is not queryable/i,
  /Client was closed and is not queryable/i,
  /Connection ended unexpectedly/i,
];

/** True when err says the database cannot be reached right now (as opposed to a bad statement). */
export function isUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err instanceof StoreUnavailableError) return true;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || SERVER_CODES.has(code) || /^08/.test(code))) return true;
  if (err instanceof AggregateError && err.errors.some(isUnavailable)) return true; // dual-stack connect
  return CLIENT_MESSAGES.some((re) => re.test(err.message));
}
