// Key ring: first-start generation, persistence, rotation and the published JWKS (wire.md "Verdicts and signatures").
import { describe, it, expect } from 'vitest';
import { calculateJwkThumbprint } from 'jose';
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

  it('publishes exactly the wire.md JWK fields and no private part', async () => {
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

  it('has no key for a kid it never held', async () => {
    const ring = await KeyRing.open(new MemorySigningKeyStore());
    expect(ring.publicKey('nope')).toBeUndefined();
  });
});
