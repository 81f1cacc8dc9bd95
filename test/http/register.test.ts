// POST /v1/agents/register (docs/reference/auth.md#test-keys): 201 with a working test key; rate-limited per address per hour.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../host/runtime/keys.ts';
import { getSample } from '../../samples/catalog.ts';
import { call, expectProblem, startTestService, type TestService } from './helpers.ts';

const HOUR = 3_600_000;
let clock = Date.UTC(2026, 0, 5, 10, 0, 0);
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ registerLimitPerHour: 3 }, { now: () => clock });
});
afterAll(() => svc?.close());

describe('POST /v1/agents/register', () => {
  it('returns 201 {api_key, mode: test, note} without key or body', async () => {
    const res = await fetch(`${svc.url}/v1/agents/register`, { method: 'POST' });
    const json = await res.json();
    expect(res.status).toBe(201);
    expect(json.mode).toBe('test');
    expect(typeof json.note).toBe('string');
    // docs/reference/auth.md#live-keys: at least 128 random bits after the prefix (32 base32 chars = 160 bits).
    expect(json.api_key).toMatch(/^svck_test_[0-9a-z]{32}$/);
  });

  it('stores only the hash of the key, in a new workspace each time', async () => {
    const a = (await call(svc.url, '/v1/agents/register', { ignored: true })).json.api_key;
    const recA = await svc.services.store.findApiKeyByHash(hashApiKey(a));
    expect(recA).toMatchObject({ mode: 'test', revoked_at: null, scopes: [] });
    expect(recA!.key_hash).not.toContain(a.slice(10));
    const all = await svc.services.store.listAllApiKeys();
    expect(new Set(all.map((k) => k.workspace_id)).size).toBe(all.length);
  });

  it('is limited per address per hour: 429 rate_limited with Retry-After and retry_after_ms', async () => {
    // Two registrations above used 2 of the 3; the third still passes, the fourth does not.
    expect((await call(svc.url, '/v1/agents/register')).res.status).toBe(201);
    const r = await call(svc.url, '/v1/agents/register');
    expectProblem(r, 429, 'rate_limited');
    const retryAfter = Number(r.res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(r.json.retry_after_ms).toBeGreaterThan(0);
    expect(Math.ceil(r.json.retry_after_ms / 1000)).toBe(retryAfter);
    expect(r.res.headers.get('ratelimit-policy')).toBe('"register";q=3;w=3600');
    expect(r.res.headers.get('ratelimit')).toMatch(/^"register";r=0;t=\d+$/);
  });

  it('opens again in the next hour', async () => {
    clock += HOUR;
    expect((await call(svc.url, '/v1/agents/register')).res.status).toBe(201);
  });

  it('the test key works on a sample and nowhere else', async () => {
    const key = (await call(svc.url, '/v1/agents/register')).json.api_key;
    const ok = await call(svc.url, '/v1/ask', getSample('saas_churn')!.try, { key });
    expect(ok.res.status).toBe(200);
    expect(ok.json.answers.q.state).toBe('answered');
    const inline = await call(
      svc.url,
      '/v1/ask',
      { ...getSample('saas_churn')!.try, data: { rows: [{ customer_id: 'a', churned: 'yes' }] } },
      { key },
    );
    expectProblem(inline, 403, 'test_key_samples_only');
  });
});

describe('behind a load balancer (TRUST_PROXY)', () => {
  it('counts the address a trusted proxy appended to X-Forwarded-For, and ignores the header from anyone else', async () => {
    const behind = await startTestService({ registerLimitPerHour: 2, trustProxy: ['127.0.0.1'] });
    const direct = await startTestService({ registerLimitPerHour: 2 });
    try {
      const from = (s: TestService, xff: string) => call(s.url, '/v1/agents/register', undefined, { headers: { 'x-forwarded-for': xff } });
      // The client's own entries (left of the proxy's) prove nothing: the last one is the proxy's.
      expect((await from(behind, '10.0.0.1')).res.status).toBe(201);
      expect((await from(behind, '203.0.113.9, 10.0.0.1')).res.status).toBe(201);
      expectProblem(await from(behind, '10.0.0.1'), 429, 'rate_limited');
      expect((await from(behind, '10.0.0.2')).res.status).toBe(201);
      // Not trusted: every request is the socket's address, whatever the header says.
      expect((await from(direct, '10.0.0.1')).res.status).toBe(201);
      expect((await from(direct, '10.0.0.2')).res.status).toBe(201);
      expectProblem(await from(direct, '10.0.0.3'), 429, 'rate_limited');
    } finally {
      await behind.close();
      await direct.close();
    }
  });
});
