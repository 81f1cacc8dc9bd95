// Fits for an ask: one per (outcome, positive values, outcome_is_desirable) on the record
// (docs/reference/ask.md#fits), cached by fit key in the store (docs/reference/ask.md#data, survives restarts) and run once
// even when asks race (single flight in this process; across nodes, fit-claim.ts). The model_ref is a
// hash of core, record and fit key, and of the
// namespace inside one (docs/reference/ask.md#namespace); each ask gives the caller's link at least model_ttl_days more.
//
// docs/guides/overload.md: what a workspace sees never depends on another workspace's asks. The computation is shared
// (the same bytes and question give the same model, so a fit another workspace already ran is reused),
// but cache, fits_run and billing are per workspace (and namespace): the first ask of a fit under a
// model_ref is a `miss` with fits_run 1 and bills the fit as if it ran; later ones are hits. Such an ask
// also takes as long as the fit took when it ran (FitOutcome.holdMs, held in ask.ts), and it runs as
// a task like any cold ask, so neither its timing nor its admission tells it apart from a fit run for it.
import { encodeTable, fitEncoded, type ProgressListener } from '../../engine/index.ts';
import type { OpContext } from '../../runtime/services.ts';
import type { CachedFit, FitCache } from '../../runtime/fit-cache.ts';
import { runFitOnce } from './fit-claim.ts';
import { RunAsTask } from '../../runtime/tasks.ts';
import { packHeldLogits, packHeldOut } from './held-out.ts';
import {
  fitKeyOf,
  fitOutcomeOf,
  metaOf,
  modelRefOf,
  namespacedRef,
  encodeOptionsOf,
  type FitOutcome,
  type FitRequest,
  type StoredMeta,
} from '../../core/fit-outcome.ts';

export { fitKeyOf, modelRefOf, type FitOutcome, type FitRequest } from '../../core/fit-outcome.ts';

/** Where the model an ask yields lives (docs/reference/ask.md#namespace) and how long it lives at least (3.2 model_ttl_days). */
export interface ModelLife {
  /** '' = the workspace's own models. */
  namespace: string;
  ttlMs: number;
  /**
   * Read links from the store, never this process's memo of them: a task (the request thread sent it
   * because the link was missing or gone, so another process's memo may be stale: deleted, expired).
   */
  freshLinks?: boolean;
}

/**
 * An ask asked within this long of its link's stored expiry writes nothing: the link is not renewed on
 * every ask (a cached ask stays free of writes), so an answer's model_expires_at may be up to this much
 * short of now + model_ttl_days.
 */
export const LINK_RENEW_SLACK_MS = 60 * 60 * 1000;
/** How long this process trusts the expiry it last wrote or read before reading the link again (another process may have deleted it). */
export const LINK_MEMO_MS = 10_000;

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

/**
 * The fit for `req` as this workspace (and namespace) sees it: its own (hit), one that exists taken over
 * (miss), or run now, once across asks, threads and nodes (miss).
 */
export async function obtainFit(
  ctx: OpContext,
  req: FitRequest,
  life: ModelLife,
  onProgress?: ProgressListener,
  opts: ObtainOptions = {},
): Promise<FitOutcome> {
  const { engine } = ctx.services;
  const fitKey = fitKeyOf(engine.coreHash, req);
  const fitRef = modelRefOf(engine.coreHash, req.recordHash, fitKey);
  const modelRef = namespacedRef(fitRef, life.namespace);
  const workspace = ctx.caller!.workspaceId;
  // only the request thread's quick attempt trusts the memo of links (a cached ask stays free of reads)
  if (!opts.quick) life = { ...life, freshLinks: true };
  // docs/reference/limits.md#cost Cost: samples are free; any other answered fit is billed once the workspace holds it (linked)
  const bill = opts.sample !== true;
  const stored = await cachedFit(ctx, fitKey);
  if (stored) {
    if (await hasLiveLink(ctx, workspace, modelRef, fitRef, life)) return linked(ctx, stored, modelRef, life, 'hit', bill);
    if (opts.sample) return takeOver(ctx, stored, modelRef, life, 0, bill);
    if (opts.quick) throw new RunAsTask('the fit is new to this workspace', `${workspace}/${modelRef}`);
    return takeOver(ctx, stored, modelRef, life, stored.out.fitMs ?? 0, bill);
  }
  if (opts.quick) throw new RunAsTask('the fit has not run', fitKey);
  const { inFlight } = cachesOf(ctx);
  let running = inFlight.get(fitKey);
  const mine = !running;
  const own: { outcome?: Promise<FitOutcome> } = {};
  if (!running) {
    running = runFitOnce(
      ctx,
      fitKey,
      async () => {
        const fit = await runAndStore(ctx, req, fitKey, fitRef, onProgress);
        // This call's link (its miss, billed) is made while the fit's claim is still held: an ask of the same
        // workspace waiting on another node takes the stored fit only once the claim is free (fit-claim.ts), so
        // it finds this link and is a hit. Linking after the release let it find the fit but not yet the link:
        // both asks said fits_run 1, and the workspace was billed twice for one fit.
        own.outcome = linked(ctx, fit, modelRef, life, 'miss', bill);
        await own.outcome;
        return fit;
      },
      () => cachedFit(ctx, fitKey),
    ).finally(() => inFlight.delete(fitKey));
    inFlight.set(fitKey, running);
  }
  const cached = await running;
  // Run here for this call: this workspace's miss, with the fit's own time already spent.
  if (mine && cached.out.ran) return own.outcome ?? linked(ctx, cached, modelRef, life, 'miss', bill);
  // Another ask (here, or on another node) ran it: a hit when that was this workspace's, else its first.
  if (await hasLiveLink(ctx, workspace, modelRef, fitRef, life)) return linked(ctx, cached, modelRef, life, 'hit', bill);
  return takeOver(ctx, cached, modelRef, life, cached.out.fitMs ?? 0, bill);
}

/**
 * The caller's link made or renewed, and the fit as this call reports it. A miss of an answered fit is billed
 * here (docs/reference/limits.md#cost Cost), written at once after the link: an ask stopped after this point (its node shutting down
 * mid-answer) resumes as a hit and bills nothing more, and one stopped before it bills when it resumes, so a
 * fit is billed once either way. Counting it only when the ask ended lost the count of an ask stopped between
 * the two, and never billed a fit whose ask then failed (its next ask being a hit).
 */
async function linked(
  ctx: OpContext,
  fit: CachedFit,
  modelRef: string,
  life: ModelLife,
  cache: 'hit' | 'miss',
  bill: boolean,
): Promise<FitOutcome> {
  const modelExpiresAt = await linkModel(ctx, fit, modelRef, life);
  if (cache === 'miss' && bill && fit.out.state === 'answered') {
    const { usage, now } = ctx.services;
    usage.add(ctx.caller!.workspaceId, 'fit', 1, now(), life.namespace);
    await usage.flush();
  }
  return { ...fit.out, modelRef, modelExpiresAt, cache, ran: cache === 'miss', holdMs: 0 };
}

/**
 * Whether the workspace already holds this fit: a live link to `modelRef` (one read unless seen lately), or
 * to the same fit in another of its namespaces (its computation is the workspace's own either way).
 */
async function hasLiveLink(ctx: OpContext, workspace: string, modelRef: string, fitRef: string, life: ModelLife): Promise<boolean> {
  const known = life.freshLinks ? undefined : cachesOf(ctx).linked.get(`${workspace}/${modelRef}`);
  if (known !== undefined && ctx.services.now() - known.seenAt < LINK_MEMO_MS) return true;
  // a deleted or expired link is gone: asking the record again makes the model anew (billed as a fit)
  return ctx.services.store.hasLiveFitLink(workspace, fitRef, ctx.services.now());
}

/**
 * This workspace's first ask of a fit that exists: link it, and answer as the fit's own run would (a
 * miss, fits_run 1, billed), held for as long as the fit took. Two such asks at once: the second waits
 * for the first and is then a hit, as it would be had the fit run for the first.
 */
async function takeOver(
  ctx: OpContext,
  fit: CachedFit,
  modelRef: string,
  life: ModelLife,
  holdMs: number,
  bill: boolean,
): Promise<FitOutcome> {
  const { linking } = cachesOf(ctx);
  const key = `${ctx.caller!.workspaceId}/${modelRef}`;
  const first = linking.get(key);
  if (first) {
    await first.catch(() => undefined);
    return linked(ctx, fit, modelRef, life, 'hit', bill);
  }
  const link = (async (): Promise<FitOutcome> => ({ ...(await linked(ctx, fit, modelRef, life, 'miss', bill)), holdMs }))().finally(() =>
    linking.delete(key),
  );
  linking.set(key, link);
  return link;
}

const cachesOf = (ctx: OpContext): FitCache => ctx.services.fitCache;

/** A stored fit by its key, kept parsed in memory once read; null when not stored (or deleted). */
export async function cachedFit(ctx: OpContext, fitKey: string): Promise<CachedFit | null> {
  const { recentFits } = cachesOf(ctx);
  const known = recentFits.get(fitKey);
  if (known) return known;
  const stored = await ctx.services.store.getModelByFitKey(fitKey);
  if (!stored) return null;
  const meta = JSON.parse(stored.meta) as StoredMeta;
  const cached: CachedFit = {
    out: fitOutcomeOf(fitKey, stored.model_ref, meta, stored.bytes, 'hit', false),
    meta,
    bytes: stored.bytes,
    recordHash: stored.record_hash,
  };
  recentFits.set(fitKey, cached, weightOf(stored.bytes));
  return cached;
}
const weightOf = (bytes: Uint8Array) => Math.max(1024, bytes.length);

/**
 * Gives the caller's workspace (in the namespace) the model_ref, living at least life.ttlMs from now;
 * a deleted link comes back (re-asking the record makes the model again) and a fit whose bytes were
 * deleted is stored again. Returns the link's expiry.
 */
async function linkModel(ctx: OpContext, fit: CachedFit, modelRef: string, life: ModelLife): Promise<number | null> {
  const { linked } = cachesOf(ctx);
  const workspace = ctx.caller!.workspaceId;
  const now = ctx.services.now();
  const want = now + life.ttlMs;
  const key = `${workspace}/${modelRef}`;
  const known = life.freshLinks ? undefined : linked.get(key);
  const longEnough = (expiresAt: number) => expiresAt >= want - LINK_RENEW_SLACK_MS;
  if (known !== undefined && now - known.seenAt < LINK_MEMO_MS && longEnough(known.expiresAt)) return known.expiresAt;
  {
    // Not seen by this process lately: read it (one read) before deciding to write.
    const link = await ctx.services.store.getModelLink(workspace, modelRef);
    if (link && link.deleted_at === null && link.fit_key !== null && link.expires_at !== null && longEnough(link.expires_at)) {
      linked.set(key, { expiresAt: link.expires_at, seenAt: now });
      return link.expires_at;
    }
  }
  const rec = await ctx.services.store.putModel({
    model_ref: modelRef,
    workspace_id: workspace,
    namespace: life.namespace,
    fit_ref: fit.out.modelRef,
    fit_key: fit.out.fitKey,
    record_hash: fit.recordHash,
    bytes: fit.bytes,
    meta: JSON.stringify(fit.meta),
    created_at: now,
    expires_at: want,
  });
  if (rec.expires_at !== null) linked.set(key, { expiresAt: rec.expires_at, seenAt: now });
  return rec.expires_at;
}

async function runAndStore(
  ctx: OpContext,
  req: FitRequest,
  fitKey: string,
  fitRef: string,
  onProgress?: ProgressListener,
): Promise<CachedFit> {
  const { store, pool, now } = ctx.services;
  const started = performance.now();
  const encoded = encodeTable(req.table, encodeOptionsOf(req));
  // The encoded arrays are not read after the fit: they move to the fit's worker (a million rows: ~100 MB).
  const res = await fitEncoded(encoded, pool, onProgress, { give: true });
  const d = res.diagnostics;
  const meta = metaOf(res, req, {
    // docs/reference/outcomes.md#drift: a later refit_of evaluates the older model on these same held-out rows
    held_out: packHeldOut(d.rowSplit),
    ...(res.quality.validation_scheme === 'entity_hash_folds' ? { held_out_logits: packHeldLogits(d.rowSplit, d.heldLogits) } : {}),
  });
  // How long encoding and fitting took: another workspace's first ask of this fit takes as long.
  meta.fit_ms = Math.round(performance.now() - started);
  const bytes = res.model ? res.model.toBytes() : new Uint8Array(0);
  // The fit itself (no link: linkModel gives the caller's workspace and namespace its ref).
  await store.putFit({
    model_ref: fitRef,
    fit_key: fitKey,
    record_hash: req.recordHash,
    bytes,
    meta: JSON.stringify(meta),
    created_at: now(),
  });
  const cached: CachedFit = { out: fitOutcomeOf(fitKey, fitRef, meta, bytes, 'miss', true), meta, bytes, recordHash: req.recordHash };
  cachesOf(ctx).recentFits.set(fitKey, cached, weightOf(bytes));
  return cached;
}
