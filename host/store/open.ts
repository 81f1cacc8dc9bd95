// Picks the store from the environment: DATABASE_URL=postgres://... opens PostgreSQL, otherwise SQLite under DATA_DIR.
import { StoreConfigError } from './errors.ts';
import { DEFAULT_POOL_SIZE, explainOpenError, openPostgresStore } from './postgres.ts';
import { openSqliteStore } from './sqlite.ts';
import type { Store } from './types.ts';

export interface OpenStoreOptions {
  /** SQLite's directory (DATA_DIR); unused with a database URL. */
  dataDir: string;
  /** postgres:// or postgresql:// URL; absent or empty: SQLite. */
  databaseUrl?: string;
  /** PostgreSQL connections this process keeps at most. */
  poolSize?: number;
  now?: () => number;
}

const MAX_POOL_SIZE = 1000;

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

/** openStore with DATABASE_URL and DATABASE_POOL_SIZE (default 10) read from env. */
export async function openStoreFromEnv(env: NodeJS.ProcessEnv, opts: { dataDir: string; now?: () => number }): Promise<Store> {
  return openStore({ ...opts, databaseUrl: env.DATABASE_URL, poolSize: poolSizeFrom(env.DATABASE_POOL_SIZE) });
}

function poolSizeFrom(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return DEFAULT_POOL_SIZE;
  const n = /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_POOL_SIZE) {
    throw new StoreConfigError(`DATABASE_POOL_SIZE must be a whole number from 1 to ${MAX_POOL_SIZE}, got ${JSON.stringify(raw)}`);
  }
  return n;
}
