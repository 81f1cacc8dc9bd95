// The protected-resource metadata of RFC 9728 (docs/reference/auth.md#resource-metadata): a GET route that is not
// a contract operation. It tells a client that meets this service (an MCP client signing in through discovery)
// which authorization servers issue tokens it accepts, and how to send them.
import type { Services } from '../../runtime/services.ts';
import { PROTECTED_RESOURCE_PATH } from '../../runtime/challenge.ts';
import type { Operation } from '../operation.ts';

/** The metadata document: the resource is the service's BASE_URL (REST under /v1 and MCP at /mcp alike). */
export function protectedResourceMetadata(services: Services): Record<string, unknown> {
  const { baseUrl, oauthIssuers } = services.config;
  return {
    resource: baseUrl,
    // RFC 9728 2: omitted when no issuer is trusted (svck_ keys only), so a client does not look for one
    ...(oauthIssuers.length > 0 ? { authorization_servers: oauthIssuers.map((i) => i.issuer) } : {}),
    bearer_methods_supported: ['header'],
    scopes_supported: ['write:outcomes'],
    resource_name: 'Outcome-question service',
    resource_documentation: `${baseUrl}/docs`,
  };
}

/** GET /.well-known/oauth-protected-resource (RFC 9728 3). */
export const protectedResourceOperation: Operation = {
  name: 'oauth_protected_resource',
  resource: 'account',
  path: PROTECTED_RESOURCE_PATH,
  method: 'GET',
  auth: 'none',
  body: 'none',
  title: 'OAuth protected-resource metadata',
  description:
    'RFC 9728 metadata of this service: resource (BASE_URL), authorization_servers (the trusted OAuth issuers; ' +
    'absent when only svck_ keys are accepted), bearer_methods_supported, scopes_supported. A 401 names this URL ' +
    'in its WWW-Authenticate resource_metadata parameter when issuers are configured.',
  status: 200,
  examples: [],
  run: async (ctx) => ({
    status: 200,
    body: protectedResourceMetadata(ctx.services),
    headers: { 'cache-control': 'public, max-age=300' },
  }),
};
