// POST /v1/ask over HTTP (docs/reference/ask.md, docs/reference/auth.md#test-keys): what keys may ask about, and the transport around the operation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSample } from '../../samples/catalog.ts';
import { call, expectProblem, startTestService, type TestService } from './helpers.ts';

let svc: TestService;
let testKey: string;
let liveKey: string;
const sampleAsk = getSample('saas_churn')!.try;
const rows = Array.from({ length: 40 }, (_, i) => ({ id: `c${i}`, x: i % 7, churned: i % 3 === 0 ? 'yes' : 'no' }));
const inlineAsk = {
  data: { rows },
  entity_column: 'id',
  subject_kind: 'org',
  questions: { q: { type: 'yesno', outcome_column: 'churned' } },
  cases: { ids: ['c1'] },
};

beforeAll(async () => {
  svc = await startTestService();
  testKey = (await call(svc.url, '/v1/agents/register')).json.api_key;
  liveKey = await svc.liveKey();
});
afterAll(() => svc?.close());

describe('POST /v1/ask', () => {
  it('a test key on inline rows is 403 test_key_samples_only', async () => {
    expectProblem(await call(svc.url, '/v1/ask', inlineAsk, { key: testKey }), 403, 'test_key_samples_only');
  });

  it('a test key on inline csv is 403 test_key_samples_only', async () => {
    const ask = { ...inlineAsk, data: { csv: 'id,x,churned\nc1,1,yes\n' } };
    expectProblem(await call(svc.url, '/v1/ask', ask, { key: testKey }), 403, 'test_key_samples_only');
  });

  it('a test key on sample:saas_churn is 200 with an answered, signed, free answer', async () => {
    const r = await call(svc.url, '/v1/ask', sampleAsk, { key: testKey });
    expect(r.res.status).toBe(200);
    expect(r.res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.json.status).toBe('done');
    expect(r.json.dataset_id).toBe('sample:saas_churn');
    expect(r.json.answers.q.state).toBe('answered');
    expect(r.json.answers.q.cases[0].entity_id).toBe('cust_0001');
    expect(r.json.billable_decisions).toBe(0);
    const { verdict, signature } = r.json.answers.q.verdicts[0];
    const v = await call(svc.url, '/v1/verify', { verdict, signature });
    expect(v.json).toEqual({ status: 'valid' });
  });

  it('a live key on inline rows gets past the key check', async () => {
    const r = await call(svc.url, '/v1/ask', inlineAsk, { key: liveKey });
    expect(r.res.status).not.toBe(403);
    expect([200, 422]).toContain(r.res.status);
  });

  it('an unknown sample is 404 unknown_dataset naming data.dataset_id', async () => {
    const ask = { ...sampleAsk, data: { dataset_id: 'sample:nope' } };
    const r = await call(svc.url, '/v1/ask', ask, { key: testKey });
    expectProblem(r, 404, 'unknown_dataset');
    expect(r.json.field).toBe('data.dataset_id');
  });

  it('a schema violation deep in the body names its dotted field', async () => {
    const ask = { ...sampleAsk, questions: { q: { type: 'score', outcome_column: 'churned', cuts: [0.5, 0.2, 0.9] } } };
    const r = await call(svc.url, '/v1/ask', ask, { key: testKey });
    expectProblem(r, 422, 'invalid_request');
    expect(r.json.field).toBe('questions.q.cuts');
  });

  it('an inline csv over 8,000,000 chars passes the body limit and is 422, not 413 (docs/reference/limits.md#limits)', async () => {
    const csv = 'id,x,churned\n' + 'c,1,yes\n'.repeat(1_000_000);
    expect(csv.length).toBeGreaterThan(8_000_000);
    const r = await call(svc.url, '/v1/ask', { ...inlineAsk, data: { csv } }, { key: liveKey });
    expectProblem(r, 422, 'invalid_request');
    expect(r.json.field).toBe('data.csv');
  });

  it('carries the workspace rate-limit headers on success', async () => {
    const r = await call(svc.url, '/v1/ask', sampleAsk, { key: testKey });
    expect(r.res.headers.get('ratelimit-policy')).toBe(`"workspace";q=${svc.services.config.rateLimitPerMinute};w=60`);
    expect(r.res.headers.get('ratelimit')).toMatch(/^"workspace";r=\d+;t=\d+$/);
  });
});
