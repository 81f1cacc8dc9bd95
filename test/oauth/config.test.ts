// OAUTH_ISSUERS (host/config.ts, docs/guides/oauth.md): the documented defaults, every setting read, and every kind of
// nonsense refused at start naming the issuer and setting, above all any algorithm that is not a public-key one.
import { describe, expect, it } from 'vitest';
import { ConfigError, configFromEnv } from '../../host/config.ts';
import { ASYMMETRIC_ALGORITHMS, OAuthConfigError, parseOAuthIssuers } from '../../host/signing/index.ts';

const base = { issuer: 'https://sso.example.com/realms/acme', audience: 'outcome-service', workspace_claim: 'workspace' };
const parse = (issuers: unknown) => parseOAuthIssuers(JSON.stringify(issuers));

describe('parseOAuthIssuers', () => {
  it('unset or blank trusts no issuer', () => {
    expect(parseOAuthIssuers(undefined)).toEqual([]);
    expect(parseOAuthIssuers('  ')).toEqual([]);
    expect(configFromEnv({}).oauthIssuers).toEqual([]);
  });

  it('fills the documented defaults', () => {
    expect(parse([base])).toEqual([
      {
        issuer: 'https://sso.example.com/realms/acme',
        audience: ['outcome-service'],
        workspaceClaim: ['workspace'],
        capabilityClaim: ['scope'],
        capabilityValue: 'write:outcomes',
        algorithms: [...ASYMMETRIC_ALGORITHMS],
        requireTyp: false,
        clockSkewSeconds: 60,
        jwksTimeoutMs: 5000,
      },
    ]);
  });

  it('reads every setting, and keeps the issuer exactly as written (a trailing slash is part of it)', () => {
    const [t] = parse([
      {
        issuer: 'https://tenant.eu.auth0.com/',
        audience: ['https://outcomes.example.com', 'outcome-service'],
        jwks_uri: 'https://tenant.eu.auth0.com/.well-known/jwks.json',
        workspace_claim: ['app_metadata', 'workspace'],
        capability_claim: 'permissions',
        capability_value: 'report:outcomes',
        algorithms: ['RS256', 'RS256', 'PS256'],
        require_typ: true,
        clock_skew_seconds: 5,
        jwks_timeout_ms: 2000,
      },
    ]);
    expect(t).toEqual({
      issuer: 'https://tenant.eu.auth0.com/',
      audience: ['https://outcomes.example.com', 'outcome-service'],
      jwksUri: 'https://tenant.eu.auth0.com/.well-known/jwks.json',
      workspaceClaim: ['app_metadata', 'workspace'],
      capabilityClaim: ['permissions'],
      capabilityValue: 'report:outcomes',
      algorithms: ['RS256', 'PS256'],
      requireTyp: true,
      clockSkewSeconds: 5,
      jwksTimeoutMs: 2000,
    });
    const fixed = { issuer: base.issuer, audience: base.audience, workspace: 'acme' };
    expect(parse([fixed])[0]).toMatchObject({ workspace: 'acme' });
    expect(parse([fixed])[0].workspaceClaim).toBeUndefined();
  });

  it('takes http only on a loopback host (a local identity provider)', () => {
    expect(parse([{ ...base, issuer: 'http://localhost:8080/realms/dev' }])[0].issuer).toBe('http://localhost:8080/realms/dev');
    expect(parse([{ ...base, issuer: 'http://127.0.0.1:8080/realms/dev' }])).toHaveLength(1);
  });

  const BAD: Array<[string, string, RegExp]> = [
    ['not JSON', '[{', /is not JSON/],
    ['not an array', JSON.stringify(base), /must be a JSON array/],
    ['an entry that is not an object', JSON.stringify(['https://x']), /\[0\]: must be an object/],
    ['an unknown setting', JSON.stringify([{ ...base, audiences: ['x'] }]), /\[0\]\.audiences: is not a setting/],
    ['no issuer', JSON.stringify([{ audience: 'x', workspace: 'w' }]), /\[0\]\.issuer: must be a URL/],
    ['an http issuer elsewhere', JSON.stringify([{ ...base, issuer: 'http://sso.example.com' }]), /\[0\]\.issuer: must be https/],
    ['an issuer with a query', JSON.stringify([{ ...base, issuer: 'https://sso.example.com/?x=1' }]), /no query or fragment/],
    ['no audience', JSON.stringify([{ issuer: base.issuer, workspace: 'w' }]), /\[0\]\.audience: must be a string/],
    ['an empty audience list', JSON.stringify([{ ...base, audience: [] }]), /\[0\]\.audience/],
    ['neither workspace setting', JSON.stringify([{ issuer: base.issuer, audience: 'x' }]), /exactly one of workspace_claim/],
    ['both workspace settings', JSON.stringify([{ ...base, workspace: 'w' }]), /exactly one of workspace_claim/],
    ['an empty claim path', JSON.stringify([{ ...base, workspace_claim: [] }]), /\[0\]\.workspace_claim/],
    ['alg none', JSON.stringify([{ ...base, algorithms: ['none'] }]), /"none" is not allowed; use public-key algorithms only/],
    ['HS256', JSON.stringify([{ ...base, algorithms: ['RS256', 'HS256'] }]), /"HS256" is not allowed/],
    ['no algorithm', JSON.stringify([{ ...base, algorithms: [] }]), /\[0\]\.algorithms: must be a non-empty array/],
    ['a non-boolean require_typ', JSON.stringify([{ ...base, require_typ: 'yes' }]), /require_typ: must be true or false/],
    [
      'a huge clock skew',
      JSON.stringify([{ ...base, clock_skew_seconds: 3600 }]),
      /clock_skew_seconds: must be a whole number from 0 to 300/,
    ],
    ['an http jwks_uri elsewhere', JSON.stringify([{ ...base, jwks_uri: 'http://sso.example.com/certs' }]), /jwks_uri: must be https/],
    ['the same issuer twice', JSON.stringify([base, base]), /\[1\]\.issuer: .* is listed twice/],
  ];

  it.each(BAD)('refuses %s', (_name, raw, message) => {
    expect(() => parseOAuthIssuers(raw)).toThrow(OAuthConfigError);
    expect(() => parseOAuthIssuers(raw)).toThrow(message);
  });

  it('configFromEnv names OAUTH_ISSUERS in the ConfigError that stops the start', () => {
    expect(() => configFromEnv({ OAUTH_ISSUERS: JSON.stringify([{ ...base, algorithms: ['HS256'] }]) })).toThrow(ConfigError);
    expect(() => configFromEnv({ OAUTH_ISSUERS: JSON.stringify([{ ...base, algorithms: ['HS256'] }]) })).toThrow(
      /^OAUTH_ISSUERS\[0\]\.algorithms: "HS256" is not allowed/,
    );
    expect(() => configFromEnv({ OAUTH_ISSUERS: '{' })).toThrow(/^OAUTH_ISSUERS is not JSON/);
    expect(configFromEnv({ OAUTH_ISSUERS: JSON.stringify([base]) }).oauthIssuers).toHaveLength(1);
  });
});
