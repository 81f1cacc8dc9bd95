// Numbered schema migrations in the common subset of SQLite and PostgreSQL, one per file under
// migrations/, and the runner applied on open.
//
// A file is `NNNN-slug.sql` (both dialects), or `NNNN-slug.pg.sql` / `NNNN-slug.sqlite.sql` for what one
// dialect runs after the shared file (or alone, when there is none). Its first line is `-- <name>` (the
// name recorded in schema_migrations), then comment lines saying why; the rest is the SQL as it runs.
// {{BYTES}} stands for the binary column type (BLOB / BYTEA). Timestamps are epoch milliseconds in BIGINT
// columns; flags are INTEGER 0/1; JSON is TEXT. Never edit a released migration: add the next number.
import { isReadOnly, StoreConfigError } from './errors.ts';
import fs from 'node:fs';
import { lockForTransaction, type Dialect, type SqlClient } from './sql.ts';

export interface Migration {
  version: number;
  name: string;
  /** One text for both dialects, or one per dialect (an empty text: nothing to do in that dialect). */
  sql: string | Record<Dialect, string>;
}

const DIR = new URL('./migrations/', import.meta.url);
const FILE = /^(\d{4})-[a-z0-9-]+(?:\.(pg|sqlite))?\.sql$/;

/** A file's name (its first line) and its SQL: everything after the leading comment lines, as it is. */
function readMigrationFile(file: string): { name: string; sql: string } {
  const lines = fs.readFileSync(new URL(file, DIR), 'utf8').split('\n');
  let body = 0;
  while (body < lines.length && lines[body]!.startsWith('--')) body++;
  if (!lines[0]!.startsWith('-- ')) throw new Error(`store/migrations/${file}: the first line must be -- <name>`);
  return { name: lines[0]!.slice(3), sql: lines.slice(body).join('\n') };
}

/** Every migration, in order: the files of each number put together per dialect. */
function loadMigrations(): Migration[] {
  const byVersion = new Map<number, { name: string; both: string; sqlite: string; postgres: string }>();
  for (const file of fs.readdirSync(DIR).sort()) {
    const match = FILE.exec(file);
    if (!match) throw new Error(`store/migrations/${file}: not a migration file (NNNN-name.sql, .pg.sql or .sqlite.sql)`);
    const version = Number(match[1]);
    const { name, sql } = readMigrationFile(file);
    const entry = byVersion.get(version) ?? { name, both: '', sqlite: '', postgres: '' };
    if (entry.name !== name) throw new Error(`store/migrations/${file}: named "${name}", another file of ${version} "${entry.name}"`);
    if (match[2] === 'pg') entry.postgres = sql;
    else if (match[2] === 'sqlite') entry.sqlite = sql;
    else entry.both = sql;
    byVersion.set(version, entry);
  }
  const versions = [...byVersion.keys()].sort((a, b) => a - b);
  versions.forEach((v, i) => {
    if (v !== i + 1) throw new Error(`store/migrations: migration ${i + 1} is missing`);
  });
  return versions.map((version) => {
    const e = byVersion.get(version)!;
    return { version, name: e.name, sql: { sqlite: e.both + e.sqlite, postgres: e.both + e.postgres } };
  });
}

export const MIGRATIONS: readonly Migration[] = loadMigrations();

const BINARY_TYPE: Record<Dialect, string> = { sqlite: 'BLOB', postgres: 'BYTEA' };

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
  try {
    return await applyMigrations(db, now);
  } catch (err) {
    // A hot standby, or a recovery paused before promotion (docs/guides/operating.md): the operator pointed
    // DATABASE_URL at a copy that takes no writes. Said in one line, as any other setting to fix.
    if (isReadOnly(err)) {
      throw new StoreConfigError(
        'the database is read-only (a standby, or a recovery not yet promoted): the service and the keys command write to it; ' +
          'point DATABASE_URL at the primary, or promote this one first',
        { cause: err },
      );
    }
    throw err;
  }
}

async function applyMigrations(db: SqlClient, now: number): Promise<number[]> {
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
