// The MCP tool list (spec 4.13): one tool per implemented operation that is a tool, with its JSON
// Schemas converted from the same valibot schemas REST validates with, and its hints from the registry.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ProblemSchema } from '../schemas/index.ts';
import type { ImplementedOperation } from '../operations/registry.ts';
import { JSON_SCHEMA_DIALECT, hoistDefs, jsonSchemaOf, type Json } from '../openapi/json-schema.ts';

const NO_KEY = 'Needs no API key.';
const KEY = 'Needs an API key: the MCP client sends Authorization: Bearer <key> (a test key from POST /v1/agents/register works on samples).';

/** The request schema, with the cross-field rules JSON Schema cannot hold written into its description. */
function inputSchemaOf(op: ImplementedOperation): Tool['inputSchema'] {
  const schema = op.request ? jsonSchemaOf(op.request) : { $schema: JSON_SCHEMA_DIALECT, type: 'object', additionalProperties: false };
  if (op.rules) schema.description = op.rules;
  return schema as Tool['inputSchema'];
}

/**
 * The reply, or the Problem an isError result carries: MCP clients check structuredContent against the
 * outputSchema whether or not the result is an error, so the schema admits both.
 */
function outputSchemaOf(op: ImplementedOperation): Tool['outputSchema'] {
  const reply = hoistDefs(jsonSchemaOf(op.response), 'reply', '#/$defs/');
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

export function toolOf(op: ImplementedOperation): Tool {
  const hints = op.tool!;
  const rules = op.rules ? ` ${op.rules}` : '';
  return {
    name: op.name,
    title: op.title,
    description: `${op.description}${rules} ${op.auth === 'key' ? KEY : NO_KEY}`,
    inputSchema: inputSchemaOf(op),
    outputSchema: outputSchemaOf(op),
    annotations: { title: op.title, ...hints },
  };
}

/** The tools of these operations, in spec order (register_agent and other non-tools left out). */
export function toolsOf(ops: readonly ImplementedOperation[]): { tools: Tool[]; byName: Map<string, ImplementedOperation> } {
  const withTool = ops.filter((op) => op.tool !== null);
  return { tools: withTool.map(toolOf), byName: new Map(withTool.map((op) => [op.name, op])) };
}

export type { Json };
