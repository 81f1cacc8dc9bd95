// POST /mcp (docs/reference/mcp.md): MCP streamable HTTP, stateless — a fresh server and transport per request, JSON
// replies, the body read like every REST body (size limit, problem+json); GET and DELETE answer 405.
import type { Hono } from 'hono';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { AppEnv } from '../http/env.ts';
import { jsonBody } from '../http/body.ts';
import { ServiceError } from '../errors.ts';
import { toolOperations, type Operation } from '../operations/index.ts';
import { createMcpServer, type ToolCatalog } from './server.ts';
import { toolsOf } from './tools.ts';
import { invalidToolCall, withInvalidParams } from './params.ts';

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
      const response = await transport.handleRequest(c.req.raw, { parsedBody: c.get('body') });
      return invalidParamsOf(response, c.get('body'), c.get('services').config.baseUrl, c.get('requestId'));
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

/** The SDK's reply with its schema refusals (-32603) answered as -32602 Invalid params (params.ts). */
async function invalidParamsOf(response: Response, body: unknown, baseUrl: string, requestId: string): Promise<Response> {
  if (!/^application\/json/.test(response.headers.get('content-type') ?? '')) return response;
  const text = await response.text();
  let reply: unknown;
  try {
    reply = JSON.parse(text);
  } catch {
    return new Response(text, { status: response.status, headers: response.headers });
  }
  const requests = (Array.isArray(body) ? body : [body]) as Array<{ id?: unknown; method?: unknown }>;
  const methodOf = (id: unknown) => {
    const m = requests.find((r) => typeof r === 'object' && r !== null && r.id === id)?.method;
    return typeof m === 'string' ? m : undefined;
  };
  const fix = (m: unknown) => withInvalidParams(m, methodOf, baseUrl, requestId);
  const fixed = Array.isArray(reply) ? reply.map(fix) : fix(reply);
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify(fixed), { status: response.status, headers });
}
