// Workspaces, API keys and signing keys.
import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { describeStores, T0 } from './helpers.ts';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describeStores('workspaces', ({ openStore }) => {
  it('creates and gets a workspace with a generated id', async () => {
    const store = await openStore();
    const ws = await store.createWorkspace('acme', T0);
    expect(ws).toEqual({ id: expect.stringMatching(/^ws_[0-9a-z]{26}$/), name: 'acme', created_at: T0 });
    expect(await store.getWorkspace(ws.id)).toEqual(ws);
    expect(await store.getWorkspace('ws_nope')).toBeNull();
  });
});

describeStores('api keys', ({ openStore }) => {
  it('creates, finds by hash, lists, and revokes', async () => {
    const store = await openStore();
    const a = await store.createWorkspace('a', T0);
    const b = await store.createWorkspace('b', T0);
    const secret = 'svck_live_abcdefghijklmnopqrstuvwxyz';
    const key = await store.createApiKey({
      key_hash: sha256(secret),
      prefix: secret.slice(0, 14),
      workspace_id: a.id,
      mode: 'live',
      scopes: ['write:outcomes'],
      created_at: T0,
    });
    const other = await store.createApiKey({
      key_hash: sha256('svck_test_x'),
      prefix: 'svck_test_x',
      workspace_id: b.id,
      mode: 'test',
      scopes: [],
      created_at: T0 + 1,
    });
    expect(key.id).toMatch(/^key_/);
    expect(await store.findApiKeyByHash(sha256(secret))).toEqual(key);
    expect(await store.findApiKeyByHash(sha256('nope'))).toBeNull();
    expect(await store.listApiKeysByWorkspace(a.id)).toEqual([key]);
    expect(await store.listAllApiKeys()).toEqual([key, other]);

    expect(await store.revokeApiKey(key.id, T0 + 5)).toBe(true);
    expect(await store.revokeApiKey(key.id, T0 + 6)).toBe(false);
    expect((await store.findApiKeyByHash(sha256(secret)))?.revoked_at).toBe(T0 + 5);
  });

  it('refuses a second key with the same hash', async () => {
    const store = await openStore();
    const k = { key_hash: 'h', prefix: 'p', workspace_id: 'ws', mode: 'live' as const, scopes: [], created_at: T0 };
    await store.createApiKey(k);
    await expect(store.createApiKey(k)).rejects.toThrow();
  });
});

describeStores('signing keys', ({ openStore }) => {
  const key = (kid: string, created_at: string) => ({
    kid,
    private_jwk: `{"d":"${kid}"}`,
    public_jwk: `{"x":"${kid}"}`,
    created_at,
    retired_at: null,
  });

  it('saves, loads in creation order, and retires', async () => {
    const store = await openStore();
    expect(await store.loadKeys()).toEqual([]);
    const k2 = key('k2', '2025-02-01T00:00:00.000Z');
    const k1 = key('k1', '2025-01-01T00:00:00.000Z');
    await store.saveKey(k2);
    await store.saveKey(k1);
    expect(await store.loadKeys()).toEqual([k1, k2]);
    expect(await store.retireKey('k1', '2025-03-01T00:00:00.000Z')).toBe(true);
    expect(await store.retireKey('k9', '2025-03-01T00:00:00.000Z')).toBe(false);
    expect((await store.loadKeys())[0]!.retired_at).toBe('2025-03-01T00:00:00.000Z');
  });

  it('saving a kid again replaces it', async () => {
    const store = await openStore();
    await store.saveKey(key('k1', '2025-01-01T00:00:00.000Z'));
    await store.saveKey({ ...key('k1', '2025-01-01T00:00:00.000Z'), retired_at: '2025-01-02T00:00:00.000Z' });
    expect(await store.loadKeys()).toEqual([{ ...key('k1', '2025-01-01T00:00:00.000Z'), retired_at: '2025-01-02T00:00:00.000Z' }]);
  });

  it('inserts a first key only while no unretired key exists', async () => {
    const store = await openStore();
    expect(await store.insertFirstKey(key('k1', '2025-01-01T00:00:00.000Z'))).toBe(true);
    expect(await store.insertFirstKey(key('k2', '2025-01-02T00:00:00.000Z'))).toBe(false);
    expect((await store.loadKeys()).map((k) => k.kid)).toEqual(['k1']);
    await store.retireKey('k1', '2025-01-03T00:00:00.000Z');
    expect(await store.insertFirstKey(key('k3', '2025-01-04T00:00:00.000Z'))).toBe(true);
    expect(await store.loadKeys()).toEqual([
      { ...key('k1', '2025-01-01T00:00:00.000Z'), retired_at: '2025-01-03T00:00:00.000Z' },
      key('k3', '2025-01-04T00:00:00.000Z'),
    ]);
  });

  it('refuses a time that is not ISO 8601', async () => {
    const store = await openStore();
    await expect(store.saveKey(key('k1', 'yesterday'))).rejects.toThrow(/ISO/);
  });
});

describeStores('signing keys with the key ring', ({ openStore, newPlace }) => {
  it('serves KeyRing as its SigningKeyStore, keeping the active key across a reopen', async () => {
    const { KeyRing } = await import('../../host/signing/key-ring.ts');
    const dir = await newPlace();
    const a = await openStore(dir);
    const kid = (await KeyRing.open(a)).activeKid;
    await a.close();
    const b = await openStore(dir);
    expect((await KeyRing.open(b)).activeKid).toBe(kid);
    expect(await b.loadKeys()).toHaveLength(1);
  });
});
