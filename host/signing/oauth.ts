// OAuth access tokens (docs/reference/auth.md#oauth): an RFC 9068 JWT from a trusted issuer, verified with jose against that
// issuer's published keys; says which check failed without ever repeating the token, and reads the
// workspace and the write:outcomes capability from the claims the operator named.
import { decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import { IssuerKeys, KeysUnavailable } from './issuer-keys.ts';
import type { TrustedIssuer } from './oauth-config.ts';

export { KeysUnavailable };

/** The check a token failed; RFC 9068 4 lists them. Stable names: they are sent as `failed_check`. */
export type TokenCheck = 'format' | 'iss' | 'alg' | 'typ' | 'kid' | 'signature' | 'exp' | 'nbf' | 'iat' | 'aud' | 'sub' | 'workspace';

/** A token that is not acceptable, and why (the message never contains the token). */
export class TokenRejected extends Error {
  override name = 'TokenRejected';
  constructor(
    readonly check: TokenCheck,
    message: string,
  ) {
    super(message);
  }
}

export interface VerifiedToken {
  issuer: string;
  subject: string;
  /** The workspace name as the token gives it (the caller namespaces it by issuer). */
  workspace: string;
  /** True when the capability claim holds the configured value (docs/reference/auth.md#capabilities write:outcomes). */
  canReportOutcomes: boolean;
}

/** Three base64url parts: a JWS compact token (RFC 7515 7.1), the only form an RFC 9068 token takes. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export function looksLikeJwt(token: string): boolean {
  return COMPACT_JWS.test(token);
}

/** A claim value for messages: quoted, short, never more than the claim. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

const isoOf = (seconds: unknown) =>
  typeof seconds === 'number' && Number.isFinite(seconds) ? new Date(seconds * 1000).toISOString() : '?';

function claimAt(payload: JWTPayload, path: string[]): unknown {
  let at: unknown = payload;
  for (const key of path) {
    if (typeof at !== 'object' || at === null || Array.isArray(at) || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

function workspaceOf(payload: JWTPayload, trusted: TrustedIssuer): string {
  if (trusted.workspace !== undefined) return trusted.workspace;
  const path = trusted.workspaceClaim!;
  const name = path.join('.');
  const value = claimAt(payload, path);
  if (value === undefined || value === null)
    throw new TokenRejected('workspace', `The token has no ${shown(name)} claim naming its workspace.`);
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  if (typeof text !== 'string' || text === '' || text.length > 200) {
    throw new TokenRejected('workspace', `The token's ${shown(name)} claim must be one workspace name of 1 to 200 characters.`);
  }
  return text;
}

/** RFC 8693 4.2 / RFC 9068 2.2.3: `scope` is one space-separated string; roles claims are arrays. */
function holdsCapability(payload: JWTPayload, trusted: TrustedIssuer): boolean {
  const value = claimAt(payload, trusted.capabilityClaim);
  if (typeof value === 'string') return value.split(' ').includes(trusted.capabilityValue);
  if (Array.isArray(value)) return value.includes(trusted.capabilityValue);
  return false;
}

const CLAIM_CHECKS = new Set(['iss', 'aud', 'exp', 'nbf', 'iat', 'sub']);

function rejectionOf(err: unknown, trusted: TrustedIssuer, header: Record<string, unknown>, keys: IssuerKeys): unknown {
  if (err instanceof KeysUnavailable || err instanceof TokenRejected) return err;
  if (err instanceof errors.JOSEAlgNotAllowed) {
    const alg = header.alg;
    if (alg === 'none') return new TokenRejected('alg', 'The token is not signed (alg "none").');
    return new TokenRejected(
      'alg',
      `The token is signed with ${shown(alg)}; this issuer's tokens must use ${trusted.algorithms.join(', ')}.`,
    );
  }
  if (err instanceof errors.JWKSNoMatchingKey) {
    const age = Math.round(keys.ageMs() / 1000);
    return new TokenRejected(
      'kid',
      `No key the issuer publishes matches the token's kid ${shown(header.kid)} (keys fetched ${age} s ago).`,
    );
  }
  if (err instanceof errors.JWKSMultipleMatchingKeys) {
    return new TokenRejected('kid', 'The token names no kid and the issuer publishes several keys for its algorithm.');
  }
  if (err instanceof errors.JWSSignatureVerificationFailed) {
    return new TokenRejected('signature', "The token's signature does not verify with the issuer's key.");
  }
  if (err instanceof errors.JWTExpired) {
    // jose: exp past, or (with maxTokenAge, unused here) iat too old.
    return new TokenRejected('exp', `The token expired at ${isoOf(err.payload.exp)}.`);
  }
  if (err instanceof errors.JWTClaimValidationFailed) {
    const { claim, reason, payload } = err;
    if (reason === 'missing') {
      return new TokenRejected(CLAIM_CHECKS.has(claim) ? (claim as TokenCheck) : 'format', `The token has no ${claim} claim.`);
    }
    switch (claim) {
      case 'typ':
        return new TokenRejected('typ', `The token's typ header must be "at+jwt" (RFC 9068 2.1); it is ${shown(header.typ)}.`);
      case 'aud':
        return new TokenRejected(
          'aud',
          `The token is not meant for this service: its aud must include ${trusted.audience.map(shown).join(' or ')}.`,
        );
      case 'exp':
        return new TokenRejected('exp', `The token expired at ${isoOf(payload.exp)}.`);
      case 'nbf':
        return new TokenRejected('nbf', `The token is not valid before ${isoOf(payload.nbf)}.`);
      case 'iss':
      case 'sub':
      case 'iat':
        return new TokenRejected(claim, `The token's ${claim} claim is not acceptable.`);
      default:
        return new TokenRejected('format', `The token's ${shown(claim)} claim is not acceptable.`);
    }
  }
  if (err instanceof errors.JOSEError) return new TokenRejected('format', 'The token is not a well-formed signed JWT.');
  return err;
}

/** Verifies access tokens of the configured issuers; one per service (the key caches live here). */
export class AccessTokenVerifier {
  private readonly byIssuer = new Map<string, { trusted: TrustedIssuer; keys: IssuerKeys }>();

  constructor(
    issuers: readonly TrustedIssuer[],
    private readonly now: () => number,
    onKeysFailure: (issuer: string, reason: string) => void,
  ) {
    for (const trusted of issuers) this.byIssuer.set(trusted.issuer, { trusted, keys: new IssuerKeys(trusted, now, onKeysFailure) });
  }

  /** The issuer's key cache (tests read its fetch count). */
  keysOf(issuer: string): IssuerKeys | undefined {
    return this.byIssuer.get(issuer)?.keys;
  }

  /** The verified token, or throws TokenRejected (401) or KeysUnavailable (503). */
  async verify(token: string): Promise<VerifiedToken> {
    if (!looksLikeJwt(token)) throw new TokenRejected('format', 'The token is not a signed JWT (three base64url parts).');
    let header: Record<string, unknown>;
    let unverified: JWTPayload;
    try {
      header = decodeProtectedHeader(token) as Record<string, unknown>;
      unverified = decodeJwt(token);
    } catch {
      throw new TokenRejected('format', 'The token is not a JWT: its header and payload must be base64url JSON objects.');
    }
    // The unverified iss only picks which issuer's keys and rules apply; jwtVerify checks it again.
    if (typeof unverified.iss !== 'string') throw new TokenRejected('iss', 'The token has no iss claim.');
    const entry = this.byIssuer.get(unverified.iss);
    if (!entry) throw new TokenRejected('iss', `The token's issuer ${shown(unverified.iss)} is not one this service trusts.`);
    const { trusted, keys } = entry;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, (h, t) => keys.keyFor(h, t), {
        issuer: trusted.issuer,
        audience: trusted.audience,
        algorithms: trusted.algorithms,
        clockTolerance: trusted.clockSkewSeconds,
        currentDate: new Date(this.now()),
        requiredClaims: ['exp', 'sub'],
        ...(trusted.requireTyp ? { typ: 'at+jwt' } : {}),
      }));
    } catch (err) {
      throw rejectionOf(err, trusted, header, keys);
    }
    if (typeof payload.sub !== 'string' || payload.sub === '') throw new TokenRejected('sub', 'The token has no sub claim.');
    return {
      issuer: trusted.issuer,
      subject: payload.sub,
      workspace: workspaceOf(payload, trusted),
      canReportOutcomes: holdsCapability(payload, trusted),
    };
  }
}
