// Bearer authentication (docs/reference/auth.md#scheme) and capabilities (docs/reference/auth.md#capabilities): the key resolves to a Caller or 401; an
// operation that needs a capability the key lacks is 403 scope_required, before its body is read.
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './env.ts';
import { assertScope, authenticate } from '../runtime/auth.ts';
import { serviceErrorOf } from '../errors.ts';

export function bearerAuth(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set('caller', await authenticate(c.get('services'), c.req.header('authorization')));
    await next();
  };
}

/**
 * A key sent to an operation that needs none (keyIfGiven) names its caller when it is a key of this service;
 * a wrong or revoked one is ignored, as on every no-key operation (the operation works whatever the header says).
 */
export function bearerAuthIfGiven(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header('authorization');
    if (header !== undefined) {
      const caller = await authenticate(c.get('services'), header).catch((err: unknown) => {
        if (serviceErrorOf(err)?.code === 'unauthorized') return undefined;
        throw err;
      });
      if (caller) c.set('caller', caller);
    }
    await next();
  };
}

export function requireScope(scope: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    assertScope(c.get('caller'), scope);
    await next();
  };
}
