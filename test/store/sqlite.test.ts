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
    await a.putAnswer({ id: 'an_1', workspace_id: ws.id, body: '{"x":1}', created_at: T0 });
    await a.close();
    const b = await openStore(dir);
    expect(await b.getWorkspace(ws.id)).toEqual(ws);
    expect((await b.getAnswer(ws.id, 'an_1'))?.body).toBe('{"x":1}');
  });

  it('refuses calls after close', async () => {
    const store = await openStore();
    await store.close();
    await expect(store.getWorkspace('x')).rejects.toThrow(/closed/);
  });

  it('keeps concurrent writes out of a transaction that rolls back', async () => {
    const store = await openStore();
    const ws = await store.createWorkspace('w', T0);
    const bad = { workspace_id: ws.id, model_ref: 'mr1_a', entity_id: 'e', outcome: 1 as const, observed_at: T0, event_id: 'e1', created_at: T0 };
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
    expect(toNumberedPlaceholders('SELECT a FROM t WHERE b = ? AND c IN (?, ?)')).toBe(
      'SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)',
    );
  });
});
