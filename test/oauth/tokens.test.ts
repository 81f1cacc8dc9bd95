// docs/reference/auth.md#oauth OAuth access tokens, over REST and MCP alike: a valid token of a trusted issuer is let in; one
// that fails any RFC 9068 check is 401 invalid_token naming the check (never echoing the token); the
// write:outcomes capability comes from the claim the operator named, else 403 scope_required as for keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectMcp } from '../mcp/helpers.ts';
import { authenticate } from '../../host/runtime/auth.ts';
import { oauthWorkspaceId } from '../../host/runtime/oauth.ts';
import { startIssuer, unsignedToken, type IssuerKey, type TestIssuer } from './issuer.ts';
import { AUDIENCE, call, claimsAt, expectProblem, newClock, startOAuthService, type TestService } from './helpers.ts';

const clock = newClock();
let a: TestIssuer; // discovery document, workspace from the `org` claim, capability in `scope`
let b: TestIssuer; // jwks_uri given, one fixed workspace, ES256 only, typ at+jwt required, capability as a Keycloak realm role
let stranger: TestIssuer; // a real issuer the service does not trust
let bKey: IssuerKey;
let unpublished: IssuerKey;
let svc: TestService;

beforeAll(async () => {
  [a, b, stranger] = await Promise.all([startIssuer('a'), startIssuer('b'), startIssuer('stranger')]);
  bKey = await b.newKey('ES256');
  b.published.splice(0, b.published.length, bKey);
  unpublished = await a.newKey();
  svc = await startOAuthService(
    [
      { issuer: a.issuer, audience: AUDIENCE, workspace_claim: 'org' },
      {
        issuer: b.issuer,
        audience: [AUDIENCE, 'other-api'],
        jwks_uri: b.jwksUri,
        workspace: 'team-b',
        algorithms: ['ES256'],
        require_typ: true,
        capability_claim: ['realm_access', 'roles'],
        capability_value: 'outcome-writer',
      },
    ],
    clock,
  );
});
afterAll(async () => {
  await svc?.close();
  await Promise.all([a?.close(), b?.close(), stranger?.close()]);
});

const PREFLIGHT = { dataset_id: 'sample:saas_churn' };
const now = () => Math.floor(clock.now / 1000);

interface Case {
  name: string;
  token: () => Promise<string>;
  /** undefined: let in (preflight answers 200). */
  check?: string;
}

const CASES: Case[] = [
  { name: 'a valid token', token: () => a.mint(claimsAt(clock, { org: 'acme' })) },
  { name: 'a token expired 30 s ago (inside the 60 s clock skew)', token: () => a.mint(claimsAt(clock, { org: 'acme', exp: now() - 30 })) },
  { name: 'an expired token', token: () => a.mint(claimsAt(clock, { org: 'acme', exp: now() - 120 })), check: 'exp' },
  { name: 'a token without exp', token: () => a.mint(claimsAt(clock, { org: 'acme', exp: undefined })), check: 'exp' },
  { name: 'a token not valid yet (nbf)', token: () => a.mint(claimsAt(clock, { org: 'acme', nbf: now() + 600 })), check: 'nbf' },
  { name: 'a token for another audience', token: () => a.mint(claimsAt(clock, { org: 'acme', aud: 'someone-else' })), check: 'aud' },
  { name: 'a token without aud', token: () => a.mint(claimsAt(clock, { org: 'acme', aud: undefined })), check: 'aud' },
  { name: "an untrusted issuer's token", token: () => stranger.mint(claimsAt(clock, { org: 'acme' })), check: 'iss' },
  {
    name: "a token claiming a trusted issuer, signed with another key under the issuer's kid",
    token: () => a.mint(claimsAt(clock, { org: 'acme' }), { key: unpublished, kid: a.published[0].kid }),
    check: 'signature',
  },
  { name: 'a token with alg none', token: async () => unsignedToken({ iss: a.issuer, ...claimsAt(clock, { org: 'acme' }) }), check: 'alg' },
  {
    name: 'a token signed HS256 with the issuer public key as the secret',
    token: () =>
      new SignJWT({ iss: a.issuer, ...claimsAt(clock, { org: 'acme' }) })
        .setProtectedHeader({ alg: 'HS256', kid: a.published[0].kid })
        .sign(new TextEncoder().encode(a.published[0].publicPem)),
    check: 'alg',
  },
  { name: 'a token without sub', token: () => a.mint(claimsAt(clock, { org: 'acme', sub: undefined })), check: 'sub' },
  { name: 'a token without the workspace claim', token: () => a.mint(claimsAt(clock)), check: 'workspace' },
  { name: 'a token whose workspace claim is a list', token: () => a.mint(claimsAt(clock, { org: ['acme', 'beta'] })), check: 'workspace' },
  { name: 'a JWT-shaped string that is not JSON', token: async () => 'bm90.anNvbg.c2ln', check: 'format' },
  { name: 'neither a key nor a JWT', token: async () => 'just-some-opaque-token', check: 'format' },
  { name: 'issuer b: a valid at+jwt token', token: () => b.mint(claimsAt(clock), { key: bKey, typ: 'at+jwt' }) },
  {
    name: 'issuer b: a valid token for its second audience',
    token: () => b.mint(claimsAt(clock, { aud: 'other-api' }), { key: bKey, typ: 'at+jwt' }),
  },
  { name: 'issuer b: a token without typ at+jwt', token: () => b.mint(claimsAt(clock), { key: bKey, typ: 'JWT' }), check: 'typ' },
  {
    name: 'issuer b: an RS256 token where only ES256 is allowed',
    token: async () => {
      const rsa = await b.newKey('RS256');
      return b.mint(claimsAt(clock), { key: rsa, typ: 'at+jwt' });
    },
    check: 'alg',
  },
];

async function restOutcome(token: string): Promise<{ status: number; body: any; res: Response; json: any }> {
  const r = await call(svc.url, '/v1/preflight', PREFLIGHT, { key: token });
  return { status: r.res.status, body: r.json, ...r };
}

describe('over REST', () => {
  it.each(CASES)('$name', async ({ token, check }) => {
    const t = await token();
    const r = await restOutcome(t);
    if (check === undefined) {
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return;
    }
    expectProblem(r, 401, 'invalid_token');
    expect(r.json.failed_check).toBe(check);
    // RFC 9728 5.1: with issuers trusted the challenge also names the protected-resource metadata
    expect(r.res.headers.get('www-authenticate')).toMatch(
      new RegExp(
        `^Bearer realm="v1", resource_metadata="http[^"]+/\\.well-known/oauth-protected-resource", ` +
          `error="invalid_token", error_description="the ${check} check failed"$`,
      ),
    );
    // Which check failed is said; the token itself never comes back.
    let text = JSON.stringify(r.json);
    r.res.headers.forEach((value) => (text += `\n${value}`));
    for (const part of t.split('.').filter((p) => p.length > 8)) expect(text).not.toContain(part);
  });

  it('a JWT is refused as before (401 unauthorized) by a server that trusts no issuer', async () => {
    const { startTestService } = await import('../http/helpers.ts');
    const plain = await startTestService({}, { now: () => clock.now });
    try {
      const r = await call(plain.url, '/v1/preflight', PREFLIGHT, { key: await a.mint(claimsAt(clock, { org: 'acme' })) });
      expectProblem(r, 401, 'unauthorized');
      expect(r.json.detail).toMatch(/accepts no OAuth tokens/);
    } finally {
      await plain.close();
    }
  });

  it('svck_ keys still work beside tokens', async () => {
    const r = await call(svc.url, '/v1/preflight', PREFLIGHT, { key: await svc.liveKey() });
    expect(r.res.status).toBe(200);
    expectProblem(await call(svc.url, '/v1/preflight', PREFLIGHT, { key: 'svck_live_unknown' }), 401, 'unauthorized');
  });
});

describe('the Caller a token becomes', () => {
  it('says it came by OAuth, with a stable subject of issuer and sub, no key id, live mode, and the capability as a scope', async () => {
    const token = await a.mint(claimsAt(clock, { sub: 'f:1234', org: 'acme', scope: 'openid write:outcomes' }));
    expect(await authenticate(svc.services, `Bearer ${token}`)).toEqual({
      workspaceId: oauthWorkspaceId(a.issuer, 'acme'),
      via: 'oauth',
      keyId: null,
      subject: `oauth:${a.issuer}#f:1234`,
      mode: 'live',
      scopes: ['write:outcomes'],
    });
    const key = await svc.liveKey();
    const caller = await authenticate(svc.services, `Bearer ${key}`);
    expect(caller).toMatchObject({ via: 'key', mode: 'live', scopes: [] });
    expect(caller.subject).toBe(`key:${caller.keyId}`);
  });
});

describe('the write:outcomes capability over REST', () => {
  const report = {
    model_ref: 'mr1_00000000000000000000000000000000',
    outcomes: [{ entity_id: 'c1', outcome: true, observed_at: '2026-01-01' }],
  };

  it('a token whose scope lacks write:outcomes is 403 scope_required', async () => {
    const t = await a.mint(claimsAt(clock, { org: 'acme', scope: 'openid profile' }));
    const r = await call(svc.url, '/v1/report-outcomes', report, { key: t });
    expectProblem(r, 403, 'scope_required');
    expect(r.json.detail).toMatch(/access token/);
  });

  it('a token whose scope holds write:outcomes gets past the capability check (to the unknown model_ref)', async () => {
    const t = await a.mint(claimsAt(clock, { org: 'acme', scope: 'openid write:outcomes' }));
    expectProblem(await call(svc.url, '/v1/report-outcomes', report, { key: t }), 404, 'model_ref_missing');
  });

  it('a capability read from a nested roles claim (issuer b: realm_access.roles)', async () => {
    const without = await b.mint(claimsAt(clock, { realm_access: { roles: ['reader'] } }), { key: bKey, typ: 'at+jwt' });
    expectProblem(await call(svc.url, '/v1/report-outcomes', report, { key: without }), 403, 'scope_required');
    const holder = await b.mint(claimsAt(clock, { realm_access: { roles: ['reader', 'outcome-writer'] } }), { key: bKey, typ: 'at+jwt' });
    expectProblem(await call(svc.url, '/v1/report-outcomes', report, { key: holder }), 404, 'model_ref_missing');
    // The value must be a whole role or scope, not a part of one.
    const part = await a.mint(claimsAt(clock, { org: 'acme', scope: 'write:outcomes-later' }));
    expectProblem(await call(svc.url, '/v1/report-outcomes', report, { key: part }), 403, 'scope_required');
  });
});

describe('over MCP', () => {
  const clients: Client[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
  });

  async function toolOutcome(token: string, name = 'svc_preflight', args: Record<string, unknown> = PREFLIGHT): Promise<any> {
    const client = await connectMcp(svc.url, { key: token });
    clients.push(client);
    return client.callTool({ name, arguments: args });
  }

  it.each(CASES)('$name', async ({ token, check }) => {
    const t = await token();
    const result = await toolOutcome(t);
    if (check === undefined) {
      expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy();
      return;
    }
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ status: 401, code: 'invalid_token', failed_check: check });
    for (const part of t.split('.').filter((p) => p.length > 8)) expect(result.content[0].text).not.toContain(part);
  });

  it('capability absent is scope_required, present gets past it', async () => {
    const model_ref = 'mr1_00000000000000000000000000000000';
    const args = { model_ref, outcomes: [{ entity_id: 'c1', outcome: true, observed_at: '2026-01-01' }] };
    const without = await toolOutcome(await a.mint(claimsAt(clock, { org: 'acme' })), 'svc_report_outcomes', args);
    expect(without.structuredContent).toMatchObject({ status: 403, code: 'scope_required' });
    const holder = await toolOutcome(await a.mint(claimsAt(clock, { org: 'acme', scope: 'write:outcomes' })), 'svc_report_outcomes', args);
    expect(holder.structuredContent).toMatchObject({ status: 404, code: 'model_ref_missing' });
  });
});
