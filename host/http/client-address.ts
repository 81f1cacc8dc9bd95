// The client's address as the socket sees it; forwarded headers are not trusted (they are caller-controlled).
import type { MiddlewareHandler } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { AppEnv } from './env.ts';

export function clientAddress(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    let address = 'unknown';
    try {
      address = getConnInfo(c).remote.address ?? 'unknown';
    } catch {
      // app.request() in-process has no socket; every such caller shares one bucket.
    }
    c.set('clientAddress', address);
    c.set('caller', null);
    await next();
  };
}
