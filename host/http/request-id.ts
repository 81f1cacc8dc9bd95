// Request ids: a caller's sane x-request-id is kept, otherwise one is made; always echoed (docs/reference/errors.md#problem).
import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './env.ts';

export const REQUEST_ID_HEADER = 'x-request-id';

// Ids end up in logs and Problems: accept only short, printable, unambiguous ones.
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdOf(header: string | undefined): string {
  return header !== undefined && SANE_ID.test(header) ? header : `req_${randomUUID()}`;
}

export function requestId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const id = requestIdOf(c.req.header(REQUEST_ID_HEADER));
    c.set('requestId', id);
    c.header(REQUEST_ID_HEADER, id);
    await next();
  };
}
