// Key ring: first-start generation, persistence, rotation and the published JWKS (docs/reference/verdicts.md).
import { describe, it, expect } from 'vitest';
import { calculateJwkThumbprint, importJWK } from 'jose';
import { KeyRing, MemorySigningKeyStore } from '../../host/signing/index.ts';

describe('KeyRing', () => {
  it('generates and saves one key on first start', async () => {
    const store = new MemorySigningKeyStore();
    const ring = await KeyRing.open(store);
    const saved = await store.loadKeys();
    expect(saved).toHaveLength(1);
    expect(saved[0].kid).toBe(ring.activeKid);
    expect(saved[0].retired_at).toBeNull();
    expect(JSON.parse(saved[0].private_jwk)).toHaveProperty('d');
    expect(JSON.parse(saved[0].public_jwk)).not.toHaveProperty('d');
  });

  it('reopens with the same active key instead of making a new one', async () => {
    const store = new MemorySigningKeyStore();
    const first = await KeyRing.open(store);
    const second = await KeyRing.open(store);
    expect(second.activeKid).toBe(first.activeKid);
    expect(await store.loadKeys()).toHaveLength(1);
  });

  it('uses the RFC 7638 thumbprint of the public key as kid', async () => {
    const ring = await KeyRing.open(new MemorySigningKeyStore());
    const [jwk] = ring.jwks().keys;
    expect(jwk.kid).toBe(await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: jwk.x }));
  });

  it('publishes exactly the docs/reference/verdicts.md JWK fields and no private part', async () => {
    const ring = await KeyRing.open(new MemorySigningKeyStore());
    const [jwk] = ring.jwks().keys;
    expect(Object.keys(jwk).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x']);
    expect(jwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519', use: 'sig', alg: 'EdDSA', kid: ring.activeKid });
    expect(jwk.x).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('rotation makes a new active key and keeps publishing the retired one', async () => {
    const store = new MemorySigningKeyStore();
    const ring = await KeyRing.open(store, { now: () => Date.parse('2030-01-02T03:04:05Z') });
    const oldKid = ring.activeKid;
    const newKid = await ring.rotate();
    expect(newKid).not.toBe(oldKid);
    expect(ring.activeKid).toBe(newKid);
    expect(
      ring
        .jwks()
        .keys.map((k) => k.kid)
        .sort(),
    ).toEqual([oldKid, newKid].sort());
    expect(ring.publicKey(oldKid)).toBeDefined();
    const saved = await store.loadKeys();
    expect(saved.find((k) => k.kid === oldKid)?.retired_at).toBe('2030-01-02T03:04:05.000Z');
    expect(saved.find((k) => k.kid === newKid)?.retired_at).toBeNull();
    const reopened = await KeyRing.open(store);
    expect(reopened.activeKid).toBe(newKid);
    expect(reopened.jwks().keys).toHaveLength(2);
  });

  it('signs with the active key: 64-byte Ed25519 signatures', async () => {
    const ring = await KeyRing.open(new MemorySigningKeyStore());
    const bytes = new TextEncoder().encode('hello');
    const sig = await ring.sign(bytes);
    expect(sig).toHaveLength(64);
    expect(await crypto.subtle.verify('Ed25519', ring.publicKey(ring.activeKid)!, sig, bytes)).toBe(true);
  });

  it('signs the bytes WebCrypto signs with the same key (Ed25519 is deterministic)', async () => {
    const store = new MemorySigningKeyStore();
    const ring = await KeyRing.open(store);
    const [saved] = await store.loadKeys();
    const privateKey = (await importJWK(JSON.parse(saved.private_jwk), 'EdDSA')) as CryptoKey;
    for (const text of ['', 'a', '{"verdict":"x"}', 'é'.repeat(1000)]) {
      const bytes = new TextEncoder().encode(text);
      const webCrypto = new Uint8Array(await crypto.subtle.sign('Ed25519', privateKey, bytes));
      expect(Buffer.from(await ring.sign(bytes)).toString('hex')).toBe(Buffer.from(webCrypto).toString('hex'));
    }
  });

  it('has no key for a kid it never held', async () => {
    const ring = await KeyRing.open(new MemorySigningKeyStore());
    expect(ring.publicKey('nope')).toBeUndefined();
  });

  it('a key rotated by another ring on the same store verifies at once and is signed with after a reload', async () => {
    const store = new MemorySigningKeyStore();
    const here = await KeyRing.open(store);
    const elsewhere = await KeyRing.open(store);
    const oldKid = here.activeKid;
    const newKid = await elsewhere.rotate();
    expect(here.publicKey(newKid)).toBeUndefined(); // not read yet
    expect(await here.findPublicKey(newKid)).toBeDefined(); // an unknown kid reloads
    expect(here.activeKid).toBe(newKid);
    expect((await here.findPublicKey(oldKid))!).toBe(here.publicKey(oldKid)); // still published
    expect(
      here
        .jwks()
        .keys.map((k) => k.kid)
        .sort(),
    ).toEqual([oldKid, newKid].sort());
  });

  it('reloads for unknown kids at most once per spacing, callers at once sharing one read', async () => {
    const store = new MemorySigningKeyStore();
    const ring = await KeyRing.open(store, { reloadSpacingMs: 200 });
    let reads = 0;
    const loadKeys = store.loadKeys.bind(store);
    store.loadKeys = () => (reads++, loadKeys());
    const started = Date.now();
    const found = await Promise.all(Array.from({ length: 50 }, (_, i) => ring.findPublicKey(`made-up-${i}`)));
    expect(found.every((k) => k === undefined)).toBe(true);
    expect(reads).toBe(1);
    // the next unknown kid waits for the spacing, then reads again
    await ring.findPublicKey('made-up-again');
    expect(reads).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('reloads on a timer once started, and not after it is stopped', async () => {
    const store = new MemorySigningKeyStore();
    const here = await KeyRing.open(store);
    const elsewhere = await KeyRing.open(store);
    here.startRefresh(50, (err) => {
      throw err;
    });
    try {
      const newKid = await elsewhere.rotate();
      for (let i = 0; i < 100 && here.activeKid !== newKid; i++) await new Promise((r) => setTimeout(r, 10));
      expect(here.activeKid).toBe(newKid);
    } finally {
      here.stopRefresh();
    }
    const later = await elsewhere.rotate();
    await new Promise((r) => setTimeout(r, 150));
    expect(here.activeKid).not.toBe(later);
  });
});
