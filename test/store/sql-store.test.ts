// The SQLite adapter itself: file, WAL, migrations on open, reopen, closing, and the transaction gate.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, renderMigration } from '../../host/store/migrations.ts';
import { toNumberedPlaceholders } from '../../host/store/sql.ts';
import { openSqliteClient } from '../../host/store/sqlite.ts';
import { openStore, T0, tempDir } from './helpers.ts';

describe('sqlite store', () => {
  it('creates the file in WAL mode with every migration recorded', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    await store.close();
    const file = path.join(dir, 'store.sqlite');
    expect(fs.existsSync(file)).toBe(true);
    const db = openSqliteClient(file);
    expect(await db.get('PRAGMA journal_mode')).toEqual({ journal_mode: 'wal' });
    const rows = await db.all<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    await db.close();
  });

  it('runs migrations only once when reopened', async () => {
    const dir = tempDir();
    await (await openStore(dir)).close();
    await (await openStore(dir)).close();
    const store = await openStore(dir);
    expect(await store.getWorkspace('ws_missing')).toBeNull();
    const db = openSqliteClient(path.join(dir, 'store.sqlite'));
    expect(await db.get('SELECT COUNT(*) AS n FROM schema_migrations')).toEqual({ n: MIGRATIONS.length });
    await db.close();
  });

  it('keeps data after close and reopen', async () => {
    const dir = tempDir();
    const a = await openStore(dir);
    const ws = await a.createWorkspace('acme', T0);
    await a.recordUsage({ workspace_id: ws.id, kind: 'decision', count: 3, at: T0 });
    await a.close();
    const b = await openStore(dir);
    expect(await b.getWorkspace(ws.id)).toEqual(ws);
    expect(await b.getMonthlyUsage(ws.id, T0)).toMatchObject({ decisions: 3 });
  });

  it('migrates a version 1 store: drift reports move to their refit links, the answers table goes, old in-flight keys can be taken over', async () => {
    const dir = tempDir();
    const db = openSqliteClient(path.join(dir, 'store.sqlite'));
    await db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)');
    await db.exec(renderMigration(MIGRATIONS[0]!.sql, 'sqlite'));
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

    const store = await openStore(dir);
    expect(await store.getDriftReport('ws_1', ref)).toEqual({ refit_of: base, report: '{"pattern":"changed"}' });
    expect(await store.getDriftReport('ws_2', ref)).toBeNull(); // its report had been dropped by the old key
    const check = openSqliteClient(path.join(dir, 'store.sqlite'));
    expect(await check.get("SELECT name FROM sqlite_master WHERE name = 'answers'")).toBeUndefined();
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

  it('renders the binary type per dialect and numbers placeholders for PostgreSQL', () => {
    for (const m of MIGRATIONS) {
      expect(renderMigration(m.sql, 'postgres')).not.toMatch(/\{\{|BLOB/);
      expect(renderMigration(m.sql, 'sqlite')).not.toMatch(/\{\{|BYTEA/);
    }
    expect(renderMigration(MIGRATIONS[0]!.sql, 'postgres')).toContain('content BYTEA NOT NULL');
    expect(toNumberedPlaceholders('SELECT a FROM t WHERE b = ? AND c IN (?, ?)')).toBe('SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)');
  });
});
