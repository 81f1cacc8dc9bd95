// The auth/error matrix over every route that exists: each failure is a complete Problem (spec 2.13, 7).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signVerdict } from '../../host/signing/index.ts';
import { hashApiKey } from '../../host/operations/keys.ts';
import { getSample } from '../../samples/catalog.ts';
import { ROUTES } from '../../host/routes/index.ts';
import { call, expectProblem, startTestService, type TestService } from './helpers.ts';

const MAX_BODY = 64 * 1024;
let svc: TestService;
let live: string;
let revoked: string;
let verifyBody: { verdict: object; signature: object };
const askBody = getSample('saas_churn')!.try;

beforeAll(async () => {
  svc = await startTestService({ maxBodyBytes: MAX_BODY });
  live = await svc.liveKey();
  revoked = await svc.liveKey();
  const rec = await svc.services.store.findApiKeyByHash(hashApiKey(revoked));
  await svc.services.store.revokeApiKey(rec!.id, Date.now());
  const verdict = { verdict_id: 'v1', kind: 'answer', expires_at: new Date(Date.now() + 60_000).toISOString() };
  verifyBody = await signVerdict(svc.services.keyRing, verdict);
});
afterAll(() => svc?.close());

/** POST routes that read a JSON body, with a valid body and the key they need (if any). */
const bodyRoutes = () => [
  { route: '/v1/ask', body: askBody, key: live },
  { route: '/v1/verify', body: verifyBody, key: undefined },
  { route: '/v1/describe', body: {}, key: undefined },
];

describe('keyed routes refuse callers without a usable key', () => {
  const cases = [
    { name: 'no key', headers: (): Record<string, string> => ({}) },
    { name: 'a key that is not a bearer token', headers: () => ({ authorization: `Basic ${live}` }) },
    { name: 'an unknown live key', headers: () => ({ authorization: 'Bearer svck_live_00000000000000000000000000000000' }) },
    { name: 'an unknown test key', headers: () => ({ authorization: 'Bearer svck_test_00000000000000000000000000000000' }) },
    { name: 'a token of another kind', headers: () => ({ authorization: 'Bearer sk_live_abc' }) },
    { name: 'a revoked key', headers: () => ({ authorization: `Bearer ${revoked}` }) },
  ];
  for (const c of cases) {
    it(`POST /v1/ask with ${c.name} is 401 unauthorized`, async () => {
      const r = await call(svc.url, '/v1/ask', askBody, { headers: c.headers() });
      expectProblem(r, 401, 'unauthorized', svc.services.config.baseUrl);
      expect(r.res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    });
  }
});

describe('body errors on every route that reads a body', () => {
  for (const i of [0, 1, 2]) {
    it(`route ${i}: malformed JSON is 400 invalid_json`, async () => {
      const { route, key } = bodyRoutes()[i];
      expectProblem(await call(svc.url, route, undefined, { key, raw: '{"data": ' }), 400, 'invalid_json');
    });
    it(`route ${i}: a body that is not UTF-8 is 400 invalid_json`, async () => {
      const { route, key } = bodyRoutes()[i];
      expectProblem(await call(svc.url, route, undefined, { key, raw: new Uint8Array([0x7b, 0xff, 0x7d]) }), 400, 'invalid_json');
    });
    it(`route ${i}: a text/plain body is 415 unsupported_media_type`, async () => {
      const { route, key, body } = bodyRoutes()[i];
      const r = await call(svc.url, route, undefined, { key, raw: JSON.stringify(body), headers: { 'content-type': 'text/plain' } });
      expectProblem(r, 415, 'unsupported_media_type');
    });
    it(`route ${i}: a JSON body in another charset is 415`, async () => {
      const { route, key, body } = bodyRoutes()[i];
      const headers = { 'content-type': 'application/json; charset=latin1' };
      expectProblem(await call(svc.url, route, body, { key, headers }), 415, 'unsupported_media_type');
    });
    it(`route ${i}: an unknown top-level property is 422 invalid_request naming it`, async () => {
      const { route, key, body } = bodyRoutes()[i];
      const r = await call(svc.url, route, { ...body, surprise: 1 }, { key });
      expectProblem(r, 422, 'invalid_request');
      expect(r.json.field).toBe('surprise');
      expect(r.json.detail).toContain('surprise');
    });
    it(`route ${i}: a body over the limit is 413 request_too_large`, async () => {
      const { route, key } = bodyRoutes()[i];
      const raw = JSON.stringify({ pad: 'x'.repeat(MAX_BODY + 10) });
      expectProblem(await call(svc.url, route, undefined, { key, raw }), 413, 'request_too_large');
    });
    it(`route ${i}: a streamed body without Content-Length is cut off at the limit (413)`, async () => {
      const { route, key } = bodyRoutes()[i];
      const chunk = new TextEncoder().encode('x'.repeat(16 * 1024));
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(ctrl) {
          if (sent === 0) ctrl.enqueue(new TextEncoder().encode('{"pad":"'));
          if (sent++ < 16) ctrl.enqueue(chunk); // 256 KiB in all, 4x the limit
          else ctrl.close();
        },
      });
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (key) headers.authorization = `Bearer ${key}`;
      const res = await fetch(svc.url + route, { method: 'POST', headers, body: stream, duplex: 'half' } as RequestInit);
      expectProblem({ res, json: await res.json() }, 413, 'request_too_large');
    });
  }

  it('an empty body on an operation that needs one is 400 invalid_json', async () => {
    expectProblem(await call(svc.url, '/v1/verify', undefined, { raw: '' }), 400, 'invalid_json');
  });
  it('a JSON array body is 422 invalid_request', async () => {
    expectProblem(await call(svc.url, '/v1/verify', []), 422, 'invalid_request');
  });
});

describe('paths and methods', () => {
  it('an unknown path is 404 not_found as problem+json', async () => {
    expectProblem(await call(svc.url, '/v1/nope', {}), 404, 'not_found');
    expectProblem(await call(svc.url, '/nothing-here', undefined, { method: 'GET' }), 404, 'not_found');
  });
  it('operations not registered yet answer 404 not_found', async () => {
    const later = ['/v1/add-dataset', '/v1/poll', '/v1/preflight', '/v1/report-outcomes', '/v1/drift', '/v1/delete-dataset', '/v1/attest', '/v1/evidence'];
    for (const route of later.filter((p) => !ROUTES.some((r) => r.path === p))) {
      expectProblem(await call(svc.url, route, {}, { key: live }), 404, 'not_found');
    }
  });
  for (const route of ['/v1/ask', '/v1/verify', '/v1/describe', '/v1/agents/register']) {
    it(`GET ${route} is 405 method_not_allowed with Allow: POST`, async () => {
      const r = await call(svc.url, route, undefined, { method: 'GET' });
      expectProblem(r, 405, 'method_not_allowed');
      expect(r.res.headers.get('allow')).toBe('POST');
    });
  }
  it('POST on a GET route is 405 with Allow: GET, HEAD', async () => {
    const r = await call(svc.url, '/.well-known/jwks.json', {});
    expectProblem(r, 405, 'method_not_allowed');
    expect(r.res.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('request ids', () => {
  it('a sane x-request-id is echoed in the header and the Problem', async () => {
    const r = await call(svc.url, '/v1/nope', {}, { headers: { 'x-request-id': 'client-req.42' } });
    expect(r.res.headers.get('x-request-id')).toBe('client-req.42');
    expect(r.json.request_id).toBe('client-req.42');
  });
  it('a missing or unusable x-request-id is replaced by a generated one', async () => {
    const a = await call(svc.url, '/healthz', undefined, { method: 'GET' });
    const b = await call(svc.url, '/healthz', undefined, { method: 'GET', headers: { 'x-request-id': 'bad id with spaces' } });
    expect(a.res.headers.get('x-request-id')).toMatch(/^req_[0-9a-f-]{36}$/);
    expect(b.res.headers.get('x-request-id')).toMatch(/^req_[0-9a-f-]{36}$/);
    expect(a.res.headers.get('x-request-id')).not.toBe(b.res.headers.get('x-request-id'));
  });
});
