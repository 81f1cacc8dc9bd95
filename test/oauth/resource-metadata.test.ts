// RFC 9728 protected-resource metadata (docs/reference/auth.md#resource-metadata): with issuers trusted, the
// document names them and every 401 points at it; with keys only, no authorization server is named.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIssuer, type TestIssuer } from './issuer.ts';
import { AUDIENCE, newClock, startOAuthService, type TestService } from './helpers.ts';
import { startTestService } from '../http/helpers.ts';

const PATH = '/.well-known/oauth-protected-resource';

describe('with an issuer trusted', () => {
  let issuer: TestIssuer;
  let svc: TestService;
  beforeAll(async () => {
    issuer = await startIssuer();
    svc = await startOAuthService([{ issuer: issuer.issuer, audience: AUDIENCE, workspace_claim: 'org' }], newClock(), {
      baseUrl: 'https://questions.example.com',
    });
  });
  afterAll(async () => {
    await svc?.close();
    await issuer?.close();
  });

  it('serves the metadata: the resource, its issuer, header bearer tokens, the capability scope', async () => {
    const res = await fetch(`${svc.url}${PATH}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({
      resource: 'https://questions.example.com',
      authorization_servers: [issuer.issuer],
      bearer_methods_supported: ['header'],
      scopes_supported: ['write:outcomes'],
      resource_name: 'Outcome-question service',
      resource_documentation: 'https://questions.example.com/docs',
    });
  });

  it('names the metadata in the challenge of a 401, for no key, an unknown key and a bad token alike', async () => {
    const challenge = `resource_metadata="https://questions.example.com${PATH}"`;
    for (const authorization of [undefined, 'Bearer svck_live_unknown', 'Bearer not.a.token']) {
      const res = await fetch(`${svc.url}/v1/drift`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        body: '{}',
      });
      expect(res.status, authorization).toBe(401);
      const header = res.headers.get('www-authenticate')!;
      expect(header, authorization).toMatch(/^Bearer realm="v1"/);
      expect(header, authorization).toContain(challenge);
    }
  });
});

describe('with keys only', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(() => svc?.close());

  it('names no authorization server, and a 401 challenge stays the plain bearer one', async () => {
    const body = await (await fetch(`${svc.url}${PATH}`)).json();
    expect(body.authorization_servers).toBeUndefined();
    expect(body.resource).toBe(svc.url.replace(/\/+$/, ''));
    const res = await fetch(`${svc.url}/v1/drift`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="v1"');
  });
});
