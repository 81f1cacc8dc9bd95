// GET /openapi.json: the OpenAPI 3.1 document of the operations these routes serve, built on first use.
import type { Hono } from 'hono';
import type { AppEnv } from '../http/env.ts';
import { implementedOperations, type RouteLike } from '../operations/registry.ts';
import { buildOpenApi } from './document.ts';
import type { Json } from './json-schema.ts';

export const OPENAPI_PATH = '/openapi.json';

export function mountOpenApi(app: Hono<AppEnv>, routes: readonly RouteLike[]): void {
  let document: Json | undefined;
  app.get(OPENAPI_PATH, (c) => {
    document ??= buildOpenApi({ operations: implementedOperations(routes), routes, issuers: c.get('services').config.oauthIssuers });
    // The base URL can change after start (port 0), so servers is filled per request.
    const { openapi, jsonSchemaDialect, info, ...rest } = document;
    const body = { openapi, jsonSchemaDialect, info, servers: [{ url: c.get('services').config.baseUrl }], ...rest };
    return c.body(JSON.stringify(body), 200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' });
  });
}
