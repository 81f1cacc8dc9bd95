// Bearer authentication (spec 5.1) and capabilities (spec 5.4): the key resolves to a Caller or 401; an
// operation that needs a capability the key lacks is 403 scope_required, before its body is read.
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './env.ts';
import { assertScope, authenticate } from '../operations/auth.ts';

export function bearerAuth(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set('caller', await authenticate(c.get('services'), c.req.header('authorization')));
    await next();
  };
}

export function requireScope(scope: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    assertScope(c.get('caller'), scope);
    await next();
  };
}
