// GET /openapi.json: the OpenAPI 3.1 document of the operation table, built on first use.
import type { Hono } from 'hono';
import type { AppEnv } from '../http/env.ts';
import type { Operation } from '../operations/operation.ts';
import { buildOpenApi } from './document.ts';
import type { Json } from './json-schema.ts';

export const OPENAPI_PATH = '/openapi.json';

export function mountOpenApi(app: Hono<AppEnv>, ops: readonly Operation[]): void {
  let document: Json | undefined;
  app.get(OPENAPI_PATH, (c) => {
    document ??= buildOpenApi({ operations: ops, issuers: c.get('services').config.oauthIssuers });
    // The base URL can change after start (port 0), so servers is filled per request.
    const { openapi, jsonSchemaDialect, info, ...rest } = document;
    const body = { openapi, jsonSchemaDialect, info, servers: [{ url: c.get('services').config.baseUrl }], ...rest };
    return c.body(JSON.stringify(body), 200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' });
  });
}
