// The MCP tool list (docs/reference/mcp.md): one tool per implemented operation, with its JSON Schemas converted
// from the same valibot schemas REST validates with, and its hints from the registry.
import type { Tool } from '@modelcontextprotocol/server';
import { ProblemSchema } from '../schemas/index.ts';
import type { Operation } from '../operations/operation.ts';
import { JSON_SCHEMA_DIALECT, hoistDefs, jsonSchemaOf, type Json } from '../openapi/json-schema.ts';

const NO_KEY = 'Needs no API key.';
const KEY =
  'Needs an API key: the MCP client sends the HTTP header Authorization: Bearer <key> (a test key from the register_agent tool works on samples).';

/** docs/reference/auth.md#test-keys: register_agent has no body schema; REST never reads its body, so MCP ignores its arguments. */
const NO_BODY_DESCRIPTION =
  'No arguments: this operation has no request body (docs/reference/auth.md#test-keys); any arguments given are ignored.';

/** The request schema, with the cross-field rules JSON Schema cannot hold written into its description. */
function inputSchemaOf(op: Operation): Tool['inputSchema'] {
  const schema = op.request
    ? jsonSchemaOf(op.request)
    : { $schema: JSON_SCHEMA_DIALECT, type: 'object', properties: {}, description: NO_BODY_DESCRIPTION };
  if (op.rules) schema.description = op.rules;
  return schema as Tool['inputSchema'];
}

/**
 * The reply, or the Problem an isError result carries: MCP clients check structuredContent against the
 * outputSchema whether or not the result is an error, so the schema admits both.
 */
function outputSchemaOf(op: Operation): Tool['outputSchema'] {
  const reply = hoistDefs(jsonSchemaOf(op.response!), 'reply', '#/$defs/');
  const problem = hoistDefs(jsonSchemaOf(ProblemSchema), 'problem', '#/$defs/');
  const defs = { ...reply.defs, ...problem.defs };
  return {
    $schema: JSON_SCHEMA_DIALECT,
    type: 'object',
    description: `The ${op.name} reply${op.pending ? ' (status done, or status pending with task_id)' : ''}; with isError, a Problem (RFC 9457).`,
    anyOf: [reply.schema, problem.schema],
    ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}),
  } as Tool['outputSchema'];
}

export function toolOf(op: Operation): Tool {
  const rules = op.rules ? ` ${op.rules}` : '';
  return {
    name: op.name,
    title: op.title,
    description: `${op.description}${rules} ${op.auth === 'key' ? KEY : NO_KEY}`,
    inputSchema: inputSchemaOf(op),
    outputSchema: outputSchemaOf(op),
    annotations: { title: op.title, ...op.tool },
  };
}

/** The tools of these operations, in spec order. */
export function toolsOf(ops: readonly Operation[]): { tools: Tool[]; byName: Map<string, Operation> } {
  return { tools: ops.map(toolOf), byName: new Map(ops.map((op) => [op.name, op])) };
}

export type { Json };
