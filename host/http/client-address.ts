// The client's address: the socket's, or behind a trusted load balancer (TRUST_PROXY) the last address that
// balancer added to X-Forwarded-For. Forwarded headers from anyone else are caller-controlled and ignored.
import type { MiddlewareHandler } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { AppEnv } from './env.ts';

/** '::ffff:10.0.0.5' (an IPv4 peer on a dual-stack socket) is 10.0.0.5. */
function plain(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/**
 * The client a trusted proxy names: the rightmost X-Forwarded-For entry (HAProxy's `option forwardfor`
 * appends the address it saw; entries to its left came from the client and prove nothing).
 */
export function forwardedClient(header: string | undefined): string | null {
  const last = header?.split(',').at(-1)?.trim();
  return last ? plain(last) : null;
}

export function clientAddress(trustProxy: readonly string[] = []): MiddlewareHandler<AppEnv> {
  const trusted = new Set(trustProxy.map(plain));
  return async (c, next) => {
    let address = 'unknown';
    try {
      address = plain(getConnInfo(c).remote.address ?? 'unknown');
    } catch {
      // app.request() in-process has no socket; every such caller shares one bucket.
    }
    if (trusted.has(address)) address = forwardedClient(c.req.header('x-forwarded-for')) ?? address;
    c.set('clientAddress', address);
    c.set('caller', null);
    await next();
  };
}
