// The one place errors become responses: ServiceError -> application/problem+json (docs/reference/errors.md#problem, docs/reference/errors.md);
// anything else -> 500 internal with no internals, logged with the request id.
import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { answerFor, ServiceError, toProblem } from '../errors.ts';
import type { AppEnv } from './env.ts';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** Writes `err` as a Problem, with its own headers (Retry-After, Allow, ...) and the request id. */
export function problemResponse(c: Context<AppEnv>, err: ServiceError): Response {
  // notFound can run before the request-id middleware ever saw the request.
  const requestId = c.get('requestId') ?? requestIdOf(c.req.header(REQUEST_ID_HEADER));
  const problem = toProblem(err, c.get('services').config.baseUrl, requestId);
  const headers: Record<string, string> = {
    ...err.headers,
    'content-type': PROBLEM_CONTENT_TYPE,
    [REQUEST_ID_HEADER]: requestId,
  };
  return c.body(JSON.stringify(problem), problem.status as ContentfulStatusCode, headers);
}

export const onError: ErrorHandler<AppEnv> = (err, c) =>
  problemResponse(c, answerFor(err, c.get('services').log, { request_id: c.get('requestId'), method: c.req.method, path: c.req.path }));

/**
 * Unknown path -> 404 not_found; known path with another method -> 405 method_not_allowed with Allow.
 * `allowed(path)` lists the methods registered for a path (empty when the path is unknown).
 */
export function notFound(allowed: (path: string) => string[]): NotFoundHandler<AppEnv> {
  return (c) => {
    const methods = allowed(c.req.path);
    if (methods.length > 0) {
      const err = new ServiceError('method_not_allowed', `${c.req.method} is not allowed on ${c.req.path}; use ${methods.join(', ')}.`, {
        headers: { allow: methods.join(', ') },
      });
      return problemResponse(c, err);
    }
    return problemResponse(c, new ServiceError('not_found', `There is no endpoint ${c.req.method} ${c.req.path}.`));
  };
}
