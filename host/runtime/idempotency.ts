// idempotency_key (docs/reference/README.md#idempotency): per workspace + operation + key, the same body
// within 24 hours gets the first reply again (no fit, no billing); a different body is refused.
//
// States of an idempotency record (status_code 0 = in flight; every move is one conditional statement):
//
//   from        event                                        to            by
//   (none)      first call with the key                      in flight     putIdempotency, under this process's lease
//   in flight   the call replies (not 202)                   answered      settleIdempotency (only the lease owner)
//   in flight   the call goes pending                        pending(202)  createTask, in the task's transaction
//   pending     the task finishes                            answered      settleIdempotency from the task
//   in flight   the service stops                            in flight, no lease   releaseIdempotency
//   in flight   lease lapsed or released, a retry arrives    in flight     takeOverIdempotency (the retry runs the call)
//   any         the call or task fails with a retryable 5xx  (gone)        settleIdempotency: the next retry runs again
//   any         24 hours after creation                      (gone)        the sweeper, or the next put replaces it
//
// A retry of an answered key replays the stored reply (a stored 4xx problem is thrown again); of one in
// flight under a live lease it waits for the reply, then answers 409 idempotency_in_progress.
import { createHash } from 'node:crypto';
import { reviveProblem, ServiceError, storeProblem, type StoredProblem } from '../errors.ts';
import { canonicalJson } from '../signing/index.ts';
import { resultJson, type OpContext, type OpResult } from './services.ts';
import { OWNER } from './leases.ts';
import type { Services } from './services.ts';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const IN_FLIGHT = 0; // status_code of a record whose first call has not replied yet
const WAIT_STEP_MS = 50;
const WAIT_MAX_MS = 60_000;

export function bodyHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

/**
 * The first call with a key records itself in flight under this process's lease (renewed like a
 * task's), so a retry waits for its reply; if that process died before replying, the lease runs out
 * and the retry takes the record over and runs the call itself, instead of waiting on it for 24 hours.
 */
export async function withIdempotency(
  ctx: OpContext,
  operation: string,
  key: string,
  body: unknown,
  run: () => Promise<OpResult>,
): Promise<OpResult> {
  const { store, now } = ctx.services;
  const ws = ctx.caller!.workspaceId;
  const hash = bodyHash(body);
  const t = now();
  const put = await store.putIdempotency(
    {
      workspace_id: ws,
      operation,
      key,
      body_hash: hash,
      status_code: IN_FLIGHT,
      response: null,
      task_id: null,
      lease_owner: OWNER,
      lease_until: t + ctx.services.config.taskLeaseMs,
      created_at: t,
    },
    t - IDEMPOTENCY_TTL_MS,
  );
  if (put.inserted) return runHolding(ctx, operation, key, run);
  if (put.record.body_hash !== hash) {
    throw new ServiceError(
      'idempotency_key_reused',
      `idempotency_key ${JSON.stringify(key)} was used with a different body in the last 24 hours`,
      {
        field: 'idempotency_key',
      },
    );
  }
  return replayOrTakeOver(ctx, operation, key, hash, () => withIdempotency(ctx, operation, key, body, run), run);
}

/** Runs the call while holding the in-flight record, then stores its reply there. */
async function runHolding(ctx: OpContext, operation: string, key: string, run: () => Promise<OpResult>): Promise<OpResult> {
  const { services } = ctx;
  const { store, now } = services;
  const ws = ctx.caller!.workspaceId;
  const held = services.leases.hold(
    () => store.renewIdempotencyLease(ws, operation, key, OWNER, now() + services.config.taskLeaseMs),
    () => store.releaseIdempotency(ws, operation, key, OWNER),
  );
  const slot = { operation, key };
  try {
    const result = await run();
    // A 202 was recorded with its task in one transaction (tasks.ts); the task stores the final reply.
    if (result.status !== 202 && !held.abandoned) {
      const text = resultJson(result); // written once: stored here and sent as the reply
      await settleIdempotency(services, ws, slot, result.status, text, { owner: OWNER });
      return { ...result, bodyJson: () => text, bodyBytes: undefined };
    }
    return result;
  } catch (err) {
    // On shutdown the record was released, not answered: the retry runs the call again.
    if (!held.abandoned) {
      const problem = storeProblem(err);
      await settleIdempotency(services, ws, slot, reviveProblem(problem).status, JSON.stringify({ problem }), { owner: OWNER });
    }
    throw err;
  } finally {
    held.done();
  }
}

async function replayOrTakeOver(
  ctx: OpContext,
  operation: string,
  key: string,
  hash: string,
  again: () => Promise<OpResult>,
  run: () => Promise<OpResult>,
): Promise<OpResult> {
  const { services } = ctx;
  const ws = ctx.caller!.workspaceId;
  for (let waited = 0; ; waited += WAIT_STEP_MS) {
    const rec = await services.store.getIdempotency(ws, operation, key);
    // Gone (swept at 24 hours between our reads): the key is free again.
    if (!rec) return again();
    if (rec.status_code !== IN_FLIGHT && rec.response !== null) {
      const body = JSON.parse(rec.response) as { problem?: StoredProblem };
      if (rec.status_code >= 400 && body.problem) throw reviveProblem(body.problem);
      return { status: rec.status_code, body, headers: { 'idempotent-replayed': 'true' } };
    }
    const t = services.now();
    if (rec.lease_until === null || rec.lease_until < t) {
      // The first call's process stopped renewing (killed, or shut down and released it).
      const lease = { owner: OWNER, now: t, lease_ms: services.config.taskLeaseMs };
      if (await services.store.takeOverIdempotency(ws, operation, key, hash, lease)) return runHolding(ctx, operation, key, run);
      continue; // another retry won it; wait for that one's reply
    }
    if (waited >= WAIT_MAX_MS) {
      throw new ServiceError('idempotency_in_progress', `the first call with idempotency_key ${JSON.stringify(key)} is still running`, {
        field: 'idempotency_key',
        extra: { retry_after_ms: 1000 },
        headers: { 'Retry-After': '1' },
      });
    }
    await new Promise((r) => setTimeout(r, WAIT_STEP_MS));
  }
}

/**
 * The one settling rule for a call's idempotency record, whoever finishes the call (this request or its
 * task): a reply or a 4xx problem is the answer to that body and is stored; a 5xx says "retry", and keeping
 * it would answer every retry with the same failure for 24 hours, so the record is let go and the next
 * retry runs the call again. `final` keeps even a 5xx (a task given up after repeated crashes would crash
 * again). With `owner`, nothing changes unless that owner still holds the in-flight record (a first call
 * that lost its lease to a retry leaves the record to that retry).
 */
export async function settleIdempotency(
  services: Services,
  workspaceId: string,
  slot: { operation: string; key: string },
  status: number,
  text: string,
  opts: { owner?: string; final?: boolean } = {},
): Promise<void> {
  const { store } = services;
  if (status >= 500 && !opts.final) {
    if (opts.owner !== undefined) await store.releaseIdempotency(workspaceId, slot.operation, slot.key, opts.owner);
    else await store.deleteIdempotency(workspaceId, slot.operation, slot.key);
    return;
  }
  await store.updateIdempotencyResponse(workspaceId, slot.operation, slot.key, status, text, opts.owner);
}
