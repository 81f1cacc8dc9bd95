// A low-level MCP Server for one HTTP request (stateless: any number of clients, any process answers):
// tools/list from the prepared catalog, tools/call through callTool.
import { ProtocolError, ProtocolErrorCode, Server, type Tool } from '@modelcontextprotocol/server';
import type { Operation } from '../operations/operation.ts';
import { callTool, type CallContext } from './call.ts';
import { INTERFACE_VERSION } from '../core/contract.ts';

export interface ToolCatalog {
  tools: Tool[];
  byName: Map<string, Operation>;
}

/** docs/reference/README.md#conventions: the interface description version. */
export const SERVER_INFO = { name: 'outcome-question-service', version: INTERFACE_VERSION } as const;

const INSTRUCTIONS =
  'Answers typed yes/no-outcome questions about cases from a record of past cases, or refuses when nothing holds. ' +
  'Call svc_describe first: it lists question types, limits, prices and free samples, each with a ready ask for ' +
  'svc_ask. Without a key, register_agent returns a test key for the samples: send it as the HTTP header ' +
  "Authorization: Bearer <key> on later requests. Read each answer's state first (answered, refused, not_yet). A pending ask is followed with svc_poll. " +
  'Check a Verdict with svc_verify before acting on it.';

export function createMcpServer(catalog: ToolCatalog, cc: CallContext): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  // Listing needs no key: a client sees every tool, and a keyed tool called without one answers unauthorized.
  server.setRequestHandler('tools/list', async () => ({ tools: catalog.tools }));
  server.setRequestHandler('tools/call', async (request) => {
    const op = catalog.byName.get(request.params.name);
    // A single call naming no tool never gets here (params.ts answers it with the Problem); a batch might.
    // The message keeps the "MCP error <code>: " prefix the 1.x SDK added, so clients see the same bytes as before.
    if (!op) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `MCP error -32602: Unknown tool: ${request.params.name}`);
    return callTool(op, request.params.arguments, cc);
  });
  return server;
}
