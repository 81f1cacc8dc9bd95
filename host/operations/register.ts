// register_agent (spec 4.12): no key, no body; a new workspace and a test key that works on samples only.
import type { OpContext, OpResult } from '../services.ts';
import { limitersOf } from '../http/rate-limit.ts';
import { issueApiKey } from './keys.ts';

export interface RegisterResponse {
  api_key: string;
  mode: 'test';
  note: string;
}

/** The body, if any, is ignored (spec 4.12: no body schema). */
export async function registerOperation(ctx: OpContext, _body?: unknown): Promise<OpResult<RegisterResponse>> {
  const { store, now, config } = ctx.services;
  // spec 4.12 / 8: rate-limited per address.
  const limiter = limitersOf(ctx.services).register;
  const decision = limiter.take(ctx.clientAddress);
  if (!decision.allowed) throw limiter.refusal(decision, 'Too many registrations from this address');

  const workspace = await store.createWorkspace('registered agent', now());
  const { key } = await issueApiKey(store, { workspaceId: workspace.id, mode: 'test', now: now() });
  const note =
    'Keep this key: it is shown once. It is a test key and works on the sample datasets only ' +
    `(POST ${config.baseUrl}/v1/describe lists them, each with a ready ask). Get a live key at ${config.keysUrl}.`;
  return { status: 201, body: { api_key: key, mode: 'test', note }, headers: limiter.headers(decision) };
}
