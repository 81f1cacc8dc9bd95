// Per-workspace rate limit per minute (docs/reference/auth.md): 429 with Retry-After.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshSchema } from '../helpers/postgres-database.ts';
import { call, expectProblem, startTestService, type TestService } from './helpers.ts';

let clock = Date.UTC(2026, 0, 5, 10, 0, 0);
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ rateLimitPerMinute: 3 }, { now: () => clock });
});
afterAll(() => svc?.close());

it('counts every keyed request of a workspace, refuses the one over the limit, and resets next minute', async () => {
  const key = await svc.liveKey();
  // Malformed bodies still count: the limit applies before the body is read.
  for (let i = 0; i < 3; i++) {
    const r = await call(svc.url, '/v1/ask', undefined, { key, raw: '{' });
    expectProblem(r, 400, 'invalid_json');
    expect(r.res.headers.get('ratelimit')).toBe(`"workspace";r=${2 - i};t=60`);
  }
  const limited = await call(svc.url, '/v1/ask', undefined, { key, raw: '{' });
  expectProblem(limited, 429, 'rate_limited');
  expect(limited.res.headers.get('retry-after')).toBe('60');
  expect(limited.json.retry_after_ms).toBe(60_000);
  expect(limited.res.headers.get('ratelimit-policy')).toBe('"workspace";q=3;w=60');

  // Another workspace has its own window.
  const other = await svc.liveKey();
  expectProblem(await call(svc.url, '/v1/ask', undefined, { key: other, raw: '{' }), 400, 'invalid_json');

  clock += 60_000;
  expectProblem(await call(svc.url, '/v1/ask', undefined, { key, raw: '{' }), 400, 'invalid_json');
});

it('does not count requests without a valid key', async () => {
  for (let i = 0; i < 5; i++) {
    expectProblem(await call(svc.url, '/v1/ask', {}, { key: 'svck_live_nope' }), 401, 'unauthorized');
  }
});

describe('on PostgreSQL, two services on one database', () => {
  let a: TestService;
  let b: TestService;
  let shared = Date.UTC(2026, 0, 5, 10, 0, 30);
  beforeAll(async () => {
    const databaseUrl = await freshSchema();
    a = await startTestService({ rateLimitPerMinute: 4, registerLimitPerHour: 3, databaseUrl }, { now: () => shared });
    b = await startTestService({ rateLimitPerMinute: 4, registerLimitPerHour: 3, databaseUrl }, { now: () => shared });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('hold one workspace limit between them, not one each', async () => {
    const key = await a.liveKey();
    const seen: number[] = [];
    for (let i = 0; i < 6; i++) seen.push((await call((i % 2 ? b : a).url, '/v1/ask', undefined, { key, raw: '{' })).res.status);
    expect(seen).toEqual([400, 400, 400, 400, 429, 429]);
    const limited = await call(b.url, '/v1/ask', undefined, { key, raw: '{' });
    expectProblem(limited, 429, 'rate_limited');
    expect(limited.res.headers.get('retry-after')).toBe('30');
    shared += 30_000; // the next minute, on both
    expectProblem(await call(b.url, '/v1/ask', undefined, { key, raw: '{' }), 400, 'invalid_json');
  });

  it('hold one registration limit per address between them', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await call((i % 2 ? b : a).url, '/v1/agents/register')).res.status);
    expect(statuses).toEqual([201, 201, 201, 429, 429]);
  });
});
