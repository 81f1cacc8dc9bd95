// The embedded SQLite adapter: one better-sqlite3 connection (WAL, busy timeout) behind the async SqlClient.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Dialect, SqlClient, SqlValue } from './sql.ts';
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

export function openSqliteClient(file: string, busyTimeoutMs = 5000): SqlClient {
  const db = new Database(file, { timeout: busyTimeoutMs });
  // WAL: readers never block the writer and a killed process leaves only whole transactions behind.
  db.pragma('journal_mode = WAL');
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  db.pragma('synchronous = FULL');
  return new SqliteClient(db);
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

class SqliteClient implements SqlClient {
  readonly dialect: Dialect = 'sqlite';
  private readonly statements = new Map<string, Statement>();
  private readonly gate = new Gate();
  private closed = false;

  constructor(private readonly db: Database.Database) {}

  all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return this.outside(() => this.prepare(sql).all(...bind(params)) as T[]);
  }
  get<T>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return this.outside(() => this.prepare(sql).get(...bind(params)) as T | undefined);
  }
  run(sql: string, params: readonly SqlValue[] = []): Promise<number> {
    return this.outside(() => this.prepare(sql).run(...bind(params)).changes);
  }
  exec(sql: string): Promise<void> {
    return this.outside(() => void this.db.exec(sql));
  }

  async transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> {
    this.assertOpen();
    await this.gate.enter();
    try {
      this.assertOpen();
      // IMMEDIATE takes the write lock up front (waiting up to busy_timeout), so two processes
      // never deadlock upgrading read locks.
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const result = await fn(this.inside);
        this.db.exec('COMMIT');
        return result;
      } catch (err) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw err;
      }
    } finally {
      this.gate.leave();
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
