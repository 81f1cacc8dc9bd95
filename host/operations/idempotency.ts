// idempotency_key (spec 2.6, wire.md "Idempotency"): per workspace + operation + key, the same body
// within 24 hours gets the first reply again (no fit, no billing); a different body is refused.
import { createHash } from 'node:crypto';
import { ServiceError } from '../http/problem.ts';
import { canonicalJson } from '../signing/index.ts';
import type { OpContext, OpResult } from '../services.ts';
import { reviveProblem, storeProblem, type StoredProblem } from './problems.ts';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const IN_FLIGHT = 0; // status_code of a record whose first call has not replied yet
const WAIT_STEP_MS = 50;
const WAIT_MAX_MS = 60_000;

export function bodyHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

export async function withIdempotency(ctx: OpContext, operation: string, key: string, body: unknown, run: () => Promise<OpResult>): Promise<OpResult> {
  const { store, now } = ctx.services;
  const ws = ctx.caller!.workspaceId;
  const hash = bodyHash(body);
  const t = now();
  const put = await store.putIdempotency(
    { workspace_id: ws, operation, key, body_hash: hash, status_code: IN_FLIGHT, response: null, task_id: null, created_at: t },
    t - IDEMPOTENCY_TTL_MS,
  );
  if (!put.inserted) {
    if (put.record.body_hash !== hash) {
      throw new ServiceError('idempotency_key_reused', `idempotency_key ${JSON.stringify(key)} was used with a different body in the last 24 hours`, {
        field: 'idempotency_key',
      });
    }
    return replay(ctx, operation, key);
  }
  try {
    const result = await run();
    // A 202 was recorded by the task itself, which later replaces it with the final reply.
    if (result.status !== 202) await store.updateIdempotencyResponse(ws, operation, key, result.status, JSON.stringify(result.body));
    return result;
  } catch (err) {
    const problem = storeProblem(err);
    await store.updateIdempotencyResponse(ws, operation, key, reviveProblem(problem).status, JSON.stringify({ problem }));
    throw err;
  }
}

async function replay(ctx: OpContext, operation: string, key: string): Promise<OpResult> {
  const ws = ctx.caller!.workspaceId;
  for (let waited = 0; ; waited += WAIT_STEP_MS) {
    const rec = await ctx.services.store.getIdempotency(ws, operation, key);
    if (rec && rec.status_code !== IN_FLIGHT && rec.response !== null) {
      const body = JSON.parse(rec.response) as { problem?: StoredProblem };
      if (rec.status_code >= 400 && body.problem) throw reviveProblem(body.problem);
      return { status: rec.status_code, body, headers: { 'idempotent-replayed': 'true' } };
    }
    if (waited >= WAIT_MAX_MS) throw new ServiceError('engine_unavailable', 'the first call with this idempotency_key has not finished; retry shortly');
    await new Promise((r) => setTimeout(r, WAIT_STEP_MS));
  }
}
