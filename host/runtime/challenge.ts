// The WWW-Authenticate challenge of a 401 (docs/reference/auth.md#resource-metadata), shared by key and token checks.
import type { Services } from './services.ts';

/** Where the RFC 9728 protected-resource metadata is served (operations/account/protected-resource.ts). */
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/**
 * RFC 6750 3: a 401 for a bearer-protected resource names the scheme. With OAuth issuers trusted it also names
 * the protected-resource metadata (RFC 9728 5.1), where a client signing in through discovery finds them.
 */
export function bearerChallenge(services: Services, params = ''): Record<string, string> {
  const metadata =
    services.config.oauthIssuers.length > 0 ? `, resource_metadata="${services.config.baseUrl}${PROTECTED_RESOURCE_PATH}"` : '';
  return { 'WWW-Authenticate': `Bearer realm="v1"${metadata}${params}` };
}
