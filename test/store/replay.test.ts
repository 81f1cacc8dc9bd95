// Idempotency records (insert-if-absent, leased while in flight).
import { expect, it } from 'vitest';
import type { IdempotencyRecord } from '../../host/store/index.ts';
import { describeStores, HOUR, T0 } from './helpers.ts';

const rec = (over: Partial<IdempotencyRecord> = {}): IdempotencyRecord => ({
  workspace_id: 'ws_1',
  operation: 'svc_ask',
  key: 'k1',
  body_hash: 'h1',
  status_code: 202,
  response: '{"status":"pending"}',
  task_id: 'tk_1',
  lease_owner: null,
  lease_until: null,
  created_at: T0,
  ...over,
});
const inFlight = (over: Partial<IdempotencyRecord> = {}) =>
  rec({ status_code: 0, response: null, task_id: null, lease_owner: 'a', lease_until: T0 + 15_000, ...over });
const LEASE = { lease_ms: 15_000 };

describeStores('idempotency records', ({ openStore }) => {
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

describeStores('in-flight idempotency leases', ({ openStore }) => {
  it('renews only the owner’s lease, and only while the record is in flight', async () => {
    const store = await openStore();
    await store.putIdempotency(inFlight());
    expect(await store.renewIdempotencyLease('ws_1', 'svc_ask', 'k1', 'b', T0 + 99_000)).toBe(false);
    expect(await store.renewIdempotencyLease('ws_1', 'svc_ask', 'k1', 'a', T0 + 20_000)).toBe(true);
    expect(await store.getIdempotency('ws_1', 'svc_ask', 'k1')).toMatchObject({ lease_owner: 'a', lease_until: T0 + 20_000 });
    await store.updateIdempotencyResponse('ws_1', 'svc_ask', 'k1', 200, '{}', 'a');
    expect(await store.renewIdempotencyLease('ws_1', 'svc_ask', 'k1', 'a', T0 + 30_000)).toBe(false);
    expect(await store.getIdempotency('ws_1', 'svc_ask', 'k1')).toMatchObject({ status_code: 200, lease_owner: null, lease_until: null });
  });

  it('is taken over only once the lease has run out, by exactly one of two retries, and only for the same body', async () => {
    const store = await openStore();
    await store.putIdempotency(inFlight());
    expect(await store.takeOverIdempotency('ws_1', 'svc_ask', 'k1', 'h1', { owner: 'b', now: T0 + 14_999, ...LEASE })).toBe(false);
    expect(await store.takeOverIdempotency('ws_1', 'svc_ask', 'k1', 'other', { owner: 'b', now: T0 + 15_001, ...LEASE })).toBe(false);
    const [b, c] = await Promise.all([
      store.takeOverIdempotency('ws_1', 'svc_ask', 'k1', 'h1', { owner: 'b', now: T0 + 15_001, ...LEASE }),
      store.takeOverIdempotency('ws_1', 'svc_ask', 'k1', 'h1', { owner: 'c', now: T0 + 15_001, ...LEASE }),
    ]);
    expect([b, c].filter(Boolean)).toHaveLength(1);
    const winner = b ? 'b' : 'c';
    expect(await store.getIdempotency('ws_1', 'svc_ask', 'k1')).toMatchObject({
      status_code: 0,
      lease_owner: winner,
      lease_until: T0 + 30_001,
    });
    // the first owner, alive after all, can no longer store its reply over the new owner's
    expect(await store.updateIdempotencyResponse('ws_1', 'svc_ask', 'k1', 200, '{"from":"a"}', 'a')).toBe(false);
    expect(await store.updateIdempotencyResponse('ws_1', 'svc_ask', 'k1', 200, '{"from":"new"}', winner)).toBe(true);
    expect((await store.getIdempotency('ws_1', 'svc_ask', 'k1'))?.response).toBe('{"from":"new"}');
  });

  it('never takes over a record whose reply is stored', async () => {
    const store = await openStore();
    await store.putIdempotency(rec({ status_code: 200, response: '{}', lease_until: null }));
    expect(await store.takeOverIdempotency('ws_1', 'svc_ask', 'k1', 'h1', { owner: 'b', now: T0 + HOUR, ...LEASE })).toBe(false);
  });

  it('a released lease (shutdown) is taken over at once', async () => {
    const store = await openStore();
    await store.putIdempotency(inFlight());
    expect(await store.releaseIdempotency('ws_1', 'svc_ask', 'k1', 'b')).toBe(false);
    expect(await store.releaseIdempotency('ws_1', 'svc_ask', 'k1', 'a')).toBe(true);
    expect(await store.takeOverIdempotency('ws_1', 'svc_ask', 'k1', 'h1', { owner: 'b', now: T0 + 1, ...LEASE })).toBe(true);
  });
});
