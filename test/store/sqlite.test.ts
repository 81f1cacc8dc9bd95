// What only the SQLite adapter has: one file under DATA_DIR, in WAL mode.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openSqliteClient, openSqliteStore } from '../../host/store/sqlite.ts';
import { startCheckpointer } from '../../host/store/sqlite-checkpoint.ts';
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
    expect((ours as unknown as { lockRetries: number }).lockRetries).toBeGreaterThan(0);
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

describe('sqlite WAL checkpoints off the request thread', () => {
  it('the request thread never checkpoints; a thread of its own does, and the WAL stays bounded', async () => {
    const place = await newPlace();
    if (place.dialect !== 'sqlite') throw new Error('unreachable');
    const file = path.join(place.dir, 'wal.sqlite');
    const ours = openSqliteClient(file, 3_000, { autoCheckpoint: false });
    expect(await ours.get('PRAGMA wal_autocheckpoint')).toEqual({ wal_autocheckpoint: 0 });
    await ours.exec('CREATE TABLE t (b BLOB)');
    const blob = new Uint8Array(512 << 10); // 512 KiB, about 128 pages
    const walBytes = () => fs.statSync(`${file}-wal`).size;
    // Without a checkpointer the WAL only grows: 4 MiB written (past the 1,000 pages at which a connection
    // would checkpoint on its own), 4 MiB and more of WAL.
    for (let i = 0; i < 8; i++) await ours.run('INSERT INTO t VALUES (?)', [blob]);
    const grown = walBytes();
    expect(grown).toBeGreaterThan(4 << 20);
    const errors: string[] = [];
    const checkpointer = startCheckpointer(file, { everyMs: 20, busyTimeoutMs: 1_000, onError: (m) => errors.push(m) });
    try {
      // Written in pieces with checkpoints between them, the WAL starts again from its beginning each time:
      // 8 MiB more written, and the file grows by a piece or two at most (the one a restart may miss).
      for (let i = 0; i < 16; i++) {
        const runs = checkpointer.runs;
        await ours.run('INSERT INTO t VALUES (?)', [blob]);
        while (checkpointer.runs < runs + 2) await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(checkpointer.last!.checkpointed).toBe(checkpointer.last!.log);
      await ours.run('INSERT INTO t VALUES (?)', [blob]);
      expect(walBytes()).toBeLessThan(grown + (2 << 20));
      expect(errors).toEqual([]);
    } finally {
      await checkpointer.stop();
    }
    expect(await ours.get('SELECT COUNT(*) AS n FROM t')).toEqual({ n: 25 });
    await ours.close();
  });

  it('the service store starts its checkpoint thread and stops it on close', async () => {
    const place = await newPlace();
    if (place.dialect !== 'sqlite') throw new Error('unreachable');
    const store = await openSqliteStore(place.dir, { checkpointInBackground: true });
    const threads = () => fs.readdirSync('/proc/self/task').length;
    const before = threads();
    await store.close();
    expect(threads()).toBeLessThan(before);
  });
});
