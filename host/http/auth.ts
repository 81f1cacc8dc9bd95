// Bearer authentication middleware (spec 5.1): resolves the key to a Caller or answers 401.
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './env.ts';
import { authenticate } from '../operations/auth.ts';

export function bearerAuth(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set('caller', await authenticate(c.get('services'), c.req.header('authorization')));
    await next();
  };
}
