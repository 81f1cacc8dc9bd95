// The embedded SQLite adapter: one better-sqlite3 connection (WAL, busy timeout) behind the async SqlClient.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Dialect, SqlClient, SqlValue, TransactionOptions } from './sql.ts';
import { runMigrations } from './migrations.ts';
import { createSqlStore } from './sql-store.ts';
import type { Store } from './types.ts';

export interface SqliteStoreOptions {
  filename?: string; // inside dir; default 'store.sqlite'
  busyTimeoutMs?: number; // how long a write waits for another process's lock; default 5000
  now?: () => number; // for the migration bookkeeping row
}

/** Opens (creating the directory and file when missing) and migrates the store under dir. */
export async function openSqliteStore(dir: string, opts: SqliteStoreOptions = {}): Promise<Store> {
  fs.mkdirSync(dir, { recursive: true });
  const client = openSqliteClient(path.join(dir, opts.filename ?? 'store.sqlite'), opts.busyTimeoutMs ?? 5000);
  try {
    await runMigrations(client, (opts.now ?? Date.now)());
  } catch (err) {
    await client.close();
    throw err;
  }
  return createSqlStore(client);
}

export function openSqliteClient(file: string, busyTimeoutMs = 5000): SqliteClient {
  const timeoutMs = Math.max(0, Math.floor(busyTimeoutMs));
  const db = new Database(file, { timeout: timeoutMs });
  // WAL: readers never block the writer and a killed process leaves only whole transactions behind.
  db.pragma('journal_mode = WAL');
  db.pragma(`busy_timeout = ${timeoutMs}`);
  db.pragma(`synchronous = ${SYNCHRONOUS}`);
  return new SqliteClient(db, timeoutMs);
}

/** Every commit waits for its fsync, unless its transaction says otherwise (TransactionOptions.durable). */
const SYNCHRONOUS = 'FULL';

/** The longest pause between two tries of a write lock another connection holds (enterWithWriteLock). */
const LOCK_RETRY_MAX_MS = 8;

function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

type Statement = Database.Statement<unknown[], unknown>;

/** better-sqlite3 binds Buffers, not bare Uint8Arrays. */
function bind(params: readonly SqlValue[]): unknown[] {
  return params.map((v) => (v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v));
}

/**
 * FIFO gate: while a transaction is open on the shared connection, every other caller waits,
 * so no foreign statement runs inside (or is rolled back with) someone else's transaction.
 */
class Gate {
  private held = false;
  private readonly waiting: Array<() => void> = [];
  get busy(): boolean {
    return this.held;
  }
  async enter(): Promise<void> {
    if (!this.held) {
      this.held = true;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }
  leave(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held = false;
  }
}

export class SqliteClient implements SqlClient {
  readonly dialect: Dialect = 'sqlite';
  private readonly statements = new Map<string, Statement>();
  private readonly gate = new Gate();
  private closed = false;

  /** Times a transaction found the write lock held by another connection and tried again after a timer. */
  lockRetries = 0;

  constructor(
    private readonly db: Database.Database,
    private readonly busyTimeoutMs: number,
  ) {}

  all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return this.outside(() => this.prepare(sql).all(...bind(params)) as T[]);
  }
  get<T>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return this.outside(() => this.prepare(sql).get(...bind(params)) as T | undefined);
  }
  /** A write, in a transaction of its own so that it waits for the write lock as a transaction does. */
  run(sql: string, params: readonly SqlValue[] = []): Promise<number> {
    return this.transaction((tx) => tx.run(sql, params));
  }
  exec(sql: string): Promise<void> {
    return this.outside(() => void this.db.exec(sql));
  }

  async transaction<T>(fn: (tx: SqlClient) => Promise<T>, opts: TransactionOptions = {}): Promise<T> {
    this.assertOpen();
    const lazy = opts.durable === false;
    await this.enterWithWriteLock(lazy);
    try {
      try {
        const result = await fn(this.inside);
        this.db.exec('COMMIT');
        return result;
      } catch (err) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw err;
      }
    } finally {
      if (lazy) this.db.exec(`PRAGMA synchronous = ${SYNCHRONOUS}`);
      this.gate.leave();
    }
  }

  /**
   * Enters the gate holding SQLite's write lock (BEGIN IMMEDIATE: taken up front, so two connections never
   * deadlock upgrading read locks). While another connection holds it (a task thread's, another process's),
   * SQLite's own busy handler would sleep this whole thread, and on the request thread every read and reply
   * queued behind it (docs/decisions/0090-sqlite-write-lock-waits-off-the-event-loop.md). So the lock is tried
   * with busy_timeout 0 and, when taken, tried again after a timer with the gate open to this connection's
   * reads, until busy_timeout has passed; then SQLITE_BUSY reaches the caller as the blocking wait's would.
   */
  private async enterWithWriteLock(lazy: boolean): Promise<void> {
    // from the first try that found the lock taken, as SQLite's busy handler counts (not the gate's queue)
    let deadline = Infinity;
    for (let attempt = 0; ; attempt++) {
      await this.gate.enter();
      try {
        this.assertOpen();
        // (exec, not a prepared statement: SQLite applies a busy_timeout pragma when it compiles it)
        this.db.exec('PRAGMA busy_timeout = 0');
        // (SQLite refuses to change it inside a transaction; transaction() sets it back after its end)
        if (lazy) this.db.exec('PRAGMA synchronous = NORMAL');
        try {
          this.db.exec('BEGIN IMMEDIATE');
          return; // the gate stays held until the transaction ends
        } finally {
          this.db.exec(`PRAGMA busy_timeout = ${this.busyTimeoutMs}`);
        }
      } catch (err) {
        if (lazy && !this.closed) this.db.exec(`PRAGMA synchronous = ${SYNCHRONOUS}`);
        this.gate.leave();
        if (attempt === 0) deadline = performance.now() + this.busyTimeoutMs;
        if (!isBusy(err) || performance.now() >= deadline) throw err;
      }
      this.lockRetries++;
      const pause = Math.min(2 ** attempt, LOCK_RETRY_MAX_MS, Math.max(1, deadline - performance.now()));
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.gate.enter();
    this.closed = true;
    this.statements.clear();
    this.db.close();
    this.gate.leave();
  }

  /** The client handed to a transaction body: runs at once, inside the open transaction. */
  private readonly inside: SqlClient = {
    dialect: 'sqlite',
    all: async <T>(sql: string, params: readonly SqlValue[] = []) => this.prepare(sql).all(...bind(params)) as T[],
    get: async <T>(sql: string, params: readonly SqlValue[] = []) => this.prepare(sql).get(...bind(params)) as T | undefined,
    run: async (sql: string, params: readonly SqlValue[] = []) => this.prepare(sql).run(...bind(params)).changes,
    exec: async (sql: string) => void this.db.exec(sql),
    transaction: async <T>(fn: (tx: SqlClient) => Promise<T>) => fn(this.inside), // nested: same transaction
    close: async () => {
      throw new Error('close() inside a transaction');
    },
  };

  private async outside<T>(work: () => T): Promise<T> {
    this.assertOpen();
    if (!this.gate.busy) return work();
    await this.gate.enter();
    try {
      this.assertOpen();
      return work();
    } finally {
      this.gate.leave();
    }
  }

  private prepare(sql: string): Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('store is closed');
  }
}
