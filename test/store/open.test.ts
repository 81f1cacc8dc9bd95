// Choosing the store from the environment: SQLite under DATA_DIR by default, PostgreSQL with DATABASE_URL,
// and the clear one-line refusals when the database cannot be used (never showing the password).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openStoreFromEnv, StoreConfigError, StoreUnavailableError, type Store } from '../../host/store/index.ts';
import { withDatabase, freePort } from '../helpers/postgres.ts';
import { freshSchema, postgresServerUrl } from '../helpers/postgres-database.ts';
import { T0, tempDir } from './helpers.ts';

const root = path.resolve(import.meta.dirname, '../..');

async function withStore<T>(store: Store, fn: (s: Store) => Promise<T>): Promise<T> {
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** Runs host/main.ts with env; resolves with its exit code and stderr once it exits. */
function runMain(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'host/main.ts'], {
      cwd: root,
      env: { ...process.env, PORT: '0', BASE_URL: '', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

describe('opening the store from the environment', () => {
  it('keeps SQLite under DATA_DIR when DATABASE_URL is unset or empty', async () => {
    for (const env of [{}, { DATABASE_URL: '' }, { DATABASE_URL: '  ' }]) {
      const dir = tempDir();
      const ws = await withStore(await openStoreFromEnv(env, { dataDir: dir }), (s) => s.createWorkspace('acme', T0));
      expect(fs.existsSync(path.join(dir, 'store.sqlite'))).toBe(true);
      expect(await withStore(await openStoreFromEnv(env, { dataDir: dir }), (s) => s.getWorkspace(ws.id))).toEqual(ws);
    }
  });

  it('opens PostgreSQL when DATABASE_URL is a postgres:// URL, and nothing under DATA_DIR', async () => {
    const url = await freshSchema();
    const dir = tempDir();
    const ws = await withStore(await openStoreFromEnv({ DATABASE_URL: url, DATABASE_POOL_SIZE: '3' }, { dataDir: dir }), (s) =>
      s.createWorkspace('acme', T0),
    );
    expect(fs.readdirSync(dir)).toEqual([]);
    const raw = new pg.Client({ connectionString: url });
    await raw.connect();
    try {
      expect((await raw.query('SELECT id, name FROM workspaces')).rows).toEqual([{ id: ws.id, name: 'acme' }]);
    } finally {
      await raw.end();
    }
  });

  it('says the database cannot be reached, naming DATABASE_URL without its password', async () => {
    const port = await freePort();
    const url = `postgres://app:s3cret-pw@127.0.0.1:${port}/oq`;
    const err = await openStoreFromEnv({ DATABASE_URL: url }, { dataDir: tempDir() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect((err as StoreUnavailableError).code).toBe('store_unavailable');
    expect((err as Error).message).toContain(`DATABASE_URL (postgres://app@127.0.0.1:${port}/oq)`);
    expect((err as Error).message).toMatch(/ECONNREFUSED/);
    expect(JSON.stringify(err, Object.getOwnPropertyNames(err))).not.toContain('s3cret-pw');
  });

  it('refuses a database that does not exist, a URL of another kind, and a bad pool size, naming the setting', async () => {
    const missing = withDatabase(postgresServerUrl(), 'no_such_db');
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ DATABASE_URL: missing }, /DATABASE_URL \(postgres:\/\/app@127\.0\.0\.1:\d+\/no_such_db\) refused the connection: .*no_such_db/],
      [{ DATABASE_URL: 'mysql://u:pw@h/db' }, /DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL/],
      [{ DATABASE_URL: 'postgres://u:pw@[bad/db' }, /DATABASE_URL is not a valid URL/],
      [{ DATABASE_URL: postgresServerUrl(), DATABASE_POOL_SIZE: '0' }, /DATABASE_POOL_SIZE must be a whole number from 1 to 1000, got "0"/],
      [{ DATABASE_URL: postgresServerUrl(), DATABASE_POOL_SIZE: '1e3' }, /DATABASE_POOL_SIZE must be a whole number/],
    ];
    for (const [env, message] of cases) {
      const err = await openStoreFromEnv(env, { dataDir: tempDir() }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreConfigError);
      expect((err as Error).message).toMatch(message);
      expect((err as Error).message).not.toContain('pw@');
    }
  });

  it('stops the service at start with one line naming DATABASE_URL and a non-zero exit when the database is unreachable', async () => {
    const port = await freePort();
    const { code, stderr } = await runMain({ DATA_DIR: tempDir(), DATABASE_URL: `postgres://app:s3cret-pw@127.0.0.1:${port}/oq` });
    expect(code).not.toBe(0);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^cannot reach the PostgreSQL database at DATABASE_URL \\(postgres://app@127\\.0\\.0\\.1:${port}/oq\\): `),
    );
    expect(stderr).not.toContain('s3cret-pw');
  });
});
