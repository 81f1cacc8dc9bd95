// createApp(services): the Hono app — request ids, client address, the operation table mounted as REST
// routes, MCP tools and an OpenAPI document, the pages, and one error mapper that makes every failure
// application/problem+json.
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { AppEnv } from './http/env.ts';
import { requestId } from './http/request-id.ts';
import { clientAddress } from './http/client-address.ts';
import { settleUnreadBody } from './http/unread-body.ts';
import { notFound, onError } from './http/errors.ts';
import { mountOperations } from './http/rest.ts';
import { mountMcp } from './mcp/index.ts';
import { mountOpenApi } from './openapi/index.ts';
import { mountPreviewPage } from './web/serve.ts';
import { mountDocsPages } from './web/docs.ts';
import { mountDocsSite } from './web/docs-site.ts';
import { healthzDrainingGate, mountOperatorEndpoints } from './http/operator.ts';
import { OPERATIONS, type Operation } from './operations/index.ts';
import type { Services } from './runtime/services.ts';

/** The route a request matched (`/v1/tasks/:task_id`, never the id itself), `other` for none (404s). */
function routeOf(c: Context<AppEnv>): string {
  const route = routePath(c, -1);
  return route === '*' || route === '/*' ? 'other' : route;
}

function accessLog(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const { metrics } = c.get('services');
    const operation = routeOf(c);
    const status = c.res.status;
    metrics.requests.inc({ operation, status });
    if (status === 429 || status === 503) metrics.refusals.inc({ operation, status });
    if (operation === '/v1/ask' && c.req.method === 'POST') metrics.askSeconds.observe({ status }, (performance.now() - started) / 1000);
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

export function createApp(services: Services, ops: readonly Operation[] = OPERATIONS): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Outermost, so every reply (an error's, a 404's) goes only once its request's body is read or dropped.
  app.use('*', settleUnreadBody());
  app.use('*', async (c, next) => {
    c.set('services', services);
    await next();
  });
  app.use('*', requestId(), clientAddress(services.config.trustProxy), accessLog());

  // While the process drains, /healthz answers 503 before its operation runs (host/http/operator.ts).
  app.use('/healthz', healthzDrainingGate());
  const methodsByPath = mountOperations(app, ops);
  // GET /readyz and GET /metrics (host/http/operator.ts).
  mountOperatorEndpoints(app);
  // The same operations as MCP tools and as an OpenAPI document (docs/reference/mcp.md).
  mountMcp(app, ops);
  mountOpenApi(app, ops);

  // The in-browser preview page at / and the files it loads (host/web/serve.ts).
  mountPreviewPage(app);
  // The pages Problem types and {keys_url} link to (host/web/docs.ts).
  mountDocsPages(app);
  // /docs: the API reference from /openapi.json, and the guides and reference of docs/ (host/web/docs-site.ts).
  mountDocsSite(app);

  app.notFound(notFound((path) => methodsByPath.get(path) ?? []));
  app.onError(onError);
  return app;
}
