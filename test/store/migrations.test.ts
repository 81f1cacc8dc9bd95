// host/store/migrations/: one file per migration, read back as exactly the SQL and names a store migrated
// before the files existed recorded, so such a store is up to date as it is (the runner matches versions).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, renderMigration, runMigrations } from '../../host/store/migrations.ts';
import { openSqliteClient } from '../../host/store/sqlite.ts';

/**
 * Version, recorded name and the first 16 hex of SHA-256 of the SQL each dialect runs, as the one-array
 * runner before these files ran them (a change here is a new migration, never an edit).
 */
const RELEASED: [number, string, string, string][] = [
  [1, 'initial schema', '9b52674f03c8f21a', 'ca259fda58de2711'],
  [2, 'drift reports on the refit link, answers per workspace, task attempts, idempotency leases', '5dcf6b7912e7f4f8', '5dcf6b7912e7f4f8'],
  [
    3,
    'drop answers: replies are kept with idempotency records and tasks, drift reports on refit links',
    'a0fd957e6350951f',
    'a0fd957e6350951f',
  ],
  [4, 'lz4 compression for dataset pieces and fitted models (PostgreSQL)', 'e3b0c44298fc1c14', 'fcc6dd328a461323'],
  [5, 'namespaces, model expiry and deletion, usage per namespace, stored answers, profiles', 'bde6ef53e3898609', '8763c56ab635e96e'],
  [6, 'task events', '0a09d69d616ea88e', '0a09d69d616ea88e'],
  [7, 'upload sessions', '046d3037e9b42571', '046d3037e9b42571'],
  [8, 'shared token secrets, rate-limit windows, periodic jobs and fit claims for several nodes', 'e43e23ea6cf43763', '377afd6b9ae5a64c'],
  [9, 'answers kept for the track record', '56a1b81c30d35cc6', '771c6e3b680f5f31'],
  [10, 'mappings', '4cda28209c5351e9', '4cda28209c5351e9'],
  [11, 'schedules', '6c011840fa6c4c0e', '6c011840fa6c4c0e'],
];

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('migration files', () => {
  it('give every released migration its version, name and SQL byte for byte, in both dialects', () => {
    const released = RELEASED.map(([version, name, sqlite, postgres]) => ({ version, name, sqlite, postgres }));
    const read = MIGRATIONS.slice(0, RELEASED.length).map((m) => ({
      version: m.version,
      name: m.name,
      sqlite: digest(renderMigration(m.sql, 'sqlite')),
      postgres: digest(renderMigration(m.sql, 'postgres')),
    }));
    expect(read).toEqual(released);
  });

  it('number the migrations 1, 2, 3, ... with no gap', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  });

  it('leave a store that recorded every version as it is', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'migrations-test-'));
    dirs.push(dir);
    const db = openSqliteClient(path.join(dir, 'store.db'));
    try {
      expect(await runMigrations(db, 1)).toEqual(MIGRATIONS.map((m) => m.version));
      const before = await db.all('SELECT type, name, sql FROM sqlite_master ORDER BY name');
      expect(await runMigrations(db, 2)).toEqual([]);
      expect(await db.all('SELECT type, name, sql FROM sqlite_master ORDER BY name')).toEqual(before);
      expect(await db.all('SELECT version, name, applied_at FROM schema_migrations ORDER BY version')).toEqual(
        MIGRATIONS.map((m) => ({ version: m.version, name: m.name, applied_at: 1 })),
      );
    } finally {
      await db.close();
    }
  });
});
