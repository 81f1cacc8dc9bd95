// The SQL layer on both dialects: migrations on open (once, also on reopen), migrating an old store,
// closing, transactions (rollback, nesting), bytes and numbers read back exactly.
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, renderMigration } from '../../host/store/migrations.ts';
import { toNumberedPlaceholders, type SqlClient } from '../../host/store/sql.ts';
import { describeStores, T0 } from './helpers.ts';

describeStores('sql store', ({ dialect, openStore, newPlace, openClient }) => {
  const tableExists = async (db: SqlClient, name: string) => {
    const sql =
      dialect === 'sqlite'
        ? "SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ?"
        : 'SELECT COUNT(*) AS n FROM pg_tables WHERE schemaname = current_schema() AND tablename = ?';
    return (await db.get<{ n: number }>(sql, [name]))?.n === 1;
  };

  it('records every migration on open', async () => {
    const place = await newPlace();
    const store = await openStore(place);
    await store.close();
    const db = openClient(place);
    const rows = await db.all<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
  });

  it('runs migrations only once when reopened', async () => {
    const place = await newPlace();
    await (await openStore(place)).close();
    await (await openStore(place)).close();
    const store = await openStore(place);
    expect(await store.getWorkspace('ws_missing')).toBeNull();
    const db = openClient(place);
    expect(await db.get('SELECT COUNT(*) AS n FROM schema_migrations')).toEqual({ n: MIGRATIONS.length });
  });

  it('keeps data after close and reopen', async () => {
    const place = await newPlace();
    const a = await openStore(place);
    const ws = await a.createWorkspace('acme', T0);
    await a.recordUsage({ workspace_id: ws.id, kind: 'decision', count: 3, at: T0 });
    await a.close();
    const b = await openStore(place);
    expect(await b.getWorkspace(ws.id)).toEqual(ws);
    expect(await b.getMonthlyUsage(ws.id, T0)).toMatchObject({ decisions: 3 });
  });

  it('migrates a version 1 store: drift reports move to their refit links, the answers table goes, old in-flight keys can be taken over', async () => {
    const place = await newPlace();
    const db = openClient(place);
    await db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)');
    await db.exec(renderMigration(MIGRATIONS[0]!.sql, dialect));
    await db.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (1, ?, ?)', ['initial schema', T0]);
    const [ref, base] = ['mr1_' + 'a'.repeat(32), 'mr1_' + 'b'.repeat(32)];
    await db.run("INSERT INTO fits VALUES (?, 'fk', 'rh', ?, '{}', ?)", [ref, Buffer.from('m'), T0]);
    for (const ws of ['ws_1', 'ws_2']) await db.run('INSERT INTO workspace_models VALUES (?, ?, ?, ?)', [ws, ref, base, T0]);
    await db.run('INSERT INTO answers VALUES (?, ?, ?, ?)', [`drift_${ref}`, 'ws_1', '{"pattern":"changed"}', T0]);
    await db.run('INSERT INTO answers VALUES (?, ?, ?, ?)', ['an_1', 'ws_1', '{"a":1}', T0]);
    await db.run(
      "INSERT INTO tasks (id, workspace_id, status, request, lease_owner, lease_until, created_at, updated_at) VALUES ('tk_1', 'ws_1', 'running', '{}', 'old', ?, ?, ?)",
      [T0 + 1, T0, T0],
    );
    await db.run("INSERT INTO idempotency_records VALUES ('ws_1', 'svc_ask', 'k1', 'h1', 0, NULL, NULL, ?)", [T0]);
    await db.close();

    const store = await openStore(place);
    expect(await store.getDriftReport('ws_1', ref)).toEqual({ refit_of: base, report: '{"pattern":"changed"}' });
    expect(await store.getDriftReport('ws_2', ref)).toBeNull(); // its report had been dropped by the old key
    const check = openClient(place);
    expect(await tableExists(check, 'answers')).toBe(false);
    expect(await tableExists(check, 'fits')).toBe(true);
    await check.close();
    expect(await store.getTask('ws_1', 'tk_1')).toMatchObject({ status: 'running', attempts: 1 });
    expect(await store.getIdempotency('ws_1', 'svc_ask', 'k1')).toMatchObject({ status_code: 0, lease_owner: null, lease_until: null });
    expect(await store.takeOverIdempotency('ws_1', 'svc_ask', 'k1', 'h1', { owner: 'new', now: T0, lease_ms: 1000 })).toBe(true);
  });

  it('refuses calls after close', async () => {
    const store = await openStore();
    await store.close();
    await expect(store.getWorkspace('x')).rejects.toThrow(/closed/);
  });

  it('keeps concurrent writes out of a transaction that rolls back', async () => {
    const store = await openStore();
    const ws = await store.createWorkspace('w', T0);
    const bad = {
      workspace_id: ws.id,
      model_ref: 'mr1_a',
      entity_id: 'e',
      outcome: 1 as const,
      observed_at: T0,
      event_id: 'e1',
      created_at: T0,
    };
    // The second item violates NOT NULL, so the batch rolls back, while an unrelated write runs alongside.
    const batch = store.writeOutcomes([bad, { ...bad, event_id: 'e2', entity_id: null as unknown as string }]);
    const other = store.createWorkspace('other', T0);
    await expect(batch).rejects.toThrow();
    const w2 = await other;
    expect(await store.getWorkspace(w2.id)).toEqual(w2);
    expect(await store.listOutcomes(ws.id, 'mr1_a')).toEqual([]);
  });

  it('runs a nested transaction inside the outer one: a throw in either rolls back both', async () => {
    const db = openClient(await newPlace());
    await db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v BIGINT NOT NULL)');
    await expect(
      db.transaction(async (tx) => {
        await tx.run('INSERT INTO t (k, v) VALUES (?, ?)', ['outer', 1]);
        await tx.transaction(async (inner) => inner.run('INSERT INTO t (k, v) VALUES (?, ?)', ['inner', 2]));
        throw new Error('undo both');
      }),
    ).rejects.toThrow('undo both');
    await expect(
      db.transaction(async (tx) => {
        await tx.run('INSERT INTO t (k, v) VALUES (?, ?)', ['outer', 1]);
        await tx.transaction(async () => {
          throw new Error('undo from inside');
        });
      }),
    ).rejects.toThrow('undo from inside');
    expect(await db.all('SELECT k FROM t')).toEqual([]);
    const n = await db.transaction(async (tx) => {
      await tx.run('INSERT INTO t (k, v) VALUES (?, ?)', ['a', 1]);
      return tx.transaction(async (inner) => inner.run('INSERT INTO t (k, v) VALUES (?, ?)', ['b', 2]));
    });
    expect(n).toBe(1);
    expect(await db.all('SELECT k, v FROM t ORDER BY k')).toEqual([
      { k: 'a', v: 1 },
      { k: 'b', v: 2 },
    ]);
  });

  it('gives bytes back exactly: zero bytes, bytes that are not UTF-8, a view into a larger buffer', async () => {
    const store = await openStore();
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    const backing = new Uint8Array(1000).fill(7);
    backing.set(all, 300);
    const view = backing.subarray(300, 556); // a Uint8Array (not a Buffer) with an offset
    await store.createDataset({
      id: 'ds_b',
      workspace_id: 'ws_1',
      status: 'open',
      columns: null,
      row_count: 0,
      filename: null,
      created_at: T0,
      last_used_at: T0,
    });
    await store.appendDatasetPiece({ workspace_id: 'ws_1', dataset_id: 'ds_b', content: view, row_count: 1, at: T0 });
    await store.appendDatasetPiece({ workspace_id: 'ws_1', dataset_id: 'ds_b', content: new Uint8Array(0), row_count: 0, at: T0 });
    const got: Uint8Array[] = [];
    for await (const p of store.listDatasetPieces('ws_1', 'ds_b')) got.push(p.content);
    expect(got.map((b) => [...b])).toEqual([[...all], []]);
    expect(got.every((b) => b instanceof Uint8Array)).toBe(true);
  });

  it('reads BIGINT columns, counts and sums as numbers', async () => {
    const store = await openStore();
    const big = 2 ** 52 + 1; // beyond 32 bits, still exact in a double
    await store.recordUsage({ workspace_id: 'ws_1', kind: 'decision', count: big, at: T0 });
    await store.recordUsage({ workspace_id: 'ws_1', kind: 'decision', count: 2, at: T0 });
    expect(await store.getMonthlyUsage('ws_1', T0)).toEqual({ month: '2025-01', fits: 0, decisions: big + 2 });
    const ws = await store.createWorkspace('w', 8_640_000_000_000_000); // the last millisecond a Date can hold
    expect((await store.getWorkspace(ws.id))?.created_at).toBe(8_640_000_000_000_000);
  });
});

describe('migration text', () => {
  it('renders the binary type per dialect and numbers placeholders for PostgreSQL', () => {
    for (const m of MIGRATIONS) {
      expect(renderMigration(m.sql, 'postgres')).not.toMatch(/\{\{|BLOB/);
      expect(renderMigration(m.sql, 'sqlite')).not.toMatch(/\{\{|BYTEA/);
    }
    expect(renderMigration(MIGRATIONS[0]!.sql, 'postgres')).toContain('content BYTEA NOT NULL');
    expect(toNumberedPlaceholders('SELECT a FROM t WHERE b = ? AND c IN (?, ?)')).toBe('SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)');
  });
});
