// JSON-RPC "Invalid params": a tools/call whose params are not {name: string, arguments?: object}
// is answered -32602 "Invalid params" with our Problem (code, field, remedy) in `error.data` before the SDK
// sees it; any other request whose params the SDK's schemas refuse (it answers -32603 "Internal error" with
// a raw issue list) gets the same -32602 with its Problem instead. Arguments the operation refuses stay
// isError tool results carrying the Problem, so an agent reads both the same way.
import { ServiceError, toProblem, type Problem } from '../errors.ts';

/** JSON-RPC 2.0: invalid method parameter(s). */
export const INVALID_PARAMS = -32602;

export interface JsonRpcError {
  jsonrpc: '2.0';
  id: string | number | null;
  error: { code: number; message: string; data: Problem };
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** What is wrong with a tools/call's params (a ServiceError naming the field), or null when they are well formed. */
export function toolCallParamsProblem(params: unknown, toolNames: ReadonlySet<string>): ServiceError | null {
  const tools = 'tools/list names them';
  if (!isObject(params)) {
    return new ServiceError('invalid_request', 'params: must be an object {name, arguments}', {
      field: 'params',
      remedy: `Send params as {"name": "<tool>", "arguments": {...}}; ${tools}.`,
    });
  }
  const { name, arguments: args } = params;
  if (typeof name !== 'string' || name === '') {
    return new ServiceError('invalid_request', `params.name: must be the name of a tool, got ${describe(name)}`, {
      field: 'params.name',
      remedy: `Name the tool in params.name; ${tools}.`,
    });
  }
  if (!toolNames.has(name)) {
    return new ServiceError('invalid_request', `params.name: unknown tool ${JSON.stringify(name)}`, {
      field: 'params.name',
      remedy: `Call one of the tools tools/list names (svc_describe first).`,
    });
  }
  if (args !== undefined && !isObject(args)) {
    return new ServiceError('invalid_request', `params.arguments: must be an object (the tool's input), got ${describe(args)}`, {
      field: 'params.arguments',
      remedy: `Send the tool's input as an object in params.arguments, as its inputSchema describes (tools/list).`,
    });
  }
  return null;
}

function describe(x: unknown): string {
  if (x === undefined) return 'nothing';
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'an array';
  return typeof x;
}

/**
 * The -32602 reply to a single JSON-RPC tools/call message whose params are malformed, or null for
 * anything else (other methods, notifications, batches and well-formed calls go to the SDK).
 */
export function invalidToolCall(body: unknown, toolNames: ReadonlySet<string>, baseUrl: string, requestId: string): JsonRpcError | null {
  if (!isObject(body) || body.method !== 'tools/call' || !('id' in body)) return null;
  const id = body.id;
  if (typeof id !== 'string' && typeof id !== 'number') return null;
  const problem = toolCallParamsProblem(body.params, toolNames);
  if (!problem) return null;
  // JSON-RPC's message for the code, then what was wrong (clients often show only the message).
  const message = `Invalid params: ${problem.message}`;
  return { jsonrpc: '2.0', id, error: { code: INVALID_PARAMS, message, data: toProblem(problem, baseUrl, requestId) } };
}

interface SchemaIssue {
  path: Array<string | number>;
  message: string;
}

/** The SDK's -32603 message when its schema check refused a request: a JSON list of issues, or null. */
function schemaIssues(message: unknown): SchemaIssue[] | null {
  if (typeof message !== 'string' || !message.trimStart().startsWith('[')) return null;
  try {
    const issues = JSON.parse(message) as unknown;
    if (!Array.isArray(issues) || issues.length === 0) return null;
    return issues.every((i) => isObject(i) && Array.isArray(i.path) && typeof i.message === 'string') ? (issues as SchemaIssue[]) : null;
  } catch {
    return null;
  }
}

/**
 * A JSON-RPC reply message with the SDK's schema refusal (-32603 with an issue list) turned into -32602
 * Invalid params carrying the Problem of its first issue; any other message is returned as it is.
 */
export function withInvalidParams(
  message: unknown,
  methodOf: (id: unknown) => string | undefined,
  baseUrl: string,
  requestId: string,
): unknown {
  if (!isObject(message) || !isObject(message.error) || message.error.code !== -32603) return message;
  const issues = schemaIssues(message.error.message);
  if (!issues) return message;
  const first = issues[0];
  const field = first.path.map(String).join('.') || 'params';
  const method = methodOf(message.id);
  const problem = new ServiceError('invalid_request', `${field}: ${first.message.replace(/^Invalid input: /, '')}`, {
    field,
    remedy: `Send ${method ? `${method}'s` : 'the'} params as the MCP specification defines them (a client library does this for you).`,
  });
  return {
    ...message,
    error: { code: INVALID_PARAMS, message: `Invalid params: ${problem.message}`, data: toProblem(problem, baseUrl, requestId) },
  };
}
