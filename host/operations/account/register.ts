// register_agent (docs/reference/auth.md#test-keys): no key, no body; a new workspace and a test key that works on samples only.
import type { OpContext, OpResult } from '../../runtime/services.ts';
import { issueApiKey } from '../../runtime/keys.ts';
import { FREE, type Operation } from '../operation.ts';
import { RegisterResponseSchema } from './register.schema.ts';

export interface RegisterResponse {
  api_key: string;
  mode: 'test';
  note: string;
}

/** The body, if any, is ignored (docs/reference/auth.md#test-keys: no body schema). */
export async function runRegister(ctx: OpContext, _body?: unknown): Promise<OpResult<RegisterResponse>> {
  const { store, now, config } = ctx.services;
  // docs/reference/auth.md#test-keys, docs/reference/limits.md#limits: rate-limited per address.
  const limiter = ctx.services.limits.register;
  const decision = await limiter.take(ctx.clientAddress);
  if (!decision.allowed) throw limiter.refusal(decision, 'Too many registrations from this address');

  const workspace = await store.createWorkspace('registered agent', now());
  const { key } = await issueApiKey(store, { workspaceId: workspace.id, mode: 'test', now: now() });
  const note =
    'Keep this key: it is shown once. It is a test key and works on the sample datasets only ' +
    `(POST ${config.baseUrl}/v1/describe lists them, each with a ready ask). Get a live key at ${config.keysUrl}.`;
  return { status: 201, body: { api_key: key, mode: 'test', note }, headers: limiter.headers(decision) };
}

/** register_agent: the one declaration the transports, MCP, OpenAPI and tasks are derived from. */
export const registerOperation: Operation = {
  name: 'register_agent',
  resource: 'account',
  path: '/v1/agents/register',
  method: 'POST',
  auth: 'none',
  body: 'none',
  title: 'Get a test key',
  description:
    'Gets you a key when you have none: makes a new workspace and returns {api_key: "svck_test_...", mode: "test", ' +
    'note}. The key is shown once, so keep it. It works on the free sample datasets only (svc_describe lists them, ' +
    'each with a ready ask for svc_ask); a live key for your own data comes from the operator of this service. Over ' +
    'MCP a key is not a tool argument: send it as the HTTP header Authorization: Bearer <api_key> on later requests ' +
    '(reconnect your MCP client with that header). Each call makes another workspace and key, so call it once and ' +
    'reuse the key. Takes no arguments and needs no key. Rate-limited per client address, shared with POST ' +
    '/v1/agents/register (a rate_limited Problem carries retry_after_ms). ' +
    FREE,
  response: RegisterResponseSchema,
  status: 201,
  pending: false,
  // docs/reference/mcp.md names no hint for it: it writes (a workspace and a key), never deletes, each call makes a
  // new key (not idempotent), and it talks to nothing outside this service.
  tool: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  examples: [],
  run: runRegister,
};
