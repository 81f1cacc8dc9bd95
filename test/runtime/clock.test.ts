// The service's clock (host/runtime/clock.ts): on PostgreSQL the database server's, whatever this machine's
// clock says (the machine's clock is the outside world here, so it is the one thing skewed on purpose); on
// SQLite this process's own.
import { afterEach, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { DatabaseClock } from '../../host/runtime/clock.ts';
import { openPostgresStore, openSqliteStore, type Store } from '../../host/store/index.ts';
import { freshSchema } from '../helpers/postgres-database.ts';
import { tempDir } from '../helpers/service.ts';

const opened: Store[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const s of opened.splice(0)) await s.close();
});

const HOUR = 3_600_000;

it("follows the database server's clock on a machine whose clock is an hour fast, and says so once", async () => {
  const store = await openPostgresStore(await freshSchema());
  opened.push(store);
  const realNow = Date.now.bind(Date);
  vi.spyOn(Date, 'now').mockImplementation(() => realNow() + HOUR);
  const warnings: unknown[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line)) });
  const clock = await DatabaseClock.start(store, log);
  try {
    // The server runs on this machine with the true time: the corrected clock is within a few ms of it.
    expect(Math.abs(clock.now() - realNow())).toBeLessThan(50);
    expect(clock.offset).toBeLessThan(-HOUR + 50);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ msg: expect.stringMatching(/clock differs from the database server's/) });
    await clock.sync();
    expect(warnings).toHaveLength(1); // the same offset again is not news
  } finally {
    clock.stop();
  }
});

it("is this process's own clock on SQLite", async () => {
  const store = await openSqliteStore(tempDir());
  opened.push(store);
  const clock = await DatabaseClock.start(store, pino({ level: 'silent' }));
  expect(clock.offset).toBe(0);
  expect(await clock.sync()).toBe(false);
  const before = Date.now();
  expect(clock.now()).toBeGreaterThanOrEqual(before);
});
