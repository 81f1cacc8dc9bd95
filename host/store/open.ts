// Picks the store: a database URL (DATABASE_URL=postgres://...) opens PostgreSQL, otherwise SQLite under DATA_DIR.
import { StoreConfigError } from './errors.ts';
import { explainOpenError, openPostgresStore } from './postgres.ts';
import { openSqliteStore } from './sqlite.ts';
import type { Store } from './types.ts';

export interface OpenStoreOptions {
  /** SQLite's directory (DATA_DIR); unused with a database URL. */
  dataDir: string;
  /** postgres:// or postgresql:// URL (Config.databaseUrl); null, absent or empty: SQLite. */
  databaseUrl?: string | null;
  /** PostgreSQL connections this process keeps at most (default 10). */
  poolSize?: number;
  now?: () => number;
}

/**
 * Opens and migrates the store. An unreachable database fails with StoreUnavailableError and a refused
 * login or missing database with StoreConfigError; both messages name DATABASE_URL without its password.
 */
export async function openStore(opts: OpenStoreOptions): Promise<Store> {
  const url = opts.databaseUrl?.trim();
  if (!url) return openSqliteStore(opts.dataDir, { now: opts.now });
  if (!/^postgres(ql)?:\/\//i.test(url)) {
    throw new StoreConfigError(
      'DATABASE_URL must be a postgres:// or postgresql:// URL; leave it unset to keep the store in SQLite under DATA_DIR',
    );
  }
  try {
    return await openPostgresStore(url, { poolSize: opts.poolSize, now: opts.now });
  } catch (err) {
    throw explainOpenError(err, url);
  }
}
