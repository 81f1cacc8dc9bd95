// The issuer's keys as the service holds them (host/signing/issuer-keys.ts): a rotated key is picked up on
// its first token, a flood of made-up kids costs the issuer at most one fetch per 30 s, a withdrawn key stops
// working after the next refresh, and an issuer that is down or hangs is 503 issuer_unavailable for tokens
// only, answered at once between attempts, while the keys fetched before keep working.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { connectMcp } from '../mcp/helpers.ts';
import { startIssuer, type TestIssuer } from './issuer.ts';
import { AUDIENCE, call, claimsAt, expectProblem, newClock, startOAuthService, type Clock, type TestService } from './helpers.ts';

const PREFLIGHT = { dataset_id: 'sample:saas_churn' };
const MIN_REFRESH_MS = 30_000;

let clock: Clock;
let issuer: TestIssuer;
let svc: TestService | undefined;
let logLines: any[];

beforeEach(async () => {
  clock = newClock();
  issuer = await startIssuer();
  logLines = [];
});
afterEach(async () => {
  await svc?.close();
  svc = undefined;
  await issuer.close();
});

async function start(extra: Record<string, unknown> = {}, issuerUrl = issuer.issuer): Promise<TestService> {
  const sink = new Writable({
    write(chunk, _enc, done) {
      logLines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  svc = await startOAuthService(
    [{ issuer: issuerUrl, audience: AUDIENCE, workspace_claim: 'org', ...extra }],
    clock,
    {},
    pino({ level: 'warn' }, sink),
  );
  return svc;
}

const tokenOf = (opts: Parameters<TestIssuer['mint']>[1] = {}) => issuer.mint(claimsAt(clock, { org: 'acme' }), opts);
const ask = (token: string) => call(svc!.url, '/v1/preflight', PREFLIGHT, { key: token });

it('a rotated key is fetched on its first token; an unknown kid within 30 s of a fetch is 401 kid without a fetch', async () => {
  await start();
  expect((await ask(await tokenOf())).res.status).toBe(200);
  expect(issuer.hits).toEqual({ discovery: 1, jwks: 1 });

  // The issuer rotates: the new key is published beside the old one.
  const next = await issuer.newKey();
  issuer.published.push(next);
  const rotated = await tokenOf({ key: next });
  const early = await ask(rotated);
  expectProblem(early, 401, 'invalid_token');
  expect(early.json.failed_check).toBe('kid');
  expect(early.json.detail).toContain(next.kid);
  expect(issuer.hits.jwks).toBe(1);

  clock.now += MIN_REFRESH_MS;
  expect((await ask(await tokenOf({ key: next }))).res.status).toBe(200);
  expect(issuer.hits.jwks).toBe(2);
  // Both keys are now known: no further fetch for either.
  expect((await ask(await tokenOf())).res.status).toBe(200);
  expect(issuer.hits.jwks).toBe(2);
});

it('a key published after start is found at once: the first sight of an unknown kid fetches when the bound allows', async () => {
  await start();
  clock.now += MIN_REFRESH_MS; // nothing fetched yet; the first token fetches anyway
  const next = await issuer.newKey('ES256');
  issuer.published.push(next);
  expect((await ask(await tokenOf({ key: next }))).res.status).toBe(200);
  expect(issuer.hits.jwks).toBe(1);
});

it('a flood of made-up kids costs the issuer at most one fetch per 30 s, over REST and MCP', async () => {
  await start();
  const stranger = await issuer.newKey(); // never published
  const flood = async () => {
    const tokens = await Promise.all(
      Array.from({ length: 40 }, (_, i) => tokenOf({ key: stranger, kid: `made-up-${i}-${Math.random()}` })),
    );
    return Promise.all(tokens.map(ask));
  };
  for (const r of await flood()) {
    expectProblem(r, 401, 'invalid_token');
    expect(r.json.failed_check).toBe('kid');
  }
  expect(issuer.hits.jwks).toBe(1);

  const mcp = await connectMcp(svc!.url, { key: await tokenOf({ key: stranger, kid: 'made-up-mcp' }) });
  try {
    for (let i = 0; i < 5; i++) {
      const result: any = await mcp.callTool({ name: 'svc_preflight', arguments: PREFLIGHT });
      expect(result.structuredContent).toMatchObject({ status: 401, code: 'invalid_token', failed_check: 'kid' });
    }
  } finally {
    await mcp.close();
  }
  expect(issuer.hits.jwks).toBe(1);

  clock.now += MIN_REFRESH_MS - 1;
  await flood();
  expect(issuer.hits.jwks).toBe(1);
  clock.now += 1;
  await flood();
  expect(issuer.hits.jwks).toBe(2);
  // Valid tokens were never held up.
  expect((await ask(await tokenOf())).res.status).toBe(200);
});

it('a key the issuer withdrew stops working once the keys are older than 10 minutes and refetched in the background', async () => {
  await start();
  const old = issuer.published[0];
  expect((await ask(await tokenOf())).res.status).toBe(200);
  const next = await issuer.newKey();
  issuer.published.splice(0, 1, next); // the old key is withdrawn

  clock.now += 10 * 60_000;
  // Served from the cached keys at once; the refetch runs behind the request.
  expect((await ask(await tokenOf({ key: old }))).res.status).toBe(200);
  await vi.waitFor(() => expect(issuer.hits.jwks).toBe(2));
  await vi.waitFor(async () => {
    const r = await ask(await tokenOf({ key: old }));
    expect(r.json?.failed_check).toBe('kid');
  });
  expect((await ask(await tokenOf({ key: next }))).res.status).toBe(200);
});

it('an issuer that is down: 503 issuer_unavailable with Retry-After, one attempt per 30 s, keys unaffected, recovers after it', async () => {
  issuer.mode = 'reset';
  await start();
  const token = await tokenOf();
  const first = await ask(token);
  expectProblem(first, 503, 'issuer_unavailable');
  expect(first.res.headers.get('retry-after')).toBe('30');
  expect(first.json.retry_after_ms).toBe(MIN_REFRESH_MS);
  expect(first.json.detail).toContain(issuer.issuer);
  expect(issuer.hits.discovery).toBe(1);
  // The reason is for the operator's log, not for the caller.
  expect(logLines.some((l) => l.issuer === issuer.issuer && /could not be fetched/.test(l.reason))).toBe(true);
  expect(first.json.detail).not.toMatch(/ECONNRESET|socket|127\.0\.0\.1:\d+\/realms\/test\/\./);

  clock.now += 10_000;
  const later = await ask(token);
  expectProblem(later, 503, 'issuer_unavailable');
  expect(later.json.retry_after_ms).toBe(MIN_REFRESH_MS - 10_000);
  expect(issuer.hits.discovery).toBe(1);
  // MCP: the same Problem as a tool result.
  const mcp = await connectMcp(svc!.url, { key: token });
  try {
    const result: any = await mcp.callTool({ name: 'svc_preflight', arguments: PREFLIGHT });
    expect(result.structuredContent).toMatchObject({ status: 503, code: 'issuer_unavailable' });
  } finally {
    await mcp.close();
  }
  // svck_ keys never depend on the issuer.
  expect((await call(svc!.url, '/v1/preflight', PREFLIGHT, { key: await svc!.liveKey() })).res.status).toBe(200);

  issuer.mode = 'up';
  expectProblem(await ask(token), 503, 'issuer_unavailable'); // still inside the 30 s after the failed attempt
  clock.now += 20_000;
  expect((await ask(await tokenOf())).res.status).toBe(200);
  expect(issuer.hits).toEqual({ discovery: 2, jwks: 1 });
});

it('an issuer that goes down after its keys were fetched: its tokens keep working on those keys', async () => {
  await start();
  expect((await ask(await tokenOf())).res.status).toBe(200);
  issuer.mode = 'error';
  clock.now += 11 * 60_000; // the keys are old: a background refetch is tried and fails
  expect((await ask(await tokenOf())).res.status).toBe(200);
  await vi.waitFor(() => expect(logLines.some((l) => /HTTP 500/.test(l.reason ?? ''))).toBe(true));
  expect((await ask(await tokenOf())).res.status).toBe(200);
  // A token of a key the cache lacks cannot be checked while the issuer is down: 503, not 401.
  const next = await issuer.newKey();
  const unknown = await ask(await tokenOf({ key: next }));
  expectProblem(unknown, 503, 'issuer_unavailable');
});

it('an issuer that never answers is given up after jwks_timeout_ms: 503, and the next request within 30 s is answered at once', async () => {
  issuer.mode = 'hang';
  await start({ jwks_timeout_ms: 300 });
  const token = await tokenOf();
  expectProblem(await ask(token), 503, 'issuer_unavailable');
  expect(logLines.some((l) => /did not answer within 300 ms/.test(l.reason ?? ''))).toBe(true);
  expectProblem(await ask(token), 503, 'issuer_unavailable');
  expect(issuer.hits.discovery).toBe(1);
});

it('concurrent first tokens share one fetch', async () => {
  await start();
  const tokens = await Promise.all(Array.from({ length: 20 }, () => tokenOf()));
  for (const r of await Promise.all(tokens.map(ask))) expect(r.res.status).toBe(200);
  expect(issuer.hits).toEqual({ discovery: 1, jwks: 1 });
});

it('a discovery document naming another issuer is refused (OIDC Discovery 4.3): 503 and the reason logged', async () => {
  // Configured with a trailing slash, the issuer's document says it without one: not the same issuer.
  await start({}, `${issuer.issuer}/`);
  const token = await issuer.mint({ ...claimsAt(clock, { org: 'acme' }), iss: `${issuer.issuer}/` });
  expectProblem(await ask(token), 503, 'issuer_unavailable');
  expect(logLines.some((l) => /names another issuer/.test(l.reason ?? ''))).toBe(true);
  expect(issuer.hits.jwks).toBe(0);
});

it('jwks_uri given: the discovery document is never read', async () => {
  await start({ jwks_uri: issuer.jwksUri });
  expect((await ask(await tokenOf())).res.status).toBe(200);
  expect(issuer.hits).toEqual({ discovery: 0, jwks: 1 });
});
