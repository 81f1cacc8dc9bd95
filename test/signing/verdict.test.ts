// Verdict signatures: RFC 7797 detached JWS checked offline by jose, and svc_verify's status order (docs/reference/verdicts.md, docs/reference/verdicts.md#verify).
import { describe, it, expect } from 'vitest';
import { flattenedVerify, importJWK } from 'jose';
import { KeyRing, MemorySigningKeyStore, canonicalJson, newVerdictId, signVerdict, verifyVerdict } from '../../host/signing/index.ts';

const COMPUTED = Date.parse('2030-01-01T00:00:00Z');
const EXPIRES = Date.parse('2030-04-01T00:00:00Z');
const BEFORE = EXPIRES - 1000;

function sampleVerdict(): Record<string, unknown> {
  return {
    verdict_id: newVerdictId(COMPUTED),
    kind: 'answer',
    question: 'churn',
    type: 'yes_no',
    model_ref: 'mdl_abc',
    record_hash: 'sha256:00ff',
    core_hash: 'sha256:11ee',
    contract: 'v1',
    outcome: { column: 'churned', polarity: 'yes' },
    subject_kind: 'customer',
    acknowledge_decision_support: true,
    trust: { auc: 0.8123, top_decile_lift: 2.5, realised_lift: null, validation_scheme: 'kfold' },
    cases: [
      { entity_id: 'c-1', p: 0.73, level: 'high', reasons: [{ feature: 'tenure', value: 3, strength: 'strong' }] },
      { entity_id: 'c-2 é😀', p: 1.5e-7, level: 'low', reasons: [{ feature: 'spend', value: -12.25, strength: 'moderate' }] },
    ],
    computed_at: new Date(COMPUTED).toISOString(),
    expires_at: new Date(EXPIRES).toISOString(),
    issuer: 'https://svc.example',
  };
}

async function signedSample() {
  const ring = await KeyRing.open(new MemorySigningKeyStore());
  const { verdict, signature } = await signVerdict(ring, sampleVerdict());
  return { ring, verdict, signature };
}

/** Paths of every number inside a value. */
function numberPaths(v: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (typeof v === 'number') return [path];
  if (typeof v !== 'object' || v === null) return [];
  return Object.entries(v).flatMap(([k, c]) => numberPaths(c, [...path, Array.isArray(v) ? Number(k) : k]));
}

function withNumber(v: unknown, path: (string | number)[], f: (x: number) => number): unknown {
  const copy = structuredClone(v) as Record<string | number, unknown>;
  let at = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  const last = path[path.length - 1];
  at[last] = f(at[last] as number);
  return copy;
}

/** The next double above x, so the change is as small as a number can change. */
function nextUp(x: number): number {
  const f = new Float64Array([x]);
  const i = new BigInt64Array(f.buffer);
  i[0] += x >= 0 ? 1n : -1n;
  return f[0];
}

describe('signVerdict', () => {
  it('writes the docs/reference/verdicts.md protected header byte for byte', async () => {
    const { ring, signature } = await signedSample();
    const header = Buffer.from(signature.protected, 'base64url').toString('utf8');
    expect(header).toBe(`{"alg":"EdDSA","b64":false,"crit":["b64"],"kid":"${ring.activeKid}","typ":"verdict+json"}`);
    expect(signature.kid).toBe(ring.activeKid);
    expect(signature.protected).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(signature.signature).toMatch(/^[A-Za-z0-9_-]{86}$/);
  });

  it('returns the verdict unchanged', async () => {
    const verdict = sampleVerdict();
    const before = structuredClone(verdict);
    const ring = await KeyRing.open(new MemorySigningKeyStore());
    const out = await signVerdict(ring, verdict);
    expect(out.verdict).toBe(verdict);
    expect(out.verdict).toEqual(before);
  });
});

describe('verifyVerdict', () => {
  it('accepts a freshly signed verdict', async () => {
    const { ring, verdict, signature } = await signedSample();
    expect(await verifyVerdict(ring, verdict, signature, BEFORE)).toBe('valid');
  });

  it('accepts a verdict that went through JSON and back, verified with the JWKS alone', async () => {
    const { ring, verdict, signature } = await signedSample();
    const wire = JSON.parse(JSON.stringify({ verdict, signature }));
    const jwks = JSON.parse(JSON.stringify(ring.jwks()));
    expect(await verifyVerdict(jwks, wire.verdict, wire.signature, BEFORE)).toBe('valid');
  });

  it('a standard RFC 7797 verifier (jose flattenedVerify) accepts it offline with only the JWKS', async () => {
    const { ring, verdict, signature } = await signedSample();
    const jwks = JSON.parse(JSON.stringify(ring.jwks()));
    const jwk = jwks.keys.find((k: { kid: string }) => k.kid === signature.kid);
    const key = await importJWK(jwk, 'EdDSA');
    const payload = new TextEncoder().encode(canonicalJson(verdict));
    const result = await flattenedVerify({ protected: signature.protected, payload, signature: signature.signature }, key, {
      algorithms: ['EdDSA'],
    });
    expect(result.protectedHeader).toMatchObject({ alg: 'EdDSA', b64: false, crit: ['b64'], kid: signature.kid });
    expect(new TextDecoder().decode(result.payload)).toBe(canonicalJson(verdict));
  });

  it('the standard verifier rejects the payload of a tampered verdict', async () => {
    const { ring, verdict, signature } = await signedSample();
    const key = await importJWK(ring.jwks().keys[0], 'EdDSA');
    const tampered = { ...verdict, question: 'other' };
    const payload = new TextEncoder().encode(canonicalJson(tampered));
    await expect(flattenedVerify({ protected: signature.protected, payload, signature: signature.signature }, key)).rejects.toThrow();
  });

  it('gives invalid_signature when any number in the verdict changes, by 1 or by one ulp', async () => {
    const { ring, verdict, signature } = await signedSample();
    const paths = numberPaths(verdict);
    expect(paths.length).toBeGreaterThanOrEqual(6);
    for (const path of paths) {
      for (const change of [(x: number) => x + 1, nextUp]) {
        const tampered = withNumber(verdict, path, change);
        expect(await verifyVerdict(ring, tampered, signature, BEFORE), path.join('.')).toBe('invalid_signature');
      }
    }
  });

  it('gives invalid_signature when a string, a key or a case is changed', async () => {
    const { ring, verdict, signature } = await signedSample();
    const cases = verdict.cases as Record<string, unknown>[];
    const variants = [
      { ...verdict, question: 'churn ' },
      { ...verdict, extra: true },
      { ...verdict, cases: [cases[1], cases[0]] },
      { ...verdict, cases: [cases[0]] },
      { ...verdict, expires_at: '2099-01-01T00:00:00.000Z' },
    ];
    for (const v of variants) expect(await verifyVerdict(ring, v, signature, BEFORE)).toBe('invalid_signature');
  });

  it('gives expired at and after expires_at', async () => {
    const { ring, verdict, signature } = await signedSample();
    expect(await verifyVerdict(ring, verdict, signature, EXPIRES - 1)).toBe('valid');
    expect(await verifyVerdict(ring, verdict, signature, EXPIRES)).toBe('expired');
    expect(await verifyVerdict(ring, verdict, signature, EXPIRES + 86_400_000)).toBe('expired');
  });

  it('gives invalid_signature, not expired, for a tampered expired verdict', async () => {
    const { ring, verdict, signature } = await signedSample();
    const tampered = withNumber(verdict, ['cases', 0, 'p'], (x) => x + 0.01);
    expect(await verifyVerdict(ring, tampered, signature, EXPIRES + 1)).toBe('invalid_signature');
  });

  it('gives invalid_signature for a genuinely signed verdict without a usable expires_at', async () => {
    const ring = await KeyRing.open(new MemorySigningKeyStore());
    for (const expires_at of [undefined, 'not a date', 12345]) {
      const { verdict, signature } = await signVerdict(ring, { ...sampleVerdict(), expires_at });
      expect(await verifyVerdict(ring, verdict, signature, BEFORE)).toBe('invalid_signature');
    }
  });

  it('gives unknown_key for a signature from a key the ring does not hold', async () => {
    const { verdict, signature } = await signedSample();
    const otherRing = await KeyRing.open(new MemorySigningKeyStore());
    expect(await verifyVerdict(otherRing, verdict, signature, BEFORE)).toBe('unknown_key');
    expect(await verifyVerdict(otherRing.jwks(), verdict, signature, BEFORE)).toBe('unknown_key');
  });

  it('gives invalid_signature when the signature kid and the header kid disagree', async () => {
    const { ring, verdict, signature } = await signedSample();
    await ring.rotate();
    expect(await verifyVerdict(ring, verdict, { ...signature, kid: ring.activeKid }, BEFORE)).toBe('invalid_signature');
  });

  it('still verifies a verdict signed by a key that was rotated out', async () => {
    const { ring, verdict, signature } = await signedSample();
    const oldKid = ring.activeKid;
    await ring.rotate();
    expect(ring.activeKid).not.toBe(oldKid);
    expect(await verifyVerdict(ring, verdict, signature, BEFORE)).toBe('valid');
    expect(await verifyVerdict(ring.jwks(), verdict, signature, BEFORE)).toBe('valid');
    const fresh = await signVerdict(ring, sampleVerdict());
    expect(fresh.signature.kid).toBe(ring.activeKid);
    expect(await verifyVerdict(ring, fresh.verdict, fresh.signature, BEFORE)).toBe('valid');
  });

  it('rejects headers that are not EdDSA with b64:false and only b64 critical', async () => {
    const { ring, verdict, signature } = await signedSample();
    const kid = ring.activeKid;
    const headers = [
      { alg: 'none', b64: false, crit: ['b64'], kid },
      { alg: 'HS256', b64: false, crit: ['b64'], kid },
      { alg: 'EdDSA', kid },
      { alg: 'EdDSA', b64: true, crit: ['b64'], kid },
      { alg: 'EdDSA', b64: false, kid },
      { alg: 'EdDSA', b64: false, crit: [], kid },
      { alg: 'EdDSA', b64: false, crit: ['b64', 'exp'], kid },
      { alg: 'EdDSA', b64: false, crit: ['b64'] },
      { alg: 'EdDSA', b64: false, crit: ['b64'], kid: 7 },
    ];
    for (const h of headers) {
      const protectedB64 = Buffer.from(JSON.stringify(h)).toString('base64url');
      const sig = { ...signature, protected: protectedB64 };
      expect(await verifyVerdict(ring, verdict, sig, BEFORE), JSON.stringify(h)).toBe('invalid_signature');
    }
  });

  it('never throws on garbage and answers invalid_signature', async () => {
    const { ring, verdict, signature } = await signedSample();
    const huge = 'A'.repeat(5_000_000);
    const cyclic: Record<string, unknown> = { ...verdict };
    cyclic.self = cyclic;
    const pairs: [unknown, unknown][] = [
      [null, signature],
      [verdict, null],
      ['verdict', signature],
      [[verdict], signature],
      [verdict, [signature]],
      [verdict, {}],
      [verdict, { ...signature, protected: undefined }],
      [verdict, { ...signature, signature: undefined }],
      [verdict, { ...signature, kid: undefined }],
      [verdict, { ...signature, kid: 42 }],
      [verdict, { ...signature, protected: 42 }],
      [verdict, { ...signature, signature: { a: 1 } }],
      [verdict, { ...signature, protected: huge }],
      [verdict, { ...signature, signature: huge }],
      [verdict, { ...signature, protected: '!!!not base64!!!' }],
      [verdict, { ...signature, protected: Buffer.from('not json').toString('base64url') }],
      [verdict, { ...signature, protected: Buffer.from('[1,2]').toString('base64url') }],
      [verdict, { ...signature, protected: Buffer.from([0xff, 0xfe]).toString('base64url') }],
      [verdict, { ...signature, protected: signature.protected + '=' }],
      [verdict, { ...signature, signature: signature.signature.slice(0, -1) }],
      [verdict, { ...signature, signature: signature.signature + 'A' }],
      [verdict, { ...signature, signature: '*'.repeat(86) }],
      [verdict, { ...signature, signature: 'A'.repeat(86) }],
      [{ ...verdict, p: NaN }, signature],
      [cyclic, signature],
      [{ ...verdict, big: huge }, signature],
    ];
    for (const [v, s] of pairs) expect(await verifyVerdict(ring, v, s, BEFORE)).toBe('invalid_signature');
    for (const garbageKeys of [null, {}, { keys: 'x' }, { keys: [null, 1, { kid: signature.kid, kty: 'OKP', crv: 'Ed25519', x: '!!' }] }]) {
      const status = await verifyVerdict(garbageKeys as never, verdict, signature, BEFORE);
      expect(['unknown_key', 'invalid_signature']).toContain(status);
    }
  });
});

describe('newVerdictId', () => {
  it('is a 26-character Crockford base32 ULID whose first 10 characters encode the time', () => {
    const id = newVerdictId(Date.parse('2030-01-01T00:00:00Z'));
    expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(newVerdictId(0).slice(0, 10)).toBe('0000000000');
    expect(newVerdictId(1).slice(0, 10)).toBe('0000000001');
    expect(newVerdictId(2 ** 48 - 1).slice(0, 10)).toBe('7ZZZZZZZZZ');
    expect(id.slice(0, 10) < newVerdictId(Date.parse('2030-01-01T00:00:01Z')).slice(0, 10)).toBe(true);
  });

  it('differs between calls in the same millisecond', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newVerdictId(1)));
    expect(ids.size).toBe(1000);
  });
});
