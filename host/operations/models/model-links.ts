// A caller's models by model_ref inside its namespace (docs/reference/ask.md#namespace), with the problems of docs/reference/errors.md#codes:
// 404 model_ref_missing for a ref this namespace was never given (another namespace's or workspace's
// included, answered exactly alike), 410 model_deleted and, where the model must still serve, 410
// model_expired.
import { ServiceError } from '../../errors.ts';
import type { ModelLink, ModelRecord } from '../../store/index.ts';
import type { OpContext } from '../../runtime/services.ts';

export const DAY_MS = 86_400_000;
/** docs/reference/models.md#lifetime: model_ttl_days defaults to 90. */
export const DEFAULT_MODEL_TTL_DAYS = 90;

/** The namespace as stored ('' = the workspace's own) from the wire's optional field. */
export function namespaceOf(namespace: string | undefined): string {
  return namespace ?? '';
}

/** The namespace as answered (decision: the workspace's own is null). */
export function wireNamespace(namespace: string): string | null {
  return namespace === '' ? null : namespace;
}

/**
 * What the caller needs the model for: `serve` (score, extend) refuses an expired model too; `record`
 * (outcome reports, attestations, evidence, drift, refit_of) takes an expired one, since outcomes arrive
 * after a model served; `delete` takes a deleted one (a repeat gives the same result, docs/reference/models.md#delete).
 */
export type ModelUse = 'serve' | 'record' | 'delete';

export interface LinkOptions {
  field?: string;
  use: ModelUse;
}

function where(namespace: string): string {
  return namespace === '' ? 'outside any namespace' : `in namespace ${namespace}`;
}

/** The caller's link to `modelRef` in `namespace`, or the docs/reference/errors.md#codes problem. */
export async function requireLink(ctx: OpContext, modelRef: string, namespace: string, opts: LinkOptions): Promise<ModelLink> {
  const field = opts.field ?? 'model_ref';
  const link = await ctx.services.store.getModelLink(ctx.caller!.workspaceId, modelRef);
  // The same answer whether the ref exists in another namespace or workspace or nowhere (decision 4.4).
  if (!link || link.namespace !== namespace) {
    throw new ServiceError('model_ref_missing', `${field}: ${modelRef} is not a model_ref this workspace was given ${where(namespace)}`, {
      field,
    });
  }
  if (link.deleted_at !== null && opts.use !== 'delete') {
    throw new ServiceError(
      'model_deleted',
      `${field}: ${modelRef} was deleted at ${new Date(link.deleted_at).toISOString()}; it answers nothing and takes no reports`,
      { field },
    );
  }
  if (opts.use === 'serve' && link.expires_at !== null && link.expires_at <= ctx.services.now()) {
    throw new ServiceError(
      'model_expired',
      `${field}: ${modelRef} expired at ${new Date(link.expires_at).toISOString()} and can no longer score or be extended`,
      { field },
    );
  }
  return link;
}

/** The link and its fit (bytes and meta); a link whose fit is gone answers as deleted. */
export async function requireModel(ctx: OpContext, modelRef: string, namespace: string, opts: LinkOptions): Promise<ModelRecord> {
  const link = await requireLink(ctx, modelRef, namespace, opts);
  const rec = await ctx.services.store.getModelByRef(ctx.caller!.workspaceId, modelRef);
  if (!rec) {
    const field = opts.field ?? 'model_ref';
    throw new ServiceError('model_deleted', `${field}: the fit of ${link.model_ref} is no longer stored`, { field });
  }
  return rec;
}

/** docs/reference/ask.md#answer model_expires_at: ISO 8601 UTC, or null when the link has none. */
export function expiresIso(at: number | null | undefined): string | null {
  return at === null || at === undefined ? null : new Date(at).toISOString();
}
