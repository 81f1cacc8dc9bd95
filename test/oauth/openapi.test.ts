// The OpenAPI document and OAuth (docs/reference/auth.md#oauth): with issuers configured, an `oauth` bearer-JWT scheme naming each
// issuer, its audience, keys and the claims read, accepted beside keys on every keyed operation; without
// issuers, no such scheme (a server that trusts no issuer must not send clients to one).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startIssuer, type TestIssuer } from './issuer.ts';
import { AUDIENCE, newClock, startOAuthService, type TestService } from './helpers.ts';
import { startTestService } from '../http/helpers.ts';

let issuer: TestIssuer;
let svc: TestService;
let doc: any;

beforeAll(async () => {
  issuer = await startIssuer();
  svc = await startOAuthService(
    [
      { issuer: issuer.issuer, audience: AUDIENCE, workspace_claim: 'org' },
      {
        issuer: 'https://tenant.eu.auth0.com/',
        audience: 'https://outcomes.example.com',
        jwks_uri: 'https://tenant.eu.auth0.com/.well-known/jwks.json',
        workspace: 'acme',
        capability_claim: 'permissions',
        capability_value: 'report:outcomes',
        algorithms: ['RS256'],
        require_typ: true,
      },
    ],
    newClock(),
  );
  doc = await (await fetch(`${svc.url}/openapi.json`)).json();
});
afterAll(async () => {
  await svc?.close();
  await issuer?.close();
});

it('is a valid OpenAPI 3.1 document with the oauth scheme', async () => {
  const result = await new Validator().validate(structuredClone(doc));
  expect(result.errors ?? []).toEqual([]);
  expect(result.valid).toBe(true);
  const oauth = doc.components.securitySchemes.oauth;
  expect(oauth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  expect(oauth.description).toContain(`issuer \`${issuer.issuer}\` (discovery document ${issuer.issuer}/.well-known/openid-configuration)`);
  expect(oauth.description).toContain(
    'aud "outcome-service"; workspace from claim "org"; write:outcomes when claim "scope" holds "write:outcomes"',
  );
  expect(oauth.description).toContain(
    'issuer `https://tenant.eu.auth0.com/` (keys at https://tenant.eu.auth0.com/.well-known/jwks.json): aud "https://outcomes.example.com"; ' +
      'every token in workspace "acme"; write:outcomes when claim "permissions" holds "report:outcomes"; alg RS256; typ at+jwt',
  );
});

it('accepts a key or a token on every keyed operation, and neither is asked of the no-key ones', () => {
  expect(doc.security).toEqual([{ bearer: [] }, { oauth: [] }]);
  for (const path of ['/v1/ask', '/v1/report-outcomes', '/v1/export-model'])
    expect(doc.paths[path].post.security).toEqual([{ bearer: [] }, { oauth: [] }]);
  for (const path of ['/v1/describe', '/v1/verify', '/v1/agents/register']) expect(doc.paths[path].post.security).toEqual([]);
  expect(doc.components.responses.Problem401.description).toContain('`invalid_token`');
  expect(doc.components.responses.Problem503.description).toContain('`issuer_unavailable`');
  expect(doc.components.responses.Problem503.headers['Retry-After']).toBeDefined();
});

it('declares no oauth scheme when no issuer is configured', async () => {
  const plain = await startTestService();
  try {
    const d: any = await (await fetch(`${plain.url}/openapi.json`)).json();
    expect(d.components.securitySchemes.oauth).toBeUndefined();
    expect(d.paths['/v1/ask'].post.security).toEqual([{ bearer: [] }]);
  } finally {
    await plain.close();
  }
});
