// The store of contract 1.1 (migration 4): model links per namespace with expiry and deletion, usage per
// namespace, stored answers in parts, profiles; and the migration of links made before it. Both dialects.
import { expect, it } from 'vitest';
import type { NewModel } from '../../host/store/index.ts';
import { MIGRATIONS, renderMigration } from '../../host/store/migrations.ts';
import { describeStores, HOUR, T0, text } from './helpers.ts';

const DAY = 24 * HOUR;
const FIT = 'mr1_' + 'a'.repeat(32);
const NS_REF = 'mr1_' + 'b'.repeat(32);
const model = (over: Partial<NewModel> = {}): NewModel => ({
  model_ref: FIT,
  workspace_id: 'ws_1',
  fit_key: 'fk_1',
  record_hash: 'rh_1',
  bytes: Buffer.from('model-bytes'),
  meta: '{"state":"answered"}',
  created_at: T0,
  expires_at: T0 + 90 * DAY,
  ...over,
});

describeStores('model links', ({ dialect, openStore, newPlace, openClient }) => {
  it('links a namespaced ref to the shared fit; the link knows its namespace, fit and expiry', async () => {
    const store = await openStore();
    const put = await store.putModel(model({ model_ref: NS_REF, fit_ref: FIT, namespace: 'acme' }));
    expect(put).toMatchObject({ model_ref: NS_REF, fit_ref: FIT, namespace: 'acme', expires_at: T0 + 90 * DAY, deleted_at: null });
    expect(text(put.bytes)).toBe('model-bytes');
    expect(await store.getModelLink('ws_1', NS_REF)).toMatchObject({ namespace: 'acme', fit_ref: FIT, fit_key: 'fk_1' });
    // the fit is stored under its own ref; the namespaced ref is only a link
    expect(await store.getModelByFitKey('fk_1')).toMatchObject({ model_ref: FIT });
    expect(await store.getModelLink('ws_1', FIT)).toBeNull();
  });

  it('raises an expiry only, by a put or by extendModelExpiry, and keeps a link made before 1.1 at 90 days', async () => {
    const store = await openStore();
    await store.putModel(model());
    expect((await store.putModel(model({ expires_at: T0 + DAY })))!.expires_at).toBe(T0 + 90 * DAY);
    expect((await store.putModel(model({ expires_at: T0 + 100 * DAY })))!.expires_at).toBe(T0 + 100 * DAY);
    expect((await store.putModel(model({ expires_at: null })))!.expires_at).toBe(T0 + 100 * DAY);
    // extending to an earlier time keeps the later expiry (and says the link is there); a later one moves it
    expect(await store.extendModelExpiry('ws_1', FIT, T0 + 3 * DAY)).toBe(true);
    expect((await store.getModelLink('ws_1', FIT))!.expires_at).toBe(T0 + 100 * DAY);
    expect(await store.extendModelExpiry('ws_1', FIT, T0 + 120 * DAY)).toBe(true);
    expect((await store.getModelLink('ws_1', FIT))!.expires_at).toBe(T0 + 120 * DAY);
    expect(await store.extendModelExpiry('ws_2', FIT, T0)).toBe(false);
  });

  it('deletes a link as a tombstone and the fit bytes with the last live link; a put brings it back', async () => {
    const store = await openStore();
    await store.putModel(model());
    await store.putModel(model({ model_ref: NS_REF, fit_ref: FIT, namespace: 'acme' }));
    expect(await store.deleteModel('ws_1', NS_REF, T0 + 5)).toEqual({ deleted: true, fit_key_removed: null });
    expect(await store.getModelLink('ws_1', NS_REF)).toMatchObject({ deleted_at: T0 + 5, fit_key: 'fk_1' });
    expect(await store.extendModelExpiry('ws_1', NS_REF, T0 + DAY)).toBe(false);
    // a repeat changes nothing
    expect(await store.deleteModel('ws_1', NS_REF, T0 + 6)).toEqual({ deleted: false, fit_key_removed: null });
    expect((await store.getModelLink('ws_1', NS_REF))!.deleted_at).toBe(T0 + 5);
    // the last live link: the bytes go
    expect(await store.deleteModel('ws_1', FIT, T0 + 7)).toEqual({ deleted: true, fit_key_removed: 'fk_1' });
    expect(await store.getModelByFitKey('fk_1')).toBeNull();
    expect(await store.getModelByRef('ws_1', FIT)).toBeNull();
    expect(await store.getModelLink('ws_1', FIT)).toMatchObject({ deleted_at: T0 + 7, fit_key: null });
    expect(await store.deleteModel('ws_9', FIT, T0)).toEqual({ deleted: false, fit_key_removed: null });
    // asking again stores the fit again and revives the link with exactly its own expiry
    const back = await store.putModel(model({ created_at: T0 + DAY, expires_at: T0 + 2 * DAY }));
    expect(back).toMatchObject({ deleted_at: null, expires_at: T0 + 2 * DAY });
    expect(await store.getModelByFitKey('fk_1')).not.toBeNull();
  });

  it('migration 5 gives links made before it their fit and 90 days from when they were made', async () => {
    const place = await newPlace();
    const db = openClient(place);
    await db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)');
    for (const m of MIGRATIONS.filter((x) => x.version < 5)) {
      const sql = renderMigration(m.sql, dialect);
      if (sql.trim() !== '') await db.exec(sql);
      await db.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [m.version, m.name, T0]);
    }
    await db.run('INSERT INTO fits (model_ref, fit_key, record_hash, bytes, meta, created_at) VALUES (?, ?, ?, ?, ?, ?)', [
      FIT,
      'fk_1',
      'rh_1',
      Buffer.from('b'),
      '{}',
      T0,
    ]);
    await db.run('INSERT INTO workspace_models (workspace_id, model_ref, refit_of, linked_at) VALUES (?, ?, ?, ?)', [
      'ws_1',
      FIT,
      null,
      T0,
    ]);
    await db.run('INSERT INTO usage_ledger (workspace_id, kind, count, at) VALUES (?, ?, ?, ?)', ['ws_1', 'decision', 4, T0]);
    const store = await openStore(place);
    expect(await store.getModelLink('ws_1', FIT)).toMatchObject({
      namespace: '',
      fit_ref: FIT,
      expires_at: T0 + 90 * DAY,
      deleted_at: null,
    });
    expect(await store.getMonthlyUsage('ws_1', T0, '')).toMatchObject({ decisions: 4 });
  });
});

describeStores('usage per namespace', ({ openStore }) => {
  it('keeps each namespace apart; the workspace total is their sum', async () => {
    const store = await openStore();
    await store.recordUsage({ workspace_id: 'ws_1', kind: 'decision', count: 3, at: T0 });
    await store.recordUsage({ workspace_id: 'ws_1', namespace: 'acme', kind: 'decision', count: 5, at: T0 });
    await store.recordUsage({ workspace_id: 'ws_1', namespace: 'acme', kind: 'fit', count: 1, at: T0 });
    expect(await store.getMonthlyUsage('ws_1', T0, 'acme')).toMatchObject({ fits: 1, decisions: 5 });
    expect(await store.getMonthlyUsage('ws_1', T0, '')).toMatchObject({ fits: 0, decisions: 3 });
    expect(await store.getMonthlyUsage('ws_1', T0)).toMatchObject({ fits: 1, decisions: 8 });
    expect(await store.getMonthlyUsage('ws_1', T0, 'globex')).toMatchObject({ fits: 0, decisions: 0 });
  });
});

describeStores('stored answers', ({ openStore }) => {
  it('reads an answer only once finished, part by part, within its workspace; the sweeper drops it after expiry', async () => {
    const store = await openStore();
    const expires = T0 + DAY;
    await store.putStoredAnswerPart({ answer_id: 'sa_1', seq: 1, content: 'head,', expires_at: expires });
    await store.putStoredAnswerPart({ answer_id: 'sa_1', seq: 2, content: Buffer.from('tail'), expires_at: expires });
    expect(await store.getStoredAnswer('ws_1', 'sa_1')).toBeNull();
    await store.finishStoredAnswer({
      workspace_id: 'ws_1',
      id: 'sa_1',
      kind: 'csv',
      parts: 2,
      byte_count: 9,
      created_at: T0,
      expires_at: expires,
    });
    expect(await store.getStoredAnswer('ws_1', 'sa_1')).toEqual({
      workspace_id: 'ws_1',
      id: 'sa_1',
      kind: 'csv',
      parts: 2,
      byte_count: 9,
      created_at: T0,
      expires_at: expires,
    });
    expect(await store.getStoredAnswer('ws_2', 'sa_1')).toBeNull();
    expect(text((await store.getStoredAnswerPart('sa_1', 1))!) + text((await store.getStoredAnswerPart('sa_1', 2))!)).toBe('head,tail');
    // an unfinished answer's parts (its writer died) go with the expiry too
    await store.putStoredAnswerPart({ answer_id: 'sa_dead', seq: 1, content: 'x', expires_at: expires });
    expect((await store.sweep(expires - 1)).answers).toBe(0);
    expect((await store.sweep(expires + 1)).answers).toBe(1);
    expect(await store.getStoredAnswer('ws_1', 'sa_1')).toBeNull();
    expect(await store.getStoredAnswerPart('sa_1', 1)).toBeNull();
    expect(await store.getStoredAnswerPart('sa_dead', 1)).toBeNull();
  });
});

describeStores('whole stored answers', ({ openStore }) => {
  it('writes every part and the header in one transaction, readable at once', async () => {
    const store = await openStore();
    const a = { workspace_id: 'ws_1', id: 'sa_w', kind: 'json' as const, parts: 2, byte_count: 7, created_at: T0, expires_at: T0 + DAY };
    await store.putStoredAnswer(a, [Buffer.from('{"a":'), '1}']);
    expect(await store.getStoredAnswer('ws_1', 'sa_w')).toEqual(a);
    expect(text((await store.getStoredAnswerPart('sa_w', 1))!) + text((await store.getStoredAnswerPart('sa_w', 2))!)).toBe('{"a":1}');
    // the same id again fails whole: nothing half-written stays behind
    await expect(store.putStoredAnswer(a, ['x'])).rejects.toThrow();
    expect(text((await store.getStoredAnswerPart('sa_w', 1))!)).toBe('{"a":');
  });
});

describeStores('profiles', ({ openStore }) => {
  it('keeps one per workspace and namespace, replaced whole', async () => {
    const store = await openStore();
    expect(await store.getProfile('ws_1', '')).toBeNull();
    await store.putProfile({ workspace_id: 'ws_1', namespace: 'acme', body: '{"a":1}', hash: 'pf1_a', updated_at: T0 });
    await store.putProfile({ workspace_id: 'ws_1', namespace: 'acme', body: '{"b":2}', hash: 'pf1_b', updated_at: T0 + 1 });
    expect(await store.getProfile('ws_1', 'acme')).toEqual({
      workspace_id: 'ws_1',
      namespace: 'acme',
      body: '{"b":2}',
      hash: 'pf1_b',
      updated_at: T0 + 1,
    });
    expect(await store.getProfile('ws_1', '')).toBeNull();
    expect(await store.getProfile('ws_2', 'acme')).toBeNull();
  });
});
