// createApp(services): the Hono app — request ids, client address, auth, rate limits, JSON bodies,
// the routes of host/routes, and one error mapper that makes every failure application/problem+json.
import { Hono, type MiddlewareHandler } from 'hono';
import type { AppEnv } from './http/env.ts';
import { requestId } from './http/request-id.ts';
import { clientAddress } from './http/client-address.ts';
import { bearerAuth } from './http/auth.ts';
import { workspaceRateLimit } from './http/rate-limit.ts';
import { jsonBody } from './http/body.ts';
import { notFound, onError } from './http/errors.ts';
import { handlerOf, type RouteSpec } from './routes/route.ts';
import { ROUTES } from './routes/index.ts';
import { mountUploadRoute } from './routes/datasets/index.ts';
import { mountMcp } from './mcp/index.ts';
import { mountOpenApi } from './openapi/index.ts';
import { mountPreviewPage } from './web/serve.ts';
import { mountDocsPages } from './web/docs.ts';
import type { Services } from './services.ts';

function accessLog(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    c.get('services').log.info(
      {
        request_id: c.get('requestId'),
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round(performance.now() - started),
      },
      'request',
    );
  };
}

function middlewareOf(route: RouteSpec): MiddlewareHandler<AppEnv>[] {
  const chain: MiddlewareHandler<AppEnv>[] = [];
  // Key first, then the workspace's rate limit, then the body: nobody unauthenticated makes us read bytes.
  if (route.auth === 'key') chain.push(bearerAuth(), workspaceRateLimit());
  if (route.body !== 'ignore') chain.push(jsonBody(route.body));
  return chain;
}

export function createApp(services: Services, routes: readonly RouteSpec[] = ROUTES): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', async (c, next) => {
    c.set('services', services);
    await next();
  });
  app.use('*', requestId(), clientAddress(), accessLog());

  const methodsByPath = new Map<string, string[]>();
  for (const route of routes) {
    app.on([route.method], [route.path], ...middlewareOf(route), handlerOf(route));
    const methods = methodsByPath.get(route.path) ?? [];
    methods.push(route.method, ...(route.method === 'GET' ? ['HEAD'] : []));
    methodsByPath.set(route.path, methods);
  }

  // The presigned upload is a raw streamed PUT authorised by its token, not a JSON RouteSpec.
  mountUploadRoute(app);

  // The same operations as MCP tools and as an OpenAPI document (spec 4.13; host/operations/registry.ts).
  mountMcp(app, routes);
  mountOpenApi(app, routes);

  // The in-browser preview page at / and the files it loads (host/web/serve.ts).
  mountPreviewPage(app);
  // The pages Problem types and {keys_url} link to (host/web/docs.ts).
  mountDocsPages(app);

  app.notFound(notFound((path) => methodsByPath.get(path) ?? []));
  app.onError(onError);
  return app;
}
