// Spec 5.1: resolves `Authorization: Bearer svck_live_...|svck_test_...` to the calling workspace and key.
import { ServiceError } from '../errors.ts';
import type { Caller, Services } from '../services.ts';
import { KEY_PREFIX, hashApiKey } from './keys.ts';
import type { KeyMode } from '../store/index.ts';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;
// RFC 6750 3: a 401 for a bearer-protected resource names the scheme.
const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="v1"' };

function unauthorized(detail: string): ServiceError {
  return new ServiceError('unauthorized', detail, { headers: CHALLENGE });
}

function modeOf(token: string): KeyMode | undefined {
  if (token.startsWith(KEY_PREFIX.live)) return 'live';
  if (token.startsWith(KEY_PREFIX.test)) return 'test';
  return undefined;
}

export async function authenticate(services: Services, authorization: string | undefined): Promise<Caller> {
  if (authorization === undefined || authorization.trim() === '') {
    throw unauthorized('No API key was sent; send Authorization: Bearer <key>.');
  }
  const token = BEARER.exec(authorization)?.[1];
  if (token === undefined) throw unauthorized('The Authorization header must be "Bearer <key>".');
  const mode = modeOf(token);
  // spec 5.7: how OAuth tokens are obtained is not shown; this server issues svck_ keys only.
  if (mode === undefined) throw unauthorized('The key is not an API key of this service (svck_live_... or svck_test_...).');
  const record = await services.store.findApiKeyByHash(hashApiKey(token));
  if (!record || record.mode !== mode) throw unauthorized('The API key is not known to this service.');
  if (record.revoked_at !== null) throw unauthorized('The API key has been revoked.');
  return { workspaceId: record.workspace_id, keyId: record.id, mode: record.mode, scopes: [...record.scopes] };
}
