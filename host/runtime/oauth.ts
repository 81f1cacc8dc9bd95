// docs/reference/auth.md#oauth OAuth callers: a verified access token becomes a Caller in a workspace namespaced by its issuer,
// made on first use; a token that fails a check is 401 invalid_token naming the check, and an issuer whose
// keys cannot be had is 503 issuer_unavailable (the token may be fine: retry, do not sign in again).
import { createHash } from 'node:crypto';
import { ServiceError } from '../errors.ts';
import { AccessTokenVerifier, KeysUnavailable, TokenRejected } from '../signing/index.ts';
import type { Caller, Services } from './services.ts';
import { SCOPE_WRITE_OUTCOMES } from './keys.ts';
import { bearerChallenge } from './challenge.ts';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, as store ids

/**
 * The workspace of `name` at `issuer`: `ws_` and 26 base32 characters (130 bits) of a SHA-256 over both,
 * so the same name at two issuers is two workspaces, and every process derives the same id with no lookup.
 */
export function oauthWorkspaceId(issuer: string, name: string): string {
  const digest = createHash('sha256').update(`oauth-workspace\0${issuer}\0${name}`, 'utf8').digest();
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const b of digest) {
    acc = ((acc << 8) | b) & 0xffff;
    bits += 8;
    while (bits >= 5 && out.length < 26) {
      bits -= 5;
      out += ALPHABET[(acc >> bits) & 31];
    }
    if (out.length === 26) break;
  }
  return `ws_${out}`;
}

interface OAuthState {
  verifier: AccessTokenVerifier;
  /** Workspaces known to exist: a token's workspace row is written once per process, not per request. */
  ensured: Set<string>;
}

const states = new WeakMap<Services, OAuthState>();
const ENSURED_MAX = 10_000;

/** The service's token verifier (its key caches live as long as the service), or null without issuers. */
export function oauthOf(services: Services): OAuthState | null {
  const issuers = services.config.oauthIssuers;
  if (issuers.length === 0) return null;
  let state = states.get(services);
  if (!state) {
    const onKeysFailure = (issuer: string, reason: string) => services.log.warn({ issuer, reason }, 'fetching OAuth issuer keys failed');
    state = { verifier: new AccessTokenVerifier(issuers, services.now, onKeysFailure), ensured: new Set() };
    states.set(services, state);
  }
  return state;
}

// RFC 6750 3: the challenge of a rejected token names the error; the description is fixed text, never token bytes.
function invalidToken(services: Services, err: TokenRejected): ServiceError {
  return new ServiceError('invalid_token', err.message, {
    extra: { failed_check: err.check },
    headers: bearerChallenge(services, `, error="invalid_token", error_description="the ${err.check} check failed"`),
  });
}

function issuerUnavailable(err: KeysUnavailable): ServiceError {
  return new ServiceError('issuer_unavailable', `${err.message}; retry in ${Math.ceil(err.retryAfterMs / 1000)} s.`, {
    extra: { retry_after_ms: err.retryAfterMs },
    headers: { 'Retry-After': String(Math.max(1, Math.ceil(err.retryAfterMs / 1000))) },
  });
}

/** The Caller of a bearer token that is not an svck_ key, when issuers are configured. */
export async function authenticateAccessToken(services: Services, state: OAuthState, token: string): Promise<Caller> {
  let verified;
  try {
    verified = await state.verifier.verify(token);
  } catch (err) {
    if (err instanceof TokenRejected) throw invalidToken(services, err);
    if (err instanceof KeysUnavailable) throw issuerUnavailable(err);
    throw err;
  }
  const workspaceId = oauthWorkspaceId(verified.issuer, verified.workspace);
  if (!state.ensured.has(workspaceId)) {
    // Created on first use: the operator trusted this issuer to say who belongs where (docs/guides/oauth.md).
    await services.store.ensureWorkspace(workspaceId, `${verified.workspace} @ ${verified.issuer}`, services.now());
    if (state.ensured.size >= ENSURED_MAX) state.ensured.clear();
    state.ensured.add(workspaceId);
  }
  return {
    workspaceId,
    via: 'oauth',
    keyId: null,
    subject: `oauth:${verified.issuer}#${verified.subject}`,
    mode: 'live',
    scopes: verified.canReportOutcomes ? [SCOPE_WRITE_OUTCOMES] : [],
  };
}
