// OAUTH_ISSUERS (docs/reference/auth.md#oauth "OAuth access tokens"): the identity providers an operator trusts, read from one
// JSON array into TrustedIssuer objects. Self-contained so it can move with the rest of the configuration.

/** docs/reference/auth.md#scheme tokens are RFC 9068 JWTs; only public-key algorithms, so a published key can never sign (no none, no HS*). */
export const ASYMMETRIC_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;
export type TokenAlgorithm = (typeof ASYMMETRIC_ALGORITHMS)[number];

/** The capability a token can grant (docs/reference/auth.md#capabilities), and the claim read for it unless configured otherwise. */
export const DEFAULT_CAPABILITY_CLAIM = 'scope';
export const DEFAULT_CAPABILITY_VALUE = 'write:outcomes';
export const DEFAULT_CLOCK_SKEW_SECONDS = 60;
export const DEFAULT_JWKS_TIMEOUT_MS = 5000;

/** One trusted issuer, as the verifier uses it. Claim paths are lists of object keys (["realm_access", "roles"]). */
export interface TrustedIssuer {
  /** The exact `iss` value (compared as a string: a trailing slash matters, as RFC 9068 4 says). */
  issuer: string;
  /** The token's `aud` must contain one of these. */
  audience: string[];
  /** Where the keys are; absent: read from the issuer's discovery document. */
  jwksUri?: string;
  /** The claim whose value names the workspace; absent when `workspace` is fixed. */
  workspaceClaim?: string[];
  /** Every token of this issuer belongs to this one workspace. */
  workspace?: string;
  /** The claim (a space-separated string or an array of strings) that must hold `capabilityValue` for write:outcomes. */
  capabilityClaim: string[];
  capabilityValue: string;
  algorithms: TokenAlgorithm[];
  /** RFC 9068 2.1: require the `typ` header `at+jwt` (many providers do not set it). */
  requireTyp: boolean;
  clockSkewSeconds: number;
  jwksTimeoutMs: number;
}

/** A problem with OAUTH_ISSUERS; the caller adds the setting's name. */
export class OAuthConfigError extends Error {
  override name = 'OAuthConfigError';
}

const KNOWN_FIELDS = new Set([
  'issuer',
  'audience',
  'jwks_uri',
  'workspace_claim',
  'workspace',
  'capability_claim',
  'capability_value',
  'algorithms',
  'require_typ',
  'clock_skew_seconds',
  'jwks_timeout_ms',
]);

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

function fail(where: string, message: string): never {
  throw new OAuthConfigError(`${where}: ${message}`);
}

/** https, or http on a loopback host only (a local identity provider while developing, and the tests). */
function urlOf(value: unknown, where: string): URL {
  if (typeof value !== 'string' || value === '') fail(where, 'must be a URL string');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    fail(where, `is not a URL: ${JSON.stringify(value)}`);
  }
  const loopback = LOOPBACK_HOSTS.has(url.hostname) || url.hostname.startsWith('127.');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) fail(where, 'must be https (http only on a loopback host)');
  if (url.search !== '' || url.hash !== '') fail(where, 'must have no query or fragment');
  return url;
}

function claimPathOf(value: unknown, where: string): string[] {
  // A string is one top-level claim, dots and all (Auth0's custom claims are URLs such as https://example.com/workspace).
  if (typeof value === 'string' && value !== '') return [value];
  if (Array.isArray(value) && value.length > 0 && value.every((p) => typeof p === 'string' && p !== '')) return [...(value as string[])];
  fail(where, 'must be a claim name, or a non-empty array of keys for a nested claim (["realm_access", "roles"])');
}

function intOf(value: unknown, fallback: number, min: number, max: number, where: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    fail(where, `must be a whole number from ${min} to ${max}`);
  }
  return value;
}

function issuerOf(raw: unknown, index: number): TrustedIssuer {
  const at = `[${index}]`;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail(at, 'must be an object');
  const o = raw as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!KNOWN_FIELDS.has(k)) fail(`${at}.${k}`, `is not a setting (known: ${[...KNOWN_FIELDS].join(', ')})`);

  urlOf(o.issuer, `${at}.issuer`);
  const issuer = o.issuer as string;

  const audience = typeof o.audience === 'string' ? [o.audience] : o.audience;
  if (!Array.isArray(audience) || audience.length === 0 || !audience.every((a) => typeof a === 'string' && a !== '')) {
    fail(`${at}.audience`, 'must be a string or a non-empty array of strings (RFC 9068 4: every token is checked for it)');
  }

  if ((o.workspace_claim === undefined) === (o.workspace === undefined)) {
    fail(at, 'needs exactly one of workspace_claim (the claim naming the workspace) or workspace (one workspace for every token)');
  }
  if (o.workspace !== undefined && (typeof o.workspace !== 'string' || o.workspace === '' || o.workspace.length > 200)) {
    fail(`${at}.workspace`, 'must be a name of 1 to 200 characters');
  }

  const algorithms = o.algorithms === undefined ? [...ASYMMETRIC_ALGORITHMS] : o.algorithms;
  if (!Array.isArray(algorithms) || algorithms.length === 0) fail(`${at}.algorithms`, 'must be a non-empty array');
  for (const alg of algorithms) {
    if (!(ASYMMETRIC_ALGORITHMS as readonly unknown[]).includes(alg)) {
      fail(
        `${at}.algorithms`,
        `${JSON.stringify(alg)} is not allowed; use public-key algorithms only: ${ASYMMETRIC_ALGORITHMS.join(', ')}`,
      );
    }
  }

  if (o.capability_value !== undefined && (typeof o.capability_value !== 'string' || o.capability_value === '')) {
    fail(`${at}.capability_value`, 'must be a non-empty string');
  }
  if (o.require_typ !== undefined && typeof o.require_typ !== 'boolean') fail(`${at}.require_typ`, 'must be true or false');

  return {
    issuer,
    audience: [...(audience as string[])],
    ...(o.jwks_uri !== undefined ? { jwksUri: urlOf(o.jwks_uri, `${at}.jwks_uri`).href } : {}),
    ...(o.workspace_claim !== undefined ? { workspaceClaim: claimPathOf(o.workspace_claim, `${at}.workspace_claim`) } : {}),
    ...(o.workspace !== undefined ? { workspace: o.workspace as string } : {}),
    capabilityClaim:
      o.capability_claim === undefined ? [DEFAULT_CAPABILITY_CLAIM] : claimPathOf(o.capability_claim, `${at}.capability_claim`),
    capabilityValue: (o.capability_value as string | undefined) ?? DEFAULT_CAPABILITY_VALUE,
    algorithms: [...new Set(algorithms as TokenAlgorithm[])],
    requireTyp: (o.require_typ as boolean | undefined) ?? false,
    clockSkewSeconds: intOf(o.clock_skew_seconds, DEFAULT_CLOCK_SKEW_SECONDS, 0, 300, `${at}.clock_skew_seconds`),
    jwksTimeoutMs: intOf(o.jwks_timeout_ms, DEFAULT_JWKS_TIMEOUT_MS, 100, 60_000, `${at}.jwks_timeout_ms`),
  };
}

/** Reads OAUTH_ISSUERS: unset or blank is no issuer (only svck_ keys are accepted). Throws OAuthConfigError. */
export function parseOAuthIssuers(raw: string | undefined): TrustedIssuer[] {
  if (raw === undefined || raw.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new OAuthConfigError(`is not JSON (${(err as Error).message}); give an array of issuer objects`);
  }
  if (!Array.isArray(parsed)) throw new OAuthConfigError('must be a JSON array of issuer objects');
  const issuers = parsed.map(issuerOf);
  const seen = new Set<string>();
  for (const [i, t] of issuers.entries()) {
    if (seen.has(t.issuer)) fail(`[${i}].issuer`, `${t.issuer} is listed twice`);
    seen.add(t.issuer);
  }
  return issuers;
}
