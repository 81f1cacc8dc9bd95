// What only the PostgreSQL adapter has: an outage and recovery of the server, migrations once across nodes
// starting together, lz4 on big bytea, its own type parsers, the pool bound, one connection per transaction.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../host/store/index.ts';
import { MIGRATIONS, runMigrations } from '../../host/store/migrations.ts';
import { openPostgresClient, openPostgresStore } from '../../host/store/postgres.ts';
import type { SqlClient } from '../../host/store/sql.ts';
import { createDatabase, startPostgres, type PostgresServer } from '../helpers/postgres.ts';
import { freshSchema } from '../helpers/postgres-database.ts';
import { T0 } from './helpers.ts';

const outcome = (event_id: string) => ({
  workspace_id: 'ws_1',
  model_ref: 'mr1_x',
  entity_id: 'c',
  outcome: 1 as const,
  observed_at: T0,
  event_id,
  created_at: T0,
});

async function rawQuery<T>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql, params)).rows as T[];
  } finally {
    await c.end();
  }
}

describe('postgres store: the server goes away and comes back', () => {
  // A server of its own: stopping the run's shared server would break the files running beside this one.
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.destroy();
  });

  for (const mode of ['fast', 'immediate'] as const) {
    it(`fails calls with StoreUnavailableError while it is down (pg_ctl stop -m ${mode}) and works again once it is up, without reopening`, async () => {
      const store = await openPostgresStore(await createDatabase(server.url));
      try {
        const ws = await store.createWorkspace('acme', T0);
        // a few pooled connections, idle when the server goes
        await Promise.all([store.getWorkspace(ws.id), store.writeOutcomes([outcome('e0')]), store.listOutcomes('ws_1', 'mr1_x')]);
        await server.stop(mode);

        const read = await store.getWorkspace(ws.id).catch((e: unknown) => e);
        expect(read).toBeInstanceOf(StoreUnavailableError);
        expect((read as StoreUnavailableError).code).toBe('store_unavailable');
        expect((read as Error).message).toMatch(/^the PostgreSQL database is unreachable: /);
        const write = await store.writeOutcomes([outcome('e1')]).catch((e: unknown) => e); // a transaction
        expect(write).toBeInstanceOf(StoreUnavailableError);

        await server.start();
        expect(await store.getWorkspace(ws.id)).toEqual(ws);
        expect(await store.writeOutcomes([outcome('e1')])).toEqual({ written: 1, duplicates: 0 });
        expect((await store.listOutcomes('ws_1', 'mr1_x')).map((o) => o.event_id)).toEqual(['e0', 'e1']);
      } finally {
        await store.close();
      }
    });
  }
});

describe('postgres store', () => {
  it('migrates an empty database exactly once when several nodes start at once', async () => {
    const url = await freshSchema();
    const nodes = Array.from({ length: 5 }, () => openPostgresClient(url));
    try {
      const applied = await Promise.all(nodes.map((c) => runMigrations(c, T0)));
      // every version applied by exactly one node, and recorded once
      expect(applied.flat().sort((a, b) => a - b)).toEqual(MIGRATIONS.map((m) => m.version));
      expect(await nodes[0]!.all('SELECT version, COUNT(*) AS n FROM schema_migrations GROUP BY version ORDER BY version')).toEqual(
        MIGRATIONS.map((m) => ({ version: m.version, n: 1 })),
      );
      expect(await runMigrations(nodes[1]!, T0)).toEqual([]);
    } finally {
      await Promise.all(nodes.map((c) => c.close()));
    }
  });

  it('stores dataset pieces and fitted models compressed with lz4 (migration 4)', async () => {
    const url = await freshSchema();
    const store = await openPostgresStore(url);
    try {
      const big = Buffer.from('a,b,c\n' + '1,2,3\n'.repeat(20_000)); // past the TOAST threshold, compressible
      await store.createDataset({
        id: 'ds_1',
        workspace_id: 'ws_1',
        status: 'open',
        columns: null,
        row_count: 0,
        filename: null,
        created_at: T0,
        last_used_at: T0,
      });
      await store.appendDatasetPiece({ workspace_id: 'ws_1', dataset_id: 'ds_1', content: big, row_count: 20_000, at: T0 });
      await store.putModel({
        model_ref: 'mr1_' + 'a'.repeat(32),
        workspace_id: 'ws_1',
        fit_key: 'fk',
        record_hash: 'rh',
        bytes: big,
        meta: '{}',
        created_at: T0,
      });
      const [piece] = await rawQuery<{ c: string }>(url, 'SELECT pg_column_compression(content) AS c FROM dataset_pieces');
      const [fit] = await rawQuery<{ c: string }>(url, 'SELECT pg_column_compression(bytes) AS c FROM fits');
      expect([piece?.c, fit?.c]).toEqual(['lz4', 'lz4']);
      for await (const p of store.listDatasetPieces('ws_1', 'ds_1')) expect(Buffer.compare(Buffer.from(p.content), big)).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('reads int8 and numeric as numbers with its own parsers, leaving the pg module’s global parsers alone', async () => {
    const url = await freshSchema();
    const db = openPostgresClient(url);
    try {
      expect(await db.get('SELECT CAST(? AS BIGINT) AS a, COUNT(*) AS b, SUM(CAST(? AS BIGINT)) AS c', [T0, 7])).toEqual({
        a: T0,
        b: 1,
        c: 7,
      });
      await expect(db.get('SELECT CAST(? AS BIGINT) AS a', ['9007199254740993'])).rejects.toThrow(/beyond 2\^53/);
      expect(pg.types.getTypeParser(20, 'text')('5')).toBe('5');
      expect(await rawQuery(url, 'SELECT CAST(5 AS BIGINT) AS n')).toEqual([{ n: '5' }]);
    } finally {
      await db.close();
    }
  });

  it('keeps at most poolSize connections however many calls wait', async () => {
    const url = await freshSchema();
    const db = openPostgresClient(url, { poolSize: 2 });
    const watch = new pg.Client({ connectionString: url });
    await watch.connect();
    try {
      const count = async () =>
        Number(
          (
            await watch.query(
              "SELECT COUNT(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'outcome-question-service'",
            )
          ).rows[0].n,
        );
      let most = 0;
      let done = false;
      const watching = (async () => {
        while (!done) {
          most = Math.max(most, await count());
          await new Promise((r) => setTimeout(r, 5));
        }
      })();
      const calls = Array.from({ length: 8 }, (_, i) =>
        i % 2 === 0 ? db.transaction((tx) => tx.run('SELECT pg_sleep(0.05)')) : db.run('SELECT pg_sleep(0.05)'),
      );
      expect(await Promise.all(calls)).toEqual(Array(8).fill(1));
      done = true;
      await watching;
      expect(most).toBeGreaterThanOrEqual(1);
      expect(most).toBeLessThanOrEqual(2);
    } finally {
      await watch.end();
      await db.close();
    }
  });

  it('runs every statement of a transaction on one connection, and other calls beside it on others', async () => {
    const db = openPostgresClient(await freshSchema(), { poolSize: 4 });
    try {
      const pid = (q: SqlClient) => q.get<{ pid: number }>('SELECT pg_backend_pid() AS pid').then((r) => r!.pid);
      const [inside, outside] = await Promise.all([
        db.transaction(async (tx) => {
          const a = await pid(tx);
          await tx.run('SELECT pg_sleep(0.05)');
          const b = await tx.transaction((inner) => pid(inner));
          return [a, b];
        }),
        Promise.all([pid(db), pid(db)]),
      ]);
      expect(inside[0]).toBe(inside[1]);
      expect(outside).not.toContain(inside[0]);
    } finally {
      await db.close();
    }
  });

  it('refuses to report success for a transaction the database rolled back (a failed statement was caught)', async () => {
    const db = openPostgresClient(await freshSchema());
    try {
      await db.exec('CREATE TABLE t (k TEXT PRIMARY KEY)');
      await db.run('INSERT INTO t (k) VALUES (?)', ['a']);
      const result = db.transaction(async (tx) => {
        await tx.run('INSERT INTO t (k) VALUES (?)', ['b']);
        await tx.run('INSERT INTO t (k) VALUES (?)', ['a']).catch(() => 0); // duplicate key, swallowed
        return 'done';
      });
      await expect(result).rejects.toThrow(/rolled back/);
      expect(await db.all('SELECT k FROM t ORDER BY k')).toEqual([{ k: 'a' }]);
    } finally {
      await db.close();
    }
  });

  it('runs a transaction again when the database undid it to break a deadlock', async () => {
    const db = openPostgresClient(await freshSchema(), { poolSize: 4 });
    try {
      await db.exec("CREATE TABLE t (k TEXT PRIMARY KEY, v BIGINT NOT NULL); INSERT INTO t VALUES ('a', 0), ('b', 0)");
      let attempts = 0;
      let arrived = 0;
      let release!: () => void;
      const bothHoldOne = new Promise<void>((r) => (release = r));
      // Each locks one row, waits until the other holds its row, then wants the other's: a deadlock.
      const crosswise = (first: string, second: string) =>
        db.transaction(async (tx) => {
          const attempt = ++attempts;
          await tx.run('UPDATE t SET v = v + 1 WHERE k = ?', [first]);
          if (attempt <= 2) {
            if (++arrived === 2) release();
            await bothHoldOne;
          }
          await tx.run('UPDATE t SET v = v + 1 WHERE k = ?', [second]);
          return attempt;
        });
      const results = await Promise.all([crosswise('a', 'b'), crosswise('b', 'a')]);
      // The victim ran again (its retry may even meet the winner once more before it commits).
      expect(attempts).toBeGreaterThanOrEqual(3);
      expect(results.some((attempt) => attempt >= 3)).toBe(true);
      expect(await db.all('SELECT k, v FROM t ORDER BY k')).toEqual([
        { k: 'a', v: 2 },
        { k: 'b', v: 2 },
      ]);
    } finally {
      await db.close();
    }
  });
});
