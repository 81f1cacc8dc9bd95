// POST /mcp (spec 4.13): MCP streamable HTTP, stateless — a fresh server and transport per request, JSON
// replies, the body read like every REST body (size limit, problem+json); GET and DELETE answer 405.
import type { Hono } from 'hono';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { AppEnv } from '../http/env.ts';
import { jsonBody } from '../http/body.ts';
import { ServiceError } from '../errors.ts';
import { toolOperations, type Operation } from '../operations/index.ts';
import { createMcpServer, type ToolCatalog } from './server.ts';
import { toolsOf } from './tools.ts';
import { invalidToolCall } from './params.ts';

export const MCP_PATH = '/mcp';

/** Mounts /mcp for the operations of the table that are tools; the catalog is built on first use and kept. */
export function mountMcp(app: Hono<AppEnv>, ops: readonly Operation[]): void {
  let catalog: ToolCatalog | undefined;
  app.post(MCP_PATH, jsonBody('required', { guard: false }), async (c) => {
    catalog ??= toolsOf(toolOperations(ops));
    const invalid = invalidToolCall(c.get('body'), new Set(catalog.byName.keys()), c.get('services').config.baseUrl, c.get('requestId'));
    if (invalid) return c.json(invalid, 200);
    const server = createMcpServer(catalog, {
      services: c.get('services'),
      requestId: c.get('requestId'),
      clientAddress: c.get('clientAddress'),
      authorization: c.req.header('authorization'),
    });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      // JSON mode: the Response is complete when this resolves, so both can close at once.
      return await transport.handleRequest(c.req.raw, { parsedBody: c.get('body') });
    } finally {
      await transport.close();
      await server.close();
    }
  });
  // Stateless: no server-initiated stream (GET) and no session to end (DELETE); MCP allows 405 for both.
  app.on(['GET', 'DELETE'], [MCP_PATH], () => {
    throw new ServiceError('method_not_allowed', `Only POST is served on ${MCP_PATH} (stateless streamable HTTP).`, {
      headers: { allow: 'POST' },
    });
  });
}
