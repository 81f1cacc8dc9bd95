// POST /v1/verify (docs/reference/verdicts.md#verify): each of the four statuses, checked in docs/reference/README.md order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyRing, MemorySigningKeyStore, signVerdict } from '../../host/signing/index.ts';
import { call, startTestService, type TestService } from './helpers.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc?.close());

const verdictExpiringIn = (ms: number) => ({
  verdict_id: '01JTESTVERDICT0000000000000',
  kind: 'answer',
  model_ref: 'mr1_0123456789abcdef0123456789abcdef',
  cases: [{ entity_id: 'cust_0001', p: 0.731234, reasons: [] }],
  computed_at: new Date(Date.now() - 1000).toISOString(),
  expires_at: new Date(Date.now() + ms).toISOString(),
});

describe('POST /v1/verify', () => {
  it('a Verdict signed by this service and unexpired is valid, without a key', async () => {
    const signed = await signVerdict(svc.services.keyRing, verdictExpiringIn(3_600_000));
    const r = await call(svc.url, '/v1/verify', signed);
    expect(r.res.status).toBe(200);
    expect(r.res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.json).toEqual({ status: 'valid' });
  });

  it('a Verdict with one value changed is invalid_signature', async () => {
    const signed = await signVerdict(svc.services.keyRing, verdictExpiringIn(3_600_000));
    const tampered = { ...signed.verdict, cases: [{ ...signed.verdict.cases[0], p: 0.2 }] };
    const r = await call(svc.url, '/v1/verify', { verdict: tampered, signature: signed.signature });
    expect(r.json).toEqual({ status: 'invalid_signature' });
  });

  it('a garbled signature object is invalid_signature, not an error', async () => {
    const signed = await signVerdict(svc.services.keyRing, verdictExpiringIn(3_600_000));
    const r = await call(svc.url, '/v1/verify', { verdict: signed.verdict, signature: { protected: 'x', signature: 'y' } });
    expect(r.res.status).toBe(200);
    expect(r.json).toEqual({ status: 'invalid_signature' });
  });

  it('a genuine Verdict past its expires_at is expired', async () => {
    const signed = await signVerdict(svc.services.keyRing, verdictExpiringIn(-1000));
    const r = await call(svc.url, '/v1/verify', signed);
    expect(r.json).toEqual({ status: 'expired' });
  });

  it('a Verdict signed by a key this service never held is unknown_key', async () => {
    const stranger = await KeyRing.open(new MemorySigningKeyStore());
    const signed = await signVerdict(stranger, verdictExpiringIn(3_600_000));
    const r = await call(svc.url, '/v1/verify', signed);
    expect(r.json).toEqual({ status: 'unknown_key' });
  });

  it('a verdict without verdict_id is 422 invalid_request naming verdict.verdict_id', async () => {
    const signed = await signVerdict(svc.services.keyRing, verdictExpiringIn(3_600_000));
    const { verdict_id: _drop, ...rest } = signed.verdict;
    const r = await call(svc.url, '/v1/verify', { verdict: rest, signature: signed.signature });
    expect(r.res.status).toBe(422);
    expect(r.json.field).toBe('verdict.verdict_id');
  });
});
