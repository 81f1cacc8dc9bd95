// The fits of this process kept in memory (ask/fits.ts obtains and stores them): recent fits parsed, the
// expiry each workspace's link was last given, and the fits running now. One per running service.
import { WeightedLru } from '../lib/lru.ts';
import type { FitOutcome, StoredMeta } from '../core/fit-outcome.ts';

/** A fit kept in memory: what answers need, and what re-linking needs (its meta and bytes). */
export interface CachedFit {
  /** modelRef is the fit's own ref (no namespace). */
  out: FitOutcome;
  meta: StoredMeta;
  bytes: Uint8Array;
  recordHash: string;
}

/**
 * Fits are immutable once stored: the recent ones stay parsed in memory (weighed by model bytes), the
 * expiry each workspace's link was last given is remembered (so a cached ask writes nothing), and a fit
 * running now is shared by the asks that want it. One per running service.
 */
export class FitCache {
  readonly recentFits = new WeightedLru<string, CachedFit>(256 * 1024 * 1024);
  /** `${workspace}/${model_ref}` -> the link's stored expiry (epoch ms) and when this process last saw it. */
  readonly linked = new WeightedLru<string, { expiresAt: number; seenAt: number }>(200_000);
  readonly inFlight = new Map<string, Promise<CachedFit>>();
  /** Workspaces being given a fit now (`${workspace}/${model_ref}`), so two of its asks at once bill it once. */
  readonly linking = new Map<string, Promise<FitOutcome>>();

  /** After svc_extend_model / svc_delete_model: the link's expiry as now stored (null: forget it), the fit gone. */
  updateLink(workspace: string, modelRef: string, expiresAt: number | null, now: number, fitKeyRemoved: string | null = null): void {
    if (expiresAt === null) this.linked.delete(`${workspace}/${modelRef}`);
    else this.linked.set(`${workspace}/${modelRef}`, { expiresAt, seenAt: now });
    if (fitKeyRemoved !== null) this.recentFits.delete(fitKeyRemoved);
  }
}
