// Where an OAuth caller's work lands: the workspace its claim names at its issuer, made on first use and
// shared by every subject of it; the same name at another issuer is another workspace. Datasets, rate limits
// and the usage ledger (docs/reference/limits.md#cost) count per workspace exactly as for keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSampleCsv } from '../../samples/catalog.ts';
import { oauthWorkspaceId } from '../../host/runtime/oauth.ts';
import { connectMcp } from '../mcp/helpers.ts';
import { startIssuer, type TestIssuer } from './issuer.ts';
import { AUDIENCE, call, claimsAt, expectProblem, newClock, startOAuthService, type TestService } from './helpers.ts';

const clock = newClock();
let a: TestIssuer;
let b: TestIssuer;

beforeAll(async () => {
  [a, b] = await Promise.all([startIssuer('a'), startIssuer('b')]);
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

const issuers = () => [
  { issuer: a.issuer, audience: AUDIENCE, workspace_claim: 'org' },
  // Auth0 style: the workspace in a namespaced custom claim whose name is a URL (dots and all).
  { issuer: b.issuer, audience: AUDIENCE, workspace_claim: 'https://example.com/org' },
];
const tokenA = (sub: string, org: string, scope?: string) => a.mint(claimsAt(clock, { sub, org, ...(scope ? { scope } : {}) }));
const tokenB = (sub: string, org: string, scope?: string) =>
  b.mint(claimsAt(clock, { sub, 'https://example.com/org': org, ...(scope ? { scope } : {}) }));

const churnAsk = (cases: string[]) => ({
  data: { csv: loadSampleCsv('saas_churn') },
  entity_column: 'customer_id',
  subject_kind: 'org',
  questions: { q: { type: 'yesno', outcome_column: 'churned' } },
  cases: { ids: cases },
});

describe('workspaces, datasets and the usage ledger', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startOAuthService(issuers(), clock);
  });
  afterAll(() => svc?.close());

  const usageOf = async (workspaceId: string) => {
    await svc.services.usage.flush();
    return svc.services.store.getMonthlyUsage(workspaceId, clock.now);
  };

  it('the first token of a workspace creates it, namespaced by issuer, once however many arrive together', async () => {
    const id = oauthWorkspaceId(a.issuer, 'first-use');
    expect(await svc.services.store.getWorkspace(id)).toBeNull();
    const tokens = await Promise.all(Array.from({ length: 8 }, (_, i) => tokenA(`user-${i}`, 'first-use')));
    const replies = await Promise.all(tokens.map((t) => call(svc.url, '/v1/preflight', { dataset_id: 'sample:saas_churn' }, { key: t })));
    for (const r of replies) expect(r.res.status).toBe(200);
    expect(await svc.services.store.getWorkspace(id)).toEqual({ id, name: `first-use @ ${a.issuer}`, created_at: clock.now });
    expect(oauthWorkspaceId(b.issuer, 'first-use')).not.toBe(id);
    expect(id).toMatch(/^ws_[0-9a-hjkmnp-tv-z]{26}$/);
  });

  it("a dataset stored by one subject is the whole workspace's; the same name at another issuer cannot see it", async () => {
    const rows = Array.from({ length: 5 }, (_, i) => ({ id: `r${i}`, x: i }));
    const stored = await call(svc.url, '/v1/add-dataset', { rows }, { key: await tokenA('alice', 'acme') });
    expect(stored.res.status).toBe(200);
    const dataset_id = stored.json.dataset_id;
    const preflight = (token: string) => call(svc.url, '/v1/preflight', { dataset_id }, { key: token });

    expect((await preflight(await tokenA('bob', 'acme'))).res.status).toBe(200);
    expectProblem(await preflight(await tokenB('alice', 'acme')), 404, 'unknown_dataset');
    expectProblem(await preflight(await tokenA('alice', 'other-team')), 404, 'unknown_dataset');
    // Over MCP, the same workspace.
    const mcp = await connectMcp(svc.url, { key: await tokenA('carol', 'acme') });
    try {
      const result: any = await mcp.callTool({ name: 'svc_preflight', arguments: { dataset_id } });
      expect(result.isError).toBeFalsy();
    } finally {
      await mcp.close();
    }
  });

  it("answered asks are charged to the token's workspace, whichever subject asks; outcomes reported with the capability", async () => {
    const acme = oauthWorkspaceId(a.issuer, 'billing');
    const twin = oauthWorkspaceId(b.issuer, 'billing');
    const first = await call(svc.url, '/v1/ask', churnAsk(['cust_0001', 'cust_0002']), { key: await tokenA('alice', 'billing') });
    expect(first.json.answers.q.state).toBe('answered');
    expect(first.json.billable_decisions).toBe(2);
    expect(await usageOf(acme)).toMatchObject({ fits: 1, decisions: 2 });

    // Another subject of the same workspace, over MCP: the fit is reused and the decisions add up.
    const mcp = await connectMcp(svc.url, { key: await tokenA('bob', 'billing') });
    try {
      const result: any = await mcp.callTool({ name: 'svc_ask', arguments: churnAsk(['cust_0003']) });
      expect(result.structuredContent.fits_run).toBe(0);
    } finally {
      await mcp.close();
    }
    expect(await usageOf(acme)).toMatchObject({ fits: 1, decisions: 3 });
    expect(await usageOf(twin)).toMatchObject({ fits: 0, decisions: 0 });

    // The same name at issuer b: its own workspace and its own charges. Nothing it sees depends on another
    // workspace's asks: its first ask of these bytes is its own fit (a miss, fits_run 1, billed),
    // though the service reuses the computation.
    const other = await call(svc.url, '/v1/ask', churnAsk(['cust_0001']), { key: await tokenB('alice', 'billing') });
    expect(other.json.answers.q.state).toBe('answered');
    expect(other.json.fits_run).toBe(1);
    expect(other.json.answers.q.cache).toBe('miss');
    expect(await usageOf(twin)).toMatchObject({ fits: 1, decisions: 1 });
    expect(await usageOf(acme)).toMatchObject({ fits: 1, decisions: 3 });

    const report = {
      model_ref: first.json.answers.q.model_ref,
      outcomes: [{ entity_id: 'cust_0001', outcome: 'yes', observed_at: '2026-01-04' }],
    };
    expectProblem(await call(svc.url, '/v1/report-outcomes', report, { key: await tokenA('alice', 'billing') }), 403, 'scope_required');
    const reported = await call(svc.url, '/v1/report-outcomes', report, { key: await tokenA('alice', 'billing', 'write:outcomes') });
    expect(reported.res.status, JSON.stringify(reported.json)).toBe(200);
    // A workspace never given this model_ref (docs/reference/auth.md#workspaces) cannot report on it, capability or not.
    const stranger = await tokenA('alice', 'never-asked', 'write:outcomes');
    expectProblem(await call(svc.url, '/v1/report-outcomes', report, { key: stranger }), 404, 'model_ref_missing');
  });
});

describe('rate limits', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startOAuthService(issuers(), clock, { rateLimitPerMinute: 3 });
  });
  afterAll(() => svc?.close());

  const hit = (token: string) => call(svc.url, '/v1/ask', undefined, { key: token, raw: '{' });

  it("every subject of a workspace shares its window (REST and MCP); another issuer's same name has its own", async () => {
    expectProblem(await hit(await tokenA('alice', 'limited')), 400, 'invalid_json');
    expectProblem(await hit(await tokenA('bob', 'limited')), 400, 'invalid_json');
    const mcp = await connectMcp(svc.url, { key: await tokenA('carol', 'limited') });
    try {
      const third: any = await mcp.callTool({ name: 'svc_poll', arguments: { task_id: 'tk_aaaaaaaaaaaaaaaaaaaaaaaaaa' } });
      expect(third.structuredContent).toMatchObject({ code: 'unknown_task' });
      const fourth: any = await mcp.callTool({ name: 'svc_poll', arguments: { task_id: 'tk_aaaaaaaaaaaaaaaaaaaaaaaaaa' } });
      expect(fourth.structuredContent).toMatchObject({ status: 429, code: 'rate_limited' });
    } finally {
      await mcp.close();
    }
    const limited = await hit(await tokenA('dave', 'limited'));
    expectProblem(limited, 429, 'rate_limited');
    expect(limited.res.headers.get('ratelimit-policy')).toBe('"workspace";q=3;w=60');

    expectProblem(await hit(await tokenB('alice', 'limited')), 400, 'invalid_json');
    expectProblem(await hit(await tokenA('alice', 'unlimited')), 400, 'invalid_json');
    clock.now += 60_000;
    expectProblem(await hit(await tokenA('alice', 'limited')), 400, 'invalid_json');
  });

  it('tokens that fail a check are not counted against any workspace', async () => {
    const expired = await a.mint(claimsAt(clock, { org: 'rejected', exp: Math.floor(clock.now / 1000) - 3600 }));
    for (let i = 0; i < 5; i++) expectProblem(await hit(expired), 401, 'invalid_token');
    expectProblem(await hit(await tokenA('alice', 'rejected')), 400, 'invalid_json');
  });
});

describe('one fixed workspace for every token of an issuer', () => {
  it('workspace: "team" puts every subject of the issuer in one workspace, whatever their claims', async () => {
    const svc = await startOAuthService([{ issuer: a.issuer, audience: AUDIENCE, workspace: 'team' }], clock);
    try {
      const rows = [{ id: 'r1', x: 1 }];
      const stored = await call(svc.url, '/v1/add-dataset', { rows }, { key: await a.mint(claimsAt(clock, { sub: 'alice' })) });
      expect(stored.res.status).toBe(200);
      const other = await a.mint(claimsAt(clock, { sub: 'bob', org: 'ignored' }));
      expect((await call(svc.url, '/v1/preflight', { dataset_id: stored.json.dataset_id }, { key: other })).res.status).toBe(200);
      expect(await svc.services.store.getWorkspace(oauthWorkspaceId(a.issuer, 'team'))).toMatchObject({ name: `team @ ${a.issuer}` });
    } finally {
      await svc.close();
    }
  });
});
