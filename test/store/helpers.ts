// Test helpers: the store contract runs once per dialect, each test on a fresh real store (a temp SQLite
// directory, or an empty schema on the run's PostgreSQL server), closed and removed after each test.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe } from 'vitest';
import { openPostgresStore, openSqliteStore, type Store } from '../../host/store/index.ts';
import { openPostgresClient } from '../../host/store/postgres.ts';
import type { Dialect, SqlClient } from '../../host/store/sql.ts';
import { openSqliteClient } from '../../host/store/sqlite.ts';
import { freshSchema } from '../helpers/postgres-database.ts';

export const DIALECTS: readonly Dialect[] = ['sqlite', 'postgres'];

/** Where one store lives: its SQLite directory or its PostgreSQL URL (database + schema). */
export type Place = { dialect: 'sqlite'; dir: string } | { dialect: 'postgres'; url: string };

export interface StoreHarness {
  dialect: Dialect;
  /** A new, empty place for a store. */
  newPlace(): Promise<Place>;
  /** Opens (and migrates) a store; pass a place to reopen it or to open a second "process" on it. */
  openStore(place?: Place): Promise<Store>;
  /** A raw SQL client on a place (no migrations), closed after the test. */
  openClient(place: Place): SqlClient;
}

const opened: Array<{ close(): Promise<void> }> = [];
const dirs: string[] = [];

export function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-test-'));
  dirs.push(dir);
  return dir;
}

afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

export function storeHarness(dialect: Dialect): StoreHarness {
  const newPlace = async (): Promise<Place> => (dialect === 'sqlite' ? { dialect, dir: tempDir() } : { dialect, url: await freshSchema() });
  return {
    dialect,
    newPlace,
    async openStore(place) {
      const at = place ?? (await newPlace());
      const store = at.dialect === 'sqlite' ? await openSqliteStore(at.dir) : await openPostgresStore(at.url);
      opened.push(store);
      return store;
    },
    openClient(place) {
      const client = place.dialect === 'sqlite' ? openSqliteClient(path.join(place.dir, 'store.sqlite')) : openPostgresClient(place.url);
      opened.push(client);
      return client;
    },
  };
}

/** The same suite once per dialect: "datasets (sqlite)", "datasets (postgres)". */
export function describeStores(name: string, suite: (h: StoreHarness) => void): void {
  describe.each(DIALECTS)(`${name} (%s)`, (dialect) => suite(storeHarness(dialect)));
}

export const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);
export const HOUR = 60 * 60 * 1000;
export const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');
