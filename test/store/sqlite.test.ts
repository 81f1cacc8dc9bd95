// What only the SQLite adapter has: one file under DATA_DIR, in WAL mode.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteClient } from '../../host/store/sqlite.ts';
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
