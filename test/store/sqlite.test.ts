// What only the SQLite adapter has: one file under DATA_DIR, in WAL mode.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openSqliteClient } from '../../host/store/sqlite.ts';
import { withoutSync, type SqlClient } from '../../host/store/sql.ts';
import { storeHarness } from './helpers.ts';

const { openStore, newPlace } = storeHarness('sqlite');

describe('sqlite store', () => {
  it('creates the file in WAL mode', async () => {
    const place = await newPlace();
    if (place.dialect !== 'sqlite') throw new Error('unreachable');
    await (await openStore(place)).close();
    const file = path.join(place.dir, 'store.sqlite');
    expect(fs.existsSync(file)).toBe(true);
    const db = openSqliteClient(file);
    expect(await db.get('PRAGMA journal_mode')).toEqual({ journal_mode: 'wal' });
    await db.close();
  });
});

describe('sqlite write lock held by another connection', () => {
  async function twoConnections(busyTimeoutMs: number) {
    const place = await newPlace();
    if (place.dialect !== 'sqlite') throw new Error('unreachable');
    const file = path.join(place.dir, 'lock.sqlite');
    const ours = openSqliteClient(file, busyTimeoutMs);
    await ours.exec('CREATE TABLE t (n INTEGER)');
    // another connection (a task thread's, another process's), here on this same thread
    const other = new Database(file, { timeout: 0 });
    return { ours, other };
  }

  it('waits on a timer, so this thread keeps serving reads, and writes once the lock is free', async () => {
    const { ours, other } = await twoConnections(3_000);
    other.exec('BEGIN IMMEDIATE');
    other.exec('INSERT INTO t VALUES (1)');
    const started = performance.now();
    const write = ours.run('INSERT INTO t VALUES (2)');
    // A blocking wait would sleep this thread for the whole busy timeout and then fail: the other
    // connection's COMMIT below could never run.
    const read = await ours.get<{ c: number }>('SELECT COUNT(*) AS c FROM t');
    expect(read).toEqual({ c: 0 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    other.exec('COMMIT');
    expect(await write).toBe(1);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(ours.lockRetries).toBeGreaterThan(0);
    expect(await ours.all('SELECT n FROM t ORDER BY n')).toEqual([{ n: 1 }, { n: 2 }]);
    other.close();
    await ours.close();
  });

  it('gives up with SQLITE_BUSY after the busy timeout, writing nothing', async () => {
    const { ours, other } = await twoConnections(150);
    other.exec('BEGIN IMMEDIATE');
    const started = performance.now();
    await expect(ours.transaction((tx) => tx.run('INSERT INTO t VALUES (3)'))).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    other.exec('ROLLBACK');
    expect(await ours.all('SELECT n FROM t')).toEqual([]);
    expect(await ours.run('INSERT INTO t VALUES (4)')).toBe(1); // the connection is usable after
    other.close();
    await ours.close();
  });
});

describe('sqlite transactions that need not wait for the disk (durable: false)', () => {
  // PRAGMA synchronous: 1 NORMAL (a WAL commit waits for no fsync), 2 FULL (every commit does)
  const syncLevel = async (db: SqlClient) => ((await db.get('PRAGMA synchronous')) as { synchronous: number }).synchronous;

  it('commits without an fsync, then the connection syncs every commit again, after a rollback and a busy lock too', async () => {
    const place = await newPlace();
    if (place.dialect !== 'sqlite') throw new Error('unreachable');
    const file = path.join(place.dir, 'lazy.sqlite');
    const ours = openSqliteClient(file, 100);
    await ours.exec('CREATE TABLE t (n INTEGER)');
    expect(await syncLevel(ours)).toBe(2);
    const inside = await ours.transaction(
      async (tx) => {
        await tx.run('INSERT INTO t VALUES (1)');
        return syncLevel(tx);
      },
      { durable: false },
    );
    expect(inside).toBe(1);
    expect(await syncLevel(ours)).toBe(2);
    // the row is committed: another connection reads it
    const other = new Database(file, { timeout: 0 });
    expect(other.prepare('SELECT n FROM t').all()).toEqual([{ n: 1 }]);
    // withoutSync: run and transaction lazy, the rest as the client is
    const lazy = withoutSync(ours);
    expect(await lazy.run('INSERT INTO t VALUES (2)')).toBe(1);
    expect(await syncLevel(ours)).toBe(2);
    await expect(
      lazy.transaction(async (tx) => {
        await tx.run('INSERT INTO t VALUES (3)');
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await syncLevel(ours)).toBe(2);
    other.exec('BEGIN IMMEDIATE');
    await expect(lazy.run('INSERT INTO t VALUES (4)')).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    other.exec('ROLLBACK');
    expect(await syncLevel(ours)).toBe(2);
    expect(await ours.all('SELECT n FROM t ORDER BY n')).toEqual([{ n: 1 }, { n: 2 }]);
    // a durable transaction after them is synced as before
    expect(await ours.transaction(async (tx) => syncLevel(tx))).toBe(2);
    other.close();
    await ours.close();
  });
});
