// Choosing the store: SQLite under DATA_DIR by default, PostgreSQL with a database URL (DATABASE_URL),
// and the clear one-line refusals when the database cannot be used (never showing the password).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openStore, StoreConfigError, StoreUnavailableError, type Store } from '../../host/store/index.ts';
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

describe('opening the store', () => {
  it('keeps SQLite under DATA_DIR without a database URL', async () => {
    for (const databaseUrl of [undefined, null, '', '  ']) {
      const dir = tempDir();
      const ws = await withStore(await openStore({ dataDir: dir, databaseUrl }), (s) => s.createWorkspace('acme', T0));
      expect(fs.existsSync(path.join(dir, 'store.sqlite'))).toBe(true);
      expect(await withStore(await openStore({ dataDir: dir, databaseUrl }), (s) => s.getWorkspace(ws.id))).toEqual(ws);
    }
  });

  it('opens PostgreSQL when DATABASE_URL is a postgres:// URL, and nothing under DATA_DIR', async () => {
    const url = await freshSchema();
    const dir = tempDir();
    const ws = await withStore(await openStore({ dataDir: dir, databaseUrl: url, poolSize: 3 }), (s) => s.createWorkspace('acme', T0));
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
    const err = await openStore({ dataDir: tempDir(), databaseUrl: url }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect((err as StoreUnavailableError).code).toBe('store_unavailable');
    expect((err as Error).message).toContain(`DATABASE_URL (postgres://app@127.0.0.1:${port}/oq)`);
    expect((err as Error).message).toMatch(/ECONNREFUSED/);
    expect(JSON.stringify(err, Object.getOwnPropertyNames(err))).not.toContain('s3cret-pw');
  });

  it('refuses a database that does not exist and a URL of another kind, naming DATABASE_URL without the password', async () => {
    const missing = withDatabase(postgresServerUrl(), 'no_such_db');
    const cases: Array<[string, RegExp]> = [
      [missing, /DATABASE_URL \(postgres:\/\/app@127\.0\.0\.1:\d+\/no_such_db\) refused the connection: .*no_such_db/],
      ['mysql://u:pw@h/db', /DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL/],
      ['postgres://u:pw@[bad/db', /DATABASE_URL is not a valid URL/],
    ];
    for (const [databaseUrl, message] of cases) {
      const err = await openStore({ dataDir: tempDir(), databaseUrl }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreConfigError);
      expect((err as Error).message).toMatch(message);
      expect((err as Error).message).not.toContain('pw@');
    }
  });

  it('says a read-only database (a standby, a paused recovery) needs the primary, in one line', async () => {
    const url = new URL(await freshSchema());
    await (await openStore({ dataDir: tempDir(), databaseUrl: url.href })).close(); // migrated on the primary
    url.searchParams.set('options', `${url.searchParams.get('options')} -c default_transaction_read_only=on`);
    const err = await openStore({ dataDir: tempDir(), databaseUrl: url.href }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreConfigError);
    expect((err as Error).message).toMatch(/^the database is read-only .*point DATABASE_URL at the primary/);
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
