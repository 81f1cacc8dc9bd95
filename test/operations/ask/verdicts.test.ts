// Every Verdict from a real ask verifies through /v1/verify and offline with jose on the JWKS alone
// (RFC 7797 bytes); any changed number breaks it; docs/reference/verdicts.md, docs/reference/verdicts.md#verify; docs/reference/verdicts.md.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flattenedVerify, importJWK } from 'jose';
import { canonicalJson } from '../../../host/signing/index.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';

let svc: TestService;
let verdicts: Array<{ verdict: any; signature: any; option?: string }> = [];

beforeAll(async () => {
  svc = await startTestService();
  const key = await svc.testKey();
  const samples = (await svc.post('/v1/describe', {})).body.samples;
  for (const s of samples) {
    const r = await svc.post('/v1/ask', s.try, key);
    for (const a of Object.values<any>(r.body.answers)) verdicts.push(...(a.verdicts ?? []));
  }
});
afterAll(() => svc?.close());

async function verifyOffline(v: { verdict: any; signature: any }): Promise<boolean> {
  const jwks = await (await fetch(svc.url + '/.well-known/jwks.json')).json();
  const jwk = jwks.keys.find((k: any) => k.kid === v.signature.kid);
  if (!jwk) return false;
  const key = await importJWK(jwk, 'EdDSA');
  try {
    await flattenedVerify(
      { protected: v.signature.protected, payload: new TextEncoder().encode(canonicalJson(v.verdict)), signature: v.signature.signature },
      key,
    );
    return true;
  } catch {
    return false;
  }
}

describe('Verdicts from real asks', () => {
  it('come back for every answered sample (telco choice: one per option)', () => {
    expect(verdicts.length).toBeGreaterThanOrEqual(5);
  });

  it('each verifies valid through /v1/verify and offline against the JWKS', async () => {
    for (const v of verdicts) {
      const r = await svc.post('/v1/verify', { verdict: v.verdict, signature: v.signature });
      expect(r.body.status).toBe('valid');
      expect(await verifyOffline(v)).toBe(true);
    }
  });

  it('carries the answer numbers: a changed p is invalid_signature', async () => {
    const v = structuredClone(verdicts[0]);
    v.verdict.cases[0].p = v.verdict.cases[0].p + 1e-6;
    expect((await svc.post('/v1/verify', v)).body.status).toBe('invalid_signature');
    expect(await verifyOffline(v)).toBe(false);
  });

  it('changing any number anywhere in it gives invalid_signature', async () => {
    const v = verdicts[0];
    const paths: Array<(x: any) => void> = [
      (x) => (x.verdict.trust.auc += 0.001),
      (x) => (x.verdict.cases[0].reasons[0].range.min = (x.verdict.cases[0].reasons[0].range.min ?? 0) + 1),
      (x) => (x.verdict.question = 'other'),
    ];
    for (const change of paths) {
      const t = structuredClone(v);
      change(t);
      expect((await svc.post('/v1/verify', t)).body.status).toBe('invalid_signature');
    }
  });

  it('is expired after expires_at, and unknown_key under an unknown kid', async () => {
    const { signVerdict } = await import('../../../host/signing/index.ts');
    const old = { ...verdicts[0].verdict, expires_at: new Date(Date.now() - 1000).toISOString() };
    const signed = await signVerdict(svc.services.keyRing, old);
    expect((await svc.post('/v1/verify', signed)).body.status).toBe('expired');
    const unknown = { ...verdicts[0], signature: { ...verdicts[0].signature, kid: 'nope' } };
    const r = (await svc.post('/v1/verify', unknown)).body.status;
    expect(['unknown_key', 'invalid_signature']).toContain(r); // header kid still names the real key
    const header = JSON.parse(Buffer.from(verdicts[0].signature.protected, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...header, kid: 'unknown-kid' })).toString('base64url');
    const r2 = await svc.post('/v1/verify', {
      verdict: verdicts[0].verdict,
      signature: { ...verdicts[0].signature, protected: forged, kid: 'unknown-kid' },
    });
    expect(r2.body.status).toBe('unknown_key');
  });
});
