// A route is data: method, path, whether it needs a key, how it reads its body, and the operation it calls.
// The transport does the rest (routes hold no behaviour; architecture.md).
import type { Context, Handler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { AppEnv } from '../http/env.ts';
import type { BodyMode } from '../http/body.ts';
import { resultJson, type OpContext, type OpResult } from '../services.ts';

export interface RouteSpec {
  method: 'GET' | 'POST';
  path: string;
  /** spec 5.5: verify, describe and register_agent need no key. */
  auth: 'key' | 'none';
  /** 'ignore': the body is never read (register_agent has no body schema, spec 4.12). */
  body: BodyMode | 'ignore';
  run(ctx: OpContext, body: unknown): Promise<OpResult>;
}

export function opContextOf(c: Context<AppEnv>): OpContext {
  return {
    services: c.get('services'),
    caller: c.get('caller'),
    requestId: c.get('requestId'),
    clientAddress: c.get('clientAddress'),
  };
}

export function sendResult(c: Context<AppEnv>, result: OpResult): Response {
  return c.body(resultJson(result), result.status as ContentfulStatusCode, {
    ...result.headers,
    'content-type': 'application/json',
  });
}

/** The final handler of every route: build the OpContext, run the operation, send its result. */
export function handlerOf(route: RouteSpec): Handler<AppEnv> {
  return async (c) => sendResult(c, await route.run(opContextOf(c), c.get('body')));
}
