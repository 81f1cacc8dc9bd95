// One tools/call: authenticate like REST when the operation needs a key, count it against the workspace's
// rate limit, run the same operation function the REST route runs, and shape the reply as a tool result.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { assertScope, authenticate } from '../runtime/auth.ts';
import { ServiceError, answerFor, serviceErrorOf, toProblem } from '../errors.ts';
import { bodyOnlyRequest, type Operation } from '../operations/operation.ts';
import { assertPlainJson } from '../schemas/json-guard.ts';
import type { Caller, OpContext, Services } from '../runtime/services.ts';

/** What the HTTP request that carried the JSON-RPC message tells every call in it. */
export interface CallContext {
  services: Services;
  requestId: string;
  clientAddress: string;
  /** The Authorization header of the HTTP request, as sent. */
  authorization: string | undefined;
}

/**
 * What an agent on MCP can do about a missing or unknown key: it cannot call a REST route, but it can call
 * the register_agent tool, and its client sends the key as a header (docs/reference/mcp.md).
 */
export const MCP_UNAUTHORIZED_REMEDY =
  'Call the register_agent tool (no key needed) for a test key that works on the samples, or ask the operator for a live key; ' +
  'then set it as the HTTP header Authorization: Bearer <key> in your MCP client configuration for this server and reconnect. ' +
  'A key is never a tool argument.';

/** docs/reference/auth.md: the same key check as the REST bearer middleware, then the same per-workspace limit. */
async function admit(cc: CallContext): Promise<Caller> {
  const caller = await authenticate(cc.services, cc.authorization).catch((err: unknown) => {
    const e = serviceErrorOf(err);
    if (e?.code !== 'unauthorized') throw err;
    throw new ServiceError('unauthorized', e.message, { headers: e.headers, extra: e.extra, remedy: MCP_UNAUTHORIZED_REMEDY });
  });
  await cc.services.limits.admitWorkspace(caller.workspaceId);
  return caller;
}

/** keyIfGiven: the caller of a key of this service, else none (a no-key tool works whatever the header says). */
async function callerIfAny(cc: CallContext): Promise<Caller | null> {
  if (cc.authorization === undefined) return null;
  try {
    return await authenticate(cc.services, cc.authorization);
  } catch (err) {
    if (serviceErrorOf(err)?.code === 'unauthorized') return null;
    throw err;
  }
}

function resultOf(body: unknown, isError: boolean): CallToolResult {
  const result: CallToolResult = {
    content: [{ type: 'text', text: JSON.stringify(body) }],
    structuredContent: body as Record<string, unknown>,
  };
  if (isError) result.isError = true;
  return result;
}

/** The same mapping as REST (host/errors.ts answerFor): the Problem (docs/reference/errors.md#problem) as an isError result. */
function failureOf(err: unknown, op: Operation, cc: CallContext): CallToolResult {
  const answered = answerFor(err, cc.services.log, { request_id: cc.requestId, tool: op.name });
  return resultOf(toProblem(answered, cc.services.config.baseUrl, cc.requestId), true);
}

/**
 * Runs `op` with the tool arguments as its body (absent arguments are the empty object). A 202 pending
 * ask is a result like any other: the pending object, not an error (docs/reference/tasks.md#pending).
 */
export async function callTool(op: Operation, args: unknown, cc: CallContext): Promise<CallToolResult> {
  try {
    const caller = op.auth === 'key' ? await admit(cc) : op.keyIfGiven ? await callerIfAny(cc) : null;
    if (op.scope) assertScope(caller, op.scope);
    // The arguments are the operation's body: the same rule as a REST body (host/http/body.ts).
    assertPlainJson(args ?? {});
    const ctx: OpContext = { services: cc.services, caller, requestId: cc.requestId, clientAddress: cc.clientAddress };
    const result = await op.run(ctx, args ?? {}, bodyOnlyRequest(undefined, 'mcp'));
    return resultOf(result.body, false);
  } catch (err) {
    return failureOf(err, op, cc);
  }
}
