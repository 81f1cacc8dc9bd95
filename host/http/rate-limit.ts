// Middleware after bearer auth: counts the request against the caller's workspace (host/runtime/rate-limits.ts).
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './env.ts';

export function workspaceRateLimit(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const caller = c.get('caller');
    if (!caller) return next();
    const limits = c.get('services').limits;
    const d = await limits.admitWorkspace(caller.workspaceId);
    for (const [k, v] of Object.entries(limits.workspace.headers(d))) c.header(k, v);
    await next();
  };
}
