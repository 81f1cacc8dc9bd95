// docs/reference/auth.md#scheme: resolves `Authorization: Bearer <token>` to the calling workspace: an svck_live_/svck_test_ key,
// or an OAuth access token of a trusted issuer (host/runtime/oauth.ts).
import { ServiceError } from '../errors.ts';
import type { Caller, Services } from './services.ts';
import { KEY_PREFIX, hashApiKey } from './keys.ts';
import type { KeyMode } from '../store/index.ts';
import { authenticateAccessToken, oauthOf } from './oauth.ts';
import { bearerChallenge } from './challenge.ts';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

function unauthorized(services: Services, detail: string): ServiceError {
  return new ServiceError('unauthorized', detail, { headers: bearerChallenge(services) });
}

function modeOf(token: string): KeyMode | undefined {
  if (token.startsWith(KEY_PREFIX.live)) return 'live';
  if (token.startsWith(KEY_PREFIX.test)) return 'test';
  return undefined;
}

export async function authenticate(services: Services, authorization: string | undefined): Promise<Caller> {
  if (authorization === undefined || authorization.trim() === '') {
    throw unauthorized(services, 'No API key was sent; send Authorization: Bearer <key>.');
  }
  const token = BEARER.exec(authorization)?.[1];
  if (token === undefined) throw unauthorized(services, 'The Authorization header must be "Bearer <key>".');
  const mode = modeOf(token);
  if (mode === undefined) {
    // docs/reference/auth.md#oauth: anything that is not an svck_ key is an OAuth access token, when the operator trusts an issuer.
    const oauth = oauthOf(services);
    if (oauth) return authenticateAccessToken(services, oauth, token);
    throw unauthorized(
      services,
      'The key is not an API key of this service (svck_live_... or svck_test_...); this server accepts no OAuth tokens.',
    );
  }
  const record = await services.store.findApiKeyByHash(hashApiKey(token));
  if (!record || record.mode !== mode) throw unauthorized(services, 'The API key is not known to this service.');
  if (record.revoked_at !== null) throw unauthorized(services, 'The API key has been revoked.');
  return {
    workspaceId: record.workspace_id,
    via: 'key',
    keyId: record.id,
    subject: `key:${record.id}`,
    mode: record.mode,
    scopes: [...record.scopes],
  };
}

/** docs/reference/auth.md#capabilities / docs/reference/outcomes.md#attest: svc_report_outcomes and svc_attest need the write:outcomes capability (Can report outcomes). */
export function assertScope(caller: Caller | null, scope: string): void {
  if (caller?.scopes.includes(scope)) return;
  throw new ServiceError(
    'scope_required',
    caller?.via === 'oauth'
      ? `this access token cannot do this; its issuer must grant the ${scope} capability (the claim and value the operator configured)`
      : `this key cannot do this; it needs the ${scope} capability${scope === 'write:outcomes' ? ' (Can report outcomes)' : ''}`,
  );
}
