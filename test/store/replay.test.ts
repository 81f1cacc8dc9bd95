// Idempotency records (insert-if-absent) and stored answers.
import { describe, expect, it } from 'vitest';
import type { IdempotencyRecord } from '../../host/store/index.ts';
import { HOUR, openStore, T0 } from './helpers.ts';

const rec = (over: Partial<IdempotencyRecord> = {}): IdempotencyRecord => ({
  workspace_id: 'ws_1', operation: 'svc_ask', key: 'k1', body_hash: 'h1', status_code: 202,
  response: '{"status":"pending"}', task_id: 'tk_1', created_at: T0, ...over,
});

describe('idempotency records', () => {
  it('inserts when absent and returns the existing row when present', async () => {
    const store = await openStore();
    expect(await store.putIdempotency(rec())).toEqual({ inserted: true, record: rec() });
    const again = await store.putIdempotency(rec({ body_hash: 'h2', created_at: T0 + 5 }));
    expect(again).toEqual({ inserted: false, record: rec() });
    expect(await store.getIdempotency('ws_1', 'svc_ask', 'k1')).toEqual(rec());
  });

  it('lets exactly one of concurrent puts of one key insert', async () => {
    const store = await openStore();
    const results = await Promise.all(['a', 'b', 'c'].map((h) => store.putIdempotency(rec({ body_hash: h }))));
    expect(results.filter((r) => r.inserted)).toHaveLength(1);
    const winner = results.find((r) => r.inserted)!.record;
    for (const r of results) expect(r.record).toEqual(winner);
  });

  it('scopes keys by workspace and operation', async () => {
    const store = await openStore();
    await store.putIdempotency(rec());
    expect((await store.putIdempotency(rec({ workspace_id: 'ws_2' }))).inserted).toBe(true);
    expect((await store.putIdempotency(rec({ operation: 'svc_other' }))).inserted).toBe(true);
    expect(await store.getIdempotency('ws_3', 'svc_ask', 'k1')).toBeNull();
  });

  it('replaces an expired record not yet swept', async () => {
    const store = await openStore();
    await store.putIdempotency(rec());
    const later = T0 + 25 * HOUR;
    const r = await store.putIdempotency(rec({ body_hash: 'h2', created_at: later }), later - 24 * HOUR);
    expect(r).toEqual({ inserted: true, record: rec({ body_hash: 'h2', created_at: later }) });
  });

  it('updates the stored response and deletes records older than a cutoff', async () => {
    const store = await openStore();
    await store.putIdempotency(rec());
    await store.putIdempotency(rec({ key: 'k2', created_at: T0 + HOUR }));
    expect(await store.updateIdempotencyResponse('ws_1', 'svc_ask', 'k1', 200, '{"status":"done"}')).toBe(true);
    expect(await store.getIdempotency('ws_1', 'svc_ask', 'k1')).toMatchObject({ status_code: 200, response: '{"status":"done"}' });
    expect(await store.deleteIdempotencyOlderThan(T0 + 1)).toBe(1);
    expect(await store.getIdempotency('ws_1', 'svc_ask', 'k1')).toBeNull();
    expect(await store.getIdempotency('ws_1', 'svc_ask', 'k2')).not.toBeNull();
  });
});

describe('stored answers', () => {
  it('puts and gets an answer within its workspace', async () => {
    const store = await openStore();
    await store.putAnswer({ id: 'an_1', workspace_id: 'ws_1', body: '{"a":1}', created_at: T0 });
    expect(await store.getAnswer('ws_1', 'an_1')).toEqual({ id: 'an_1', workspace_id: 'ws_1', body: '{"a":1}', created_at: T0 });
    expect(await store.getAnswer('ws_2', 'an_1')).toBeNull();
  });

  it('replaces the body for the same id but never from another workspace', async () => {
    const store = await openStore();
    await store.putAnswer({ id: 'an_1', workspace_id: 'ws_1', body: '{"a":1}', created_at: T0 });
    await store.putAnswer({ id: 'an_1', workspace_id: 'ws_1', body: '{"a":2}', created_at: T0 + 1 });
    await store.putAnswer({ id: 'an_1', workspace_id: 'ws_2', body: '{"evil":1}', created_at: T0 + 2 });
    expect((await store.getAnswer('ws_1', 'an_1'))?.body).toBe('{"a":2}');
    expect(await store.getAnswer('ws_2', 'an_1')).toBeNull();
  });
});
