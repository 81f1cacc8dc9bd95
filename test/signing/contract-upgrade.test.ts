// Contract 1.1 (docs/decisions/README.md): Verdicts signed while the service said contract 1.0.0 (an answer's
// and a backtest's, stored in fixtures/ with the throwaway key that signed them) still verify `valid` on a service
// that says 1.1.0, over real HTTP; new Verdicts name 1.1.0; the number moves no model_ref.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { SAMPLES } from '../../samples/catalog.ts';
import type { StoredSigningKey } from '../../host/signing/index.ts';

interface Signed {
  verdict: Record<string, unknown>;
  signature: Record<string, string>;
}
const OLD = JSON.parse(fs.readFileSync(new URL('./fixtures/contract-1.0-verdicts.json', import.meta.url), 'utf8')) as {
  signed_at: string;
  signing_key: StoredSigningKey;
  answer: Signed;
  backtest: Signed;
};

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({}, { manualClock: true });
  svc.clock.now = Date.parse(OLD.signed_at) + 86_400_000;
  // the key that signed them, kept by the service as a retired key (as after a rotation)
  await svc.services.store.saveKey({ ...OLD.signing_key, retired_at: OLD.signed_at });
});
afterAll(() => svc.close());

describe('Verdicts signed under contract 1.0.0', () => {
  for (const kind of ['answer', 'backtest'] as const) {
    it(`a stored ${kind} Verdict naming 1.0.0 is valid`, async () => {
      expect(OLD[kind].verdict.contract).toBe('outcome-question/1.0.0');
      const r = await svc.post('/v1/verify', OLD[kind]);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ status: 'valid' });
    });
  }

  it('and one whose contract is rewritten to 1.1.0 is not', async () => {
    const r = await svc.post('/v1/verify', { ...OLD.answer, verdict: { ...OLD.answer.verdict, contract: 'outcome-question/1.1.0' } });
    expect(r.body).toEqual({ status: 'invalid_signature' });
  });

  it('a new answer names 1.1.0 and verifies', async () => {
    const r = await svc.post('/v1/ask', SAMPLES[0].try, await svc.testKey());
    expect(r.status).toBe(200);
    expect(r.body.contract).toBe('outcome-question/1.1.0');
    const v = r.body.answers.q.verdicts[0];
    expect(v.verdict.contract).toBe('outcome-question/1.1.0');
    // (its model_ref is the 1.0.0 one's only while the engine build is the same: the ref hashes the core, the
    // record and the fit key, never the contract)
    expect(v.verdict.model_ref).toMatch(/^mr1_[0-9a-f]{32}$/);
    expect((await svc.post('/v1/verify', v)).body).toEqual({ status: 'valid' });
  });
});
