// The narrow async SQL client every query module is written against, so SQLite and PostgreSQL share the queries.

export type Dialect = 'sqlite' | 'postgres';

/** Values that cross into SQL: text, numbers (epoch ms, counts, 0/1 flags), NULL and bytes. */
export type SqlValue = string | number | null | Uint8Array;

/**
 * Queries use `?` placeholders and the common subset of SQLite and PostgreSQL
 * (ON CONFLICT ... DO NOTHING/UPDATE, RETURNING, COALESCE; no dialect functions).
 */
export interface SqlClient {
  readonly dialect: Dialect;
  all<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  get<T>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  /** Returns the number of rows changed. */
  run(sql: string, params?: readonly SqlValue[]): Promise<number>;
  /** Several statements without parameters (migrations only). */
  exec(sql: string): Promise<void>;
  /**
   * Runs fn inside one write transaction: commit when it resolves, roll back when it throws.
   * fn must use the client it is given (the outer one waits for the transaction) and only await SQL.
   */
  transaction<T>(fn: (tx: SqlClient) => Promise<T>, opts?: TransactionOptions): Promise<T>;
  close(): Promise<void>;
}

export interface TransactionOptions {
  /**
   * false: the commit may return before the transaction is on disk. It survives the process ending at any
   * moment, but a power loss or an OS crash may undo it, until any later durable commit or checkpoint of the
   * database syncs it. SQLite: synchronous = NORMAL for this transaction, so its COMMIT waits for no fsync
   * (docs/decisions/0091-background-writes-without-fsync-waits.md). PostgreSQL: no difference (its commits never hold the event loop).
   * Only for batched writes that may already be an interval late (usage, kept answers, progress events),
   * never for a write a reply depends on. Default true.
   */
  durable?: boolean;
}

/**
 * `db` for writes that need not wait for the disk (TransactionOptions.durable false): its run and transaction
 * commit without an fsync on SQLite; reads and PostgreSQL unchanged.
 */
export function withoutSync(db: SqlClient): SqlClient {
  if (db.dialect !== 'sqlite') return db;
  return {
    dialect: db.dialect,
    all: (sql, params) => db.all(sql, params),
    get: (sql, params) => db.get(sql, params),
    run: (sql, params) => db.transaction((tx) => tx.run(sql, params), { durable: false }),
    exec: (sql) => db.exec(sql),
    transaction: (fn) => db.transaction(fn, { durable: false }),
    close: () => db.close(),
  };
}

/** For the PostgreSQL adapter: `?` -> `$1, $2, ...` (our queries never put `?` inside literals). */
export function toNumberedPlaceholders(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** SQL results may carry counts as strings (PostgreSQL bigint sums); read them as numbers. */
export function toCount(v: unknown): number {
  return v == null ? 0 : Number(v);
}

/** Text accepted as bytes: stored UTF-8 encoded so content comes back as bytes either way. */
export function toBytes(v: Uint8Array | string): Uint8Array {
  return typeof v === 'string' ? Buffer.from(v, 'utf8') : v;
}

/**
 * Inside a transaction: waits until no other transaction holds `key`, and holds it until this one ends.
 * For check-then-insert steps that no row lock can guard, because the row does not exist yet. PostgreSQL:
 * a transaction-scoped advisory lock (freed by COMMIT, ROLLBACK or a lost connection; fine behind a
 * transaction-pooling PgBouncer). SQLite: nothing to do, BEGIN IMMEDIATE already lets one writer in.
 */
export async function lockForTransaction(tx: SqlClient, key: number): Promise<void> {
  if (tx.dialect === 'postgres') await tx.run('SELECT pg_advisory_xact_lock(?)', [key]);
}
