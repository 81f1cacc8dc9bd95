// The REST transport: one route per operation of the table (host/operations/index.ts), with the middleware
// its declaration asks for (key, rate limit, scope, body) and the one handler that runs it and sends the
// reply. No behaviour lives here (docs/design/architecture.md#layout).
import type { Context, Handler, Hono, MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { AppEnv } from './env.ts';
import { bearerAuth, bearerAuthIfGiven, requireScope } from './auth.ts';
import { workspaceRateLimit } from './rate-limit.ts';
import { jsonBody } from './body.ts';
import { resultJson, type OpContext, type OpResult } from '../runtime/services.ts';
import type { Operation, OperationRequest } from '../operations/operation.ts';

export function opContextOf(c: Context<AppEnv>): OpContext {
  return {
    services: c.get('services'),
    caller: c.get('caller'),
    requestId: c.get('requestId'),
    clientAddress: c.get('clientAddress'),
  };
}

export function sendResult(c: Context<AppEnv>, result: OpResult): Response {
  // No content (docs/reference/tasks.md#events: a finished task's stream whose last event the client holds).
  if (result.status === 204) return c.body(null, 204, result.headers);
  if (result.stream) {
    return c.body(result.stream.bytes, result.status as ContentfulStatusCode, {
      ...result.headers,
      'content-type': result.stream.contentType,
    });
  }
  const body = result.bodyBytes ? result.bodyBytes() : resultJson(result);
  return c.body(body, result.status as ContentfulStatusCode, { ...result.headers, 'content-type': 'application/json' });
}

function requestOf(c: Context<AppEnv>, op: Operation): OperationRequest {
  return {
    transport: 'rest',
    params: c.req.param() as Record<string, string>,
    header: (name) => c.req.header(name),
    query: (name) => c.req.query(name),
    stream: op.body === 'stream' ? c.req.raw.body : null,
    signal: c.req.raw.signal,
  };
}

function middlewareOf(op: Operation): MiddlewareHandler<AppEnv>[] {
  const chain: MiddlewareHandler<AppEnv>[] = [];
  // Key first, then the workspace's rate limit and the key's capability, then the body: nobody
  // unauthenticated or unentitled makes us read bytes.
  if (op.auth === 'key') chain.push(bearerAuth(), workspaceRateLimit());
  else if (op.keyIfGiven) chain.push(bearerAuthIfGiven());
  if (op.scope) chain.push(requireScope(op.scope));
  if (op.body === 'json' || op.body === 'json-optional') chain.push(jsonBody(op.body === 'json' ? 'required' : 'optional'));
  return chain;
}

function handlerOf(op: Operation): Handler<AppEnv> {
  return async (c) => sendResult(c, await op.run(opContextOf(c), c.get('body'), requestOf(c, op)));
}

/** Mounts every operation; returns the methods each path serves (for 405 Allow). */
export function mountOperations(app: Hono<AppEnv>, ops: readonly Operation[]): Map<string, string[]> {
  const methodsByPath = new Map<string, string[]>();
  for (const op of ops) {
    app.on([op.method], [op.path], ...middlewareOf(op), handlerOf(op));
    const methods = methodsByPath.get(op.path) ?? [];
    methods.push(op.method, ...(op.method === 'GET' ? ['HEAD'] : []));
    methodsByPath.set(op.path, methods);
  }
  return methodsByPath;
}
