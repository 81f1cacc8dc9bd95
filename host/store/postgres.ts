// The PostgreSQL adapter: a pg.Pool behind the async SqlClient, so N stateless nodes can share one database.
import pg from 'pg';
import { isUnavailable, StoreConfigError, StoreUnavailableError } from './errors.ts';
import { runMigrations } from './migrations.ts';
import { toNumberedPlaceholders, type Dialect, type SqlClient, type SqlValue } from './sql.ts';
import { createSqlStore } from './sql-store.ts';
import type { Store } from './types.ts';

export interface PostgresStoreOptions {
  /** Connections kept by this process at most (pg.Pool `max`); default 10. */
  poolSize?: number;
  /** How long to wait for a connection (new or from a full pool) before the call fails as unavailable; default 5000. */
  connectTimeoutMs?: number;
  now?: () => number; // for the migration bookkeeping row
}

export const DEFAULT_POOL_SIZE = 10;
const DEFAULT_CONNECT_TIMEOUT_MS = 5000;

/** Connects, migrates (once across nodes: migrations.ts takes an advisory lock) and returns the store. */
export async function openPostgresStore(url: string, opts: PostgresStoreOptions = {}): Promise<Store> {
  const client = openPostgresClient(url, opts);
  try {
    await runMigrations(client, (opts.now ?? Date.now)());
  } catch (err) {
    await client.close();
    throw err;
  }
  return createSqlStore(client);
}

export function openPostgresClient(url: string, opts: PostgresStoreOptions = {}): SqlClient {
  const poolSize = opts.poolSize ?? DEFAULT_POOL_SIZE;
  if (!Number.isSafeInteger(poolSize) || poolSize < 1) {
    throw new StoreConfigError(`the pool size must be a whole number from 1, got ${poolSize}`);
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    keepAlive: true, // a peer that vanished without a FIN is noticed by the kernel, not never
    application_name: 'outcome-question-service',
    types: TYPES,
  });
  // An idle connection the server closes (restart, admin shutdown) is dropped from the pool and
  // reported here; without a listener that report would crash the process. The next call connects anew.
  pool.on('error', () => undefined);
  return new PostgresClient(pool);
}

/** A redacted form of a database URL for messages: scheme, user, host, port and database, never the password. */
export function describeDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    const user = u.username ? `${decodeURIComponent(u.username)}@` : '';
    return `${u.protocol}//${user}${u.host}${u.pathname}`;
  } catch {
    return '(a value that is not a URL)';
  }
}

function toSafeNumber(n: number | bigint): number {
  const v = Number(n);
  if (!Number.isSafeInteger(v)) throw new RangeError(`a stored integer ${n} is beyond 2^53 and cannot be read exactly`);
  return v;
}

// Result parsers for this pool only (the pg module's global parsers stay untouched). Counts and epoch
// milliseconds are BIGINT (int8) and SUM() gives numeric; pg's defaults hand both back as strings.
// Results come in text format only: pg 8.23 decodes every field of a binary-format row as UTF-8
// before its parser sees it (https://github.com/brianc/node-postgres/issues/3495), which mangles any byte that is not UTF-8, in
// bytea and in integers alike. bytea in text is hex, which pg-types turns into a Buffer.
const TYPES = {
  getTypeParser(oid: number, format: 'text' | 'binary' = 'text') {
    if (format === 'binary') {
      return () => {
        throw new TypeError('the PostgreSQL store reads text-format results only');
      };
    }
    if (oid === 20) return (s: string) => toSafeNumber(BigInt(s)); // int8: counts, epoch ms
    if (oid === 1700) return (s: string) => Number(s); // numeric: SUM() of int8
    return pg.types.getTypeParser(oid, format);
  },
} as unknown as pg.CustomTypesConfig;

/** Turns "the server is not there" into the one typed error upper layers map to a 503; others pass. */
function toStoreError(err: unknown): unknown {
  if (err instanceof StoreUnavailableError || !isUnavailable(err)) return err;
  const reason = err instanceof Error ? err.message : String(err);
  return new StoreUnavailableError(`the PostgreSQL database is unreachable: ${reason}`, { cause: err });
}

// 40P01 deadlock_detected, 40001 serialization_failure: the database undid the transaction and says
// to run it again. Bodies only await SQL, so running one again is safe.
const RETRYABLE = new Set(['40P01', '40001']);
const TX_ATTEMPTS = 3;

type Queryable = pg.Pool | pg.PoolClient;

// Query text by our `?` text: the rewrite runs once per distinct statement.
const numbered = new Map<string, string>();
function numberedText(sql: string): string {
  let text = numbered.get(sql);
  if (text === undefined) {
    text = toNumberedPlaceholders(sql);
    numbered.set(sql, text);
  }
  return text;
}

function toParams(params: readonly SqlValue[]): unknown[] {
  // pg sends Buffers as binary parameters; a bare Uint8Array view is wrapped without copying.
  return params.map((v) => (v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v));
}

async function query(q: Queryable, sql: string, params: readonly SqlValue[]): Promise<pg.QueryResult> {
  try {
    return await q.query({ text: numberedText(sql), values: toParams(params) });
  } catch (err) {
    throw toStoreError(err);
  }
}

async function simple(q: Queryable, sql: string): Promise<pg.QueryResult> {
  try {
    return await q.query(sql);
  } catch (err) {
    throw toStoreError(err);
  }
}

function clientOver(q: Queryable): Omit<SqlClient, 'transaction' | 'close'> {
  return {
    dialect: 'postgres',
    all: async <T>(sql: string, params: readonly SqlValue[] = []) => (await query(q, sql, params)).rows as T[],
    get: async <T>(sql: string, params: readonly SqlValue[] = []) => (await query(q, sql, params)).rows[0] as T | undefined,
    run: async (sql: string, params: readonly SqlValue[] = []) => (await query(q, sql, params)).rowCount ?? 0,
    exec: async (sql: string) => void (await simple(q, sql)),
  };
}

class PostgresClient implements SqlClient {
  readonly dialect: Dialect = 'postgres';
  private closed = false;
  private readonly direct: Omit<SqlClient, 'transaction' | 'close'>;

  constructor(private readonly pool: pg.Pool) {
    this.direct = clientOver(pool);
  }

  all<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    this.assertOpen();
    return this.direct.all<T>(sql, params);
  }
  get<T>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    this.assertOpen();
    return this.direct.get<T>(sql, params);
  }
  run(sql: string, params?: readonly SqlValue[]): Promise<number> {
    this.assertOpen();
    return this.direct.run(sql, params);
  }
  exec(sql: string): Promise<void> {
    this.assertOpen();
    return this.direct.exec(sql);
  }

  async transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.transactionOnce(fn);
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        if (attempt >= TX_ATTEMPTS || typeof code !== 'string' || !RETRYABLE.has(code)) throw err;
      }
    }
  }

  /** One dedicated pooled connection from BEGIN to COMMIT; every statement of fn runs on it. */
  private async transactionOnce<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> {
    this.assertOpen();
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw toStoreError(err);
    }
    // A checked-out connection the server drops emits 'error'; kept here so it is destroyed on release.
    let broken: unknown;
    const onError = (err: unknown) => (broken ??= err);
    client.on('error', onError);
    try {
      // READ COMMITTED said out loud: the queries are written for it (each statement sees what
      // committed before it; row locks taken by UPDATE and INSERT ... ON CONFLICT decide races).
      await simple(client, 'BEGIN ISOLATION LEVEL READ COMMITTED');
      const tx: SqlClient = {
        ...clientOver(client),
        transaction: <U>(inner: (t: SqlClient) => Promise<U>) => inner(tx), // nested: same transaction
        close: async () => {
          throw new Error('close() inside a transaction');
        },
      };
      const result = await fn(tx);
      // A transaction in which a statement failed (and fn caught it) ends in ROLLBACK even on COMMIT.
      const end = await simple(client, 'COMMIT');
      if (end.command !== 'COMMIT') throw new Error('the transaction was rolled back: a statement in it failed');
      return result;
    } catch (err) {
      if (!broken) await client.query('ROLLBACK').catch((e: unknown) => (broken = e));
      throw err;
    } finally {
      client.off('error', onError);
      client.release(broken ? (broken instanceof Error ? broken : new Error(String(broken))) : undefined);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('store is closed');
  }
}

/** Errors while opening: unreachable and refused logins name DATABASE_URL (redacted) so the operator knows what to fix. */
export function explainOpenError(err: unknown, url: string): unknown {
  const where = `DATABASE_URL (${describeDatabaseUrl(url)})`;
  const original = err instanceof StoreUnavailableError && err.cause !== undefined ? err.cause : err;
  const reason = original instanceof Error ? original.message : String(original);
  if (isUnavailable(err)) {
    return new StoreUnavailableError(`cannot reach the PostgreSQL database at ${where}: ${reason}`, { cause: original });
  }
  const code = (err as { code?: unknown }).code;
  // Node's URL parser keeps the whole input (password included) on its error: never pass that on.
  if (code === 'ERR_INVALID_URL') {
    return new StoreConfigError('DATABASE_URL is not a valid URL (postgres://user:password@host:port/database)');
  }
  // 28xxx: login refused (user, password, pg_hba); 3D000: no such database.
  if (typeof code === 'string' && (/^28/.test(code) || code === '3D000')) {
    return new StoreConfigError(`the PostgreSQL database at ${where} refused the connection: ${reason}`, { cause: err });
  }
  return err;
}
