// Fits for an ask: one per (outcome, positive values, outcome_is_desirable) on the record
// (spec 4.1 rule 1), cached by fit key in the store (spec 2.1, survives restarts) and run once
// even when asks race (single flight). The model_ref is a hash of core, record and fit key.
//
// Issue 21: what a workspace sees never depends on another workspace's asks. The computation is shared
// (the same bytes and question give the same model, so a fit another workspace already ran is reused),
// but cache, fits_run and billing are per workspace: the first ask of a fit in a workspace is a `miss`
// with fits_run 1 and bills the fit as if it ran; later ones are hits. Such an ask also takes as long as
// the fit took when it ran (FitOutcome.holdMs, held in ask/index.ts), and it runs as a task like any
// cold ask, so neither its timing nor its admission tells it apart from a fit run for it alone.
import { encodeTable, fitEncoded } from '../../engine/index.ts';
import type { OpContext } from '../../services.ts';
import { WeightedLru } from '../lru.ts';
import { RunAsTask } from '../tasks.ts';
import { packHeldLogits, packHeldOut } from './held-out.ts';
import { fitKeyOf, fitOutcomeOf, metaOf, modelRefOf, type FitOutcome, type FitRequest, type StoredMeta } from './fit-outcome.ts';

export { fitKeyOf, modelRefOf, type FitOutcome, type FitRequest } from './fit-outcome.ts';

export interface ObtainOptions {
  /**
   * The request thread's attempt: only a fit this workspace already has is used; anything else (a fit to
   * run, or one to take over from another workspace) throws RunAsTask so the call runs as a task.
   */
  quick?: boolean;
  /**
   * A sample (sample:<name>): its bytes are public and every workspace may ask it, so taking over its fit
   * tells nothing of any tenant; the first ask of it in a workspace is still a miss (fits_run 1, free), but
   * is neither held nor sent to a task.
   */
  sample?: boolean;
}

/** The fit for `req` as this workspace sees it: its own (hit), reused from the store (miss), or run now (miss). */
export async function obtainFit(ctx: OpContext, req: FitRequest, opts: ObtainOptions = {}): Promise<FitOutcome> {
  const { engine } = ctx.services;
  const fitKey = fitKeyOf(engine.coreHash, req);
  const modelRef = modelRefOf(engine.coreHash, req.recordHash, fitKey);
  const workspace = ctx.caller!.workspaceId;
  const stored = await knownFit(ctx, fitKey);
  if (stored) {
    if (await isLinked(ctx, workspace, fitKey, modelRef)) return { ...stored, cache: 'hit', ran: false };
    if (opts.sample) return takeOver(ctx, workspace, fitKey, { ...stored, fitMs: 0 });
    if (opts.quick) throw new RunAsTask('the fit is new to this workspace', `${workspace}/${fitKey}`);
    return takeOver(ctx, workspace, fitKey, stored);
  }
  if (opts.quick) throw new RunAsTask('the fit has not run', fitKey);
  const { inFlight } = cachesOf(ctx);
  let running = inFlight.get(fitKey);
  const mine = !running;
  if (!running) {
    running = runAndStore(ctx, req, fitKey, modelRef).finally(() => inFlight.delete(fitKey));
    inFlight.set(fitKey, running);
  }
  const out = await running;
  if (mine) return out;
  // Another ask ran it: a hit when that ask was this workspace's, else this workspace's first (a miss).
  if (await isLinked(ctx, workspace, fitKey, modelRef)) return { ...out, cache: 'hit', ran: false, holdMs: 0 };
  return takeOver(ctx, workspace, fitKey, out);
}

/**
 * Fits are immutable once stored: the recent ones stay parsed in memory (weighed by model bytes), which
 * workspaces were already given a model_ref is remembered (so a cached ask writes nothing), and a fit
 * running now is shared by the asks that want it. One per running service (and per task thread).
 */
export class FitCache {
  readonly recentFits = new WeightedLru<string, FitOutcome>(256 * 1024 * 1024);
  readonly linked = new WeightedLru<string, true>(200_000);
  readonly inFlight = new Map<string, Promise<FitOutcome>>();
  /** Workspaces being given a fit now, so two of its asks at once bill it once. */
  readonly linking = new Map<string, Promise<FitOutcome>>();
}
const cachesOf = (ctx: OpContext): FitCache => ctx.services.fitCache;
const weightOf = (bytes: Uint8Array) => Math.max(1024, bytes.length);

/** The stored fit of `fitKey` (kept parsed once read), or null when it never ran. */
async function knownFit(ctx: OpContext, fitKey: string): Promise<FitOutcome | null> {
  const { recentFits } = cachesOf(ctx);
  const known = recentFits.get(fitKey);
  if (known) return known;
  const cached = await ctx.services.store.getModelByFitKey(fitKey);
  if (!cached) return null;
  const out = fitOutcomeOf(fitKey, cached.model_ref, JSON.parse(cached.meta) as StoredMeta, cached.bytes, 'hit', false);
  recentFits.set(fitKey, out, weightOf(cached.bytes));
  return out;
}

/** Whether this workspace was already given this fit (its link in the store). */
async function isLinked(ctx: OpContext, workspace: string, fitKey: string, modelRef: string): Promise<boolean> {
  const { linked } = cachesOf(ctx);
  const key = `${workspace}/${fitKey}`;
  if (linked.get(key)) return true;
  if (!(await ctx.services.store.getModelByRef(workspace, modelRef))) return false;
  linked.set(key, true);
  return true;
}

/**
 * This workspace's first ask of a fit that exists: link it, and answer as the fit's own run would (a
 * miss, fits_run 1, billed), held for as long as the fit took. Two such asks at once: the second waits
 * for the first and is then a hit, as it would be had the fit run for the first.
 */
async function takeOver(ctx: OpContext, workspace: string, fitKey: string, fit: FitOutcome): Promise<FitOutcome> {
  const { linking, linked } = cachesOf(ctx);
  const key = `${workspace}/${fitKey}`;
  const first = linking.get(key);
  if (first) {
    await first;
    return { ...fit, cache: 'hit', ran: false, holdMs: 0 };
  }
  const link = (async (): Promise<FitOutcome> => {
    const rec = await ctx.services.store.getModelByFitKey(fitKey);
    if (rec) await ctx.services.store.putModel({ ...rec, workspace_id: workspace, created_at: ctx.services.now() });
    linked.set(key, true);
    return { ...fit, cache: 'miss', ran: true, holdMs: fit.fitMs ?? 0 };
  })().finally(() => linking.delete(key));
  linking.set(key, link);
  return link;
}

async function runAndStore(ctx: OpContext, req: FitRequest, fitKey: string, modelRef: string): Promise<FitOutcome> {
  const { store, now } = ctx.services;
  const started = performance.now();
  const encoded = encodeTable(req.table, {
    entityColumn: req.entityColumn,
    outcomeColumn: req.outcome.column,
    outcome: req.outcome.values,
    timeColumn: req.timeColumn,
  });
  // In this thread: a task thread runs one task at a time, and the request thread never fits.
  const res = await fitEncoded(encoded);
  const d = res.diagnostics;
  const meta = metaOf(res, req, {
    // spec 3.4: a later refit_of evaluates the older model on these same held-out rows
    held_out: packHeldOut(d.rowSplit),
    ...(res.quality.validation_scheme === 'entity_hash_folds' ? { held_out_logits: packHeldLogits(d.rowSplit, d.heldLogits) } : {}),
  });
  // How long encoding and fitting took: another workspace's first ask of this fit takes as long (issue 21).
  meta.fit_ms = Math.round(performance.now() - started);
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
  recentFits.set(fitKey, { ...out, cache: 'hit', ran: false }, weightOf(bytes));
  return out;
}
