// Fits for an ask: one per (outcome, positive values, outcome_is_desirable) on the record
// (spec 4.1 rule 1), cached by fit key in the store (spec 2.1, survives restarts) and run once
// even when asks race (single flight). The model_ref is a hash of core, record and fit key.
import { encodeTable, fitEncoded, type ProgressListener } from '../../engine/index.ts';
import type { OpContext } from '../../services.ts';
import { WeightedLru } from '../lru.ts';
import { packHeldLogits, packHeldOut } from './held-out.ts';
import { fitKeyOf, fitOutcomeOf, metaOf, modelRefOf, type FitOutcome, type FitRequest, type StoredMeta } from './fit-outcome.ts';

export { fitKeyOf, modelRefOf, type FitOutcome, type FitRequest } from './fit-outcome.ts';

/**
 * The fit for `req`: from the store when present, else run once (concurrent callers share it). `onProgress`
 * hears the engine's progress when this call runs the fit (spec 2.12).
 */
export async function obtainFit(ctx: OpContext, req: FitRequest, onProgress?: ProgressListener): Promise<FitOutcome> {
  const { engine, store } = ctx.services;
  const fitKey = fitKeyOf(engine.coreHash, req);
  const modelRef = modelRefOf(engine.coreHash, req.recordHash, fitKey);
  const workspace = ctx.caller!.workspaceId;
  const { recentFits, inFlight } = cachesOf(ctx);
  const known = recentFits.get(fitKey);
  if (known) {
    await linkWorkspace(ctx, fitKey, workspace);
    return { ...known, cache: 'hit', ran: false };
  }
  const cached = await store.getModelByFitKey(fitKey);
  if (cached) {
    await linkWorkspace(ctx, fitKey, workspace);
    const out = fitOutcomeOf(fitKey, cached.model_ref, JSON.parse(cached.meta) as StoredMeta, cached.bytes, 'hit', false);
    recentFits.set(fitKey, out, weightOf(cached.bytes));
    return out;
  }
  let running = inFlight.get(fitKey);
  const mine = !running;
  if (!running) {
    running = runAndStore(ctx, req, fitKey, modelRef, onProgress).finally(() => inFlight.delete(fitKey));
    inFlight.set(fitKey, running);
  }
  const out = await running;
  if (!mine) {
    // Another ask ran it: link this workspace too; this call ran nothing.
    await linkWorkspace(ctx, fitKey, workspace);
    return { ...out, ran: false, cache: 'hit' };
  }
  return out;
}

/**
 * Fits are immutable once stored: the recent ones stay parsed in memory (weighed by model bytes), which
 * workspaces were already given a model_ref is remembered (so a cached ask writes nothing), and a fit
 * running now is shared by the asks that want it. One per running service.
 */
export class FitCache {
  readonly recentFits = new WeightedLru<string, FitOutcome>(256 * 1024 * 1024);
  readonly linked = new WeightedLru<string, true>(200_000);
  readonly inFlight = new Map<string, Promise<FitOutcome>>();
}
const cachesOf = (ctx: OpContext): FitCache => ctx.services.fitCache;
const weightOf = (bytes: Uint8Array) => Math.max(1024, bytes.length);

async function linkWorkspace(ctx: OpContext, fitKey: string, workspace: string): Promise<void> {
  const { linked } = cachesOf(ctx);
  const key = `${workspace}/${fitKey}`;
  if (linked.get(key)) return;
  const rec = await ctx.services.store.getModelByFitKey(fitKey);
  if (rec) await ctx.services.store.putModel({ ...rec, workspace_id: workspace, created_at: ctx.services.now() });
  linked.set(key, true);
}

async function runAndStore(
  ctx: OpContext,
  req: FitRequest,
  fitKey: string,
  modelRef: string,
  onProgress?: ProgressListener,
): Promise<FitOutcome> {
  const { store, pool, now } = ctx.services;
  const encoded = encodeTable(req.table, {
    entityColumn: req.entityColumn,
    outcomeColumn: req.outcome.column,
    outcome: req.outcome.values,
    timeColumn: req.timeColumn,
  });
  const res = await fitEncoded(encoded, pool, onProgress);
  const d = res.diagnostics;
  const meta = metaOf(res, req, {
    // spec 3.4: a later refit_of evaluates the older model on these same held-out rows
    held_out: packHeldOut(d.rowSplit),
    ...(res.quality.validation_scheme === 'entity_hash_folds' ? { held_out_logits: packHeldLogits(d.rowSplit, d.heldLogits) } : {}),
  });
  const bytes = res.model ? res.model.toBytes() : new Uint8Array(0);
  await store.putModel({
    model_ref: modelRef,
    workspace_id: ctx.caller!.workspaceId,
    fit_key: fitKey,
    record_hash: req.recordHash,
    bytes,
    meta: JSON.stringify(meta),
    created_at: now(),
  });
  const { linked, recentFits } = cachesOf(ctx);
  linked.set(`${ctx.caller!.workspaceId}/${fitKey}`, true);
  const out = fitOutcomeOf(fitKey, modelRef, meta, bytes, 'miss', true);
  recentFits.set(fitKey, out, weightOf(bytes));
  return out;
}
