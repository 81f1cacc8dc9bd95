// The auth/error matrix over every route that exists: each failure is a complete Problem (docs/reference/errors.md#problem, docs/reference/errors.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signVerdict } from '../../host/signing/index.ts';
import { hashApiKey } from '../../host/runtime/keys.ts';
import { getSample } from '../../samples/catalog.ts';
import { OPERATIONS, type Operation } from '../../host/operations/index.ts';
import { call, expectProblem, startTestService, type TestService } from './helpers.ts';

const MAX_BODY = 64 * 1024;
let svc: TestService;
let live: string;
let revoked: string;
let scoped: string; // a live key that can report outcomes (docs/reference/auth.md#capabilities)
let verifyBody: { verdict: object; signature: object };
const askBody = getSample('saas_churn')!.try;

beforeAll(async () => {
  svc = await startTestService({ maxBodyBytes: MAX_BODY });
  live = await svc.liveKey();
  revoked = await svc.liveKey();
  scoped = await svc.liveKey(undefined, true);
  const rec = await svc.services.store.findApiKeyByHash(hashApiKey(revoked));
  await svc.services.store.revokeApiKey(rec!.id, Date.now());
  const verdict = { verdict_id: 'v1', kind: 'answer', expires_at: new Date(Date.now() + 60_000).toISOString() };
  verifyBody = await signVerdict(svc.services.keyRing, verdict);
});
afterAll(() => svc?.close());

const MODEL_REF = `mr1_${'0'.repeat(32)}`;
const DATASET_ID = `ds_${'a'.repeat(26)}`;

/**
 * A schema-valid body for POST routes that read one; a route not listed here is sent the first example
 * its operation declares (bodyFor). Valid bodies make each failure below the one the test names, not a
 * validation error.
 */
const validBodies = (): Record<string, object> => ({
  '/v1/ask': askBody,
  '/v1/poll': { task_id: `tk_${'a'.repeat(24)}` },
  '/v1/add-dataset': { rows: [{ id: 'a', x: 1 }] },
  '/v1/delete-dataset': { dataset_id: DATASET_ID },
  '/v1/preflight': { dataset_id: 'sample:saas_churn' },
  '/v1/report-outcomes': { model_ref: MODEL_REF, outcomes: [{ entity_id: 'a', outcome: 1, observed_at: '2026-01-01' }] },
  '/v1/drift': { model_ref: MODEL_REF },
  '/v1/attest': { model_ref: MODEL_REF, entity_id: 'a', lever_token: 'x', post_value: 1, acted_at: '2026-01-01' },
  '/v1/evidence': { model_ref: MODEL_REF },
  '/v1/export-model': { model_ref: MODEL_REF },
  '/v1/describe': {},
  '/v1/verify': verifyBody,
  '/v1/uploads/:token/complete': { pieces: 1 },
  '/v1/profile': { namespace: 'acme' },
  '/v1/page': { cursor: 'x'.repeat(20) },
  '/v1/extend-model': { model_ref: MODEL_REF, days: 30 },
  '/v1/delete-model': { model_ref: MODEL_REF },
  '/v1/track-record': { model_ref: MODEL_REF },
  '/v1/suggest': { data: { dataset_id: 'sample:saas_churn' }, entity_column: 'customer_id' },
  '/v1/map': { sources: [{ dataset_id: 'sample:customer_events' }] },
  '/v1/backtest': { data: { dataset_id: 'sample:customer_events' }, subject_kind: 'org' },
  '/v1/schedule': { mapping_id: 'mp_abcdef12345', cadence: 'weekly', subject_kind: 'org' },
  '/v1/delete-schedule': { schedule_id: 'sc_abcdefghijklmnopqrstuvwx' },
});

/** A route's valid body: its entry in validBodies, else its operation's first example (real id formats). */
const bodyFor = (route: Operation): object | undefined => validBodies()[route.path] ?? route.examples[0]?.value;

const jsonRoutes = OPERATIONS.filter((r) => r.method === 'POST' && (r.body === 'json' || r.body === 'json-optional'));
const keyedRoutes = OPERATIONS.filter((r) => r.auth === 'key');

it('every POST route that reads a body has a valid body in this matrix or an example', () => {
  expect(jsonRoutes.filter((r) => bodyFor(r) === undefined).map((r) => r.path)).toEqual([]);
  expect(keyedRoutes.length).toBeGreaterThanOrEqual(10);
});

describe('keyed routes refuse callers without a usable key', () => {
  const cases = [
    { name: 'no key', headers: (): Record<string, string> => ({}) },
    { name: 'a key that is not a bearer token', headers: () => ({ authorization: `Basic ${live}` }) },
    { name: 'an unknown live key', headers: () => ({ authorization: 'Bearer svck_live_00000000000000000000000000000000' }) },
    { name: 'an unknown test key', headers: () => ({ authorization: 'Bearer svck_test_00000000000000000000000000000000' }) },
    { name: 'a token of another kind', headers: () => ({ authorization: 'Bearer sk_live_abc' }) },
    { name: 'a revoked key', headers: () => ({ authorization: `Bearer ${revoked}` }) },
  ];
  for (const route of keyedRoutes) {
    for (const c of cases) {
      it(`${route.method} ${route.path} with ${c.name} is 401 unauthorized`, async () => {
        const body = route.method === 'GET' ? undefined : bodyFor(route);
        const r = await call(svc.url, route.path, body, { headers: c.headers(), method: route.method });
        expectProblem(r, 401, 'unauthorized', svc.services.config.baseUrl);
        expect(r.res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      });
    }
  }
});

describe('a test key works on sample datasets only (docs/reference/auth.md#test-keys)', () => {
  const ownData: Array<{ route: string; body: () => object; status: number; code: string }> = [
    { route: '/v1/ask', body: () => ({ ...askBody, data: { csv: 'id,x,y\na,1,yes\n' } }), status: 403, code: 'test_key_samples_only' },
    { route: '/v1/ask', body: () => ({ ...askBody, data: { dataset_id: DATASET_ID } }), status: 403, code: 'test_key_samples_only' },
    { route: '/v1/add-dataset', body: () => validBodies()['/v1/add-dataset'], status: 403, code: 'test_key_samples_only' },
    { route: '/v1/preflight', body: () => ({ dataset_id: DATASET_ID }), status: 403, code: 'test_key_samples_only' },
    { route: '/v1/delete-dataset', body: () => validBodies()['/v1/delete-dataset'], status: 403, code: 'test_key_samples_only' },
    {
      route: '/v1/backtest',
      body: () => ({ data: { dataset_id: DATASET_ID }, subject_kind: 'org' }),
      status: 403,
      code: 'test_key_samples_only',
    },
    // docs/reference/auth.md#capabilities: reporting outcomes needs write:outcomes, which test keys never have
    { route: '/v1/report-outcomes', body: () => validBodies()['/v1/report-outcomes'], status: 403, code: 'scope_required' },
    { route: '/v1/attest', body: () => validBodies()['/v1/attest'], status: 403, code: 'scope_required' },
    // docs/reference/auth.md#capabilities: write:outcomes also gates svc_delete_model
    { route: '/v1/delete-model', body: () => validBodies()['/v1/delete-model'], status: 403, code: 'scope_required' },
    // docs/reference/README.md: and svc_schedule, svc_delete_schedule
    { route: '/v1/schedule', body: () => validBodies()['/v1/schedule'], status: 403, code: 'scope_required' },
    { route: '/v1/delete-schedule', body: () => validBodies()['/v1/delete-schedule'], status: 403, code: 'scope_required' },
    // docs/reference/ask.md#by-model-ref: scoring rows by model_ref without data is the caller's own data
    {
      route: '/v1/ask',
      body: () => ({
        entity_column: 'id',
        subject_kind: 'org',
        questions: { q: { type: 'yesno', model_ref: MODEL_REF } },
        cases: { rows: [{ id: 'a', x: 1 }] },
      }),
      status: 403,
      code: 'test_key_samples_only',
    },
  ];
  for (const c of ownData) {
    it(`${c.route} on the caller's own data with a test key is ${c.status} ${c.code}`, async () => {
      const key = await svc.testKey();
      expectProblem(await call(svc.url, c.route, c.body(), { key }), c.status, c.code);
    });
  }
  it('the same test key asks a sample and is answered', async () => {
    const r = await call(svc.url, '/v1/ask', askBody, { key: await svc.testKey() });
    expect(r.res.status).toBe(200);
    expect(r.json.answers.q.state).toBe('answered');
  });
});

describe('body errors on every route that reads a body', () => {
  // the operation table says which routes need write:outcomes
  const keyFor = (route: { auth: string; scope?: string }) => (route.auth !== 'key' ? undefined : route.scope ? scoped : live);
  for (const route of jsonRoutes) {
    const path = route.path;
    it(`${path}: malformed JSON is 400 invalid_json`, async () => {
      expectProblem(await call(svc.url, path, undefined, { key: keyFor(route), raw: '{"data": ' }), 400, 'invalid_json');
    });
    it(`${path}: a body that is not UTF-8 is 400 invalid_json`, async () => {
      expectProblem(
        await call(svc.url, path, undefined, { key: keyFor(route), raw: new Uint8Array([0x7b, 0xff, 0x7d]) }),
        400,
        'invalid_json',
      );
    });
    it(`${path}: a text/plain body is 415 unsupported_media_type`, async () => {
      const r = await call(svc.url, path, undefined, {
        key: keyFor(route),
        raw: JSON.stringify(bodyFor(route)),
        headers: { 'content-type': 'text/plain' },
      });
      expectProblem(r, 415, 'unsupported_media_type');
    });
    it(`${path}: a JSON body in another charset is 415`, async () => {
      const headers = { 'content-type': 'application/json; charset=latin1' };
      expectProblem(await call(svc.url, path, bodyFor(route), { key: keyFor(route), headers }), 415, 'unsupported_media_type');
    });
    it(`${path}: an unknown top-level property is 422 invalid_request naming it`, async () => {
      const r = await call(svc.url, path, { ...bodyFor(route), surprise: 1 }, { key: keyFor(route) });
      expectProblem(r, 422, 'invalid_request');
      expect(r.json.field).toBe('surprise');
      expect(r.json.detail).toContain('surprise');
    });
    it(`${path}: a body over the limit is 413 request_too_large`, async () => {
      const raw = JSON.stringify({ pad: 'x'.repeat(MAX_BODY + 10) });
      expectProblem(await call(svc.url, path, undefined, { key: keyFor(route), raw }), 413, 'request_too_large');
    });
    it(`${path}: a streamed body without Content-Length is cut off at the limit (413)`, async () => {
      const chunk = new TextEncoder().encode('x'.repeat(16 * 1024));
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(ctrl) {
          if (sent === 0) ctrl.enqueue(new TextEncoder().encode('{"pad":"'));
          if (sent++ < 16)
            ctrl.enqueue(chunk); // 256 KiB in all, 4x the limit
          else ctrl.close();
        },
      });
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      const key = keyFor(route);
      if (key) headers.authorization = `Bearer ${key}`;
      const res = await fetch(svc.url + path, { method: 'POST', headers, body: stream, duplex: 'half' } as RequestInit);
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
  for (const route of OPERATIONS.filter((r) => r.method === 'POST').map((r) => r.path)) {
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
