// svc_extend_model (docs/reference/models.md#extend): moves a live model's expiry to `days` from now, never earlier than it was. An expired model cannot
// be renewed (410 model_expired); a deleted one answers model_deleted.
import { parseBody } from '../../schemas/index.ts';
import type { OpContext, OpResult } from '../../runtime/services.ts';
import { DAY_MS, expiresIso, namespaceOf, requireLink } from './model-links.ts';
import { EXAMPLE_IDS, FREE, type Operation } from '../operation.ts';
import { ExtendModelRequestSchema, ExtendModelResponseSchema } from './extend-model.schema.ts';

async function runExtendModel(ctx: OpContext, raw: unknown): Promise<OpResult> {
  const req = parseBody(ExtendModelRequestSchema, raw);
  const ws = ctx.caller!.workspaceId;
  const now = ctx.services.now();
  await requireLink(ctx, req.model_ref, namespaceOf(req.namespace), { use: 'serve' });
  const asked = now + req.days * DAY_MS;
  // A delete between the check and here leaves nothing to extend: answered as the delete would be.
  if (!(await ctx.services.store.extendModelExpiry(ws, req.model_ref, asked))) {
    await requireLink(ctx, req.model_ref, namespaceOf(req.namespace), { use: 'serve' });
  }
  // Extending never shortens (docs/decisions/0064-extend-never-shortens.md): the expiry is the later one.
  const link = await requireLink(ctx, req.model_ref, namespaceOf(req.namespace), { use: 'serve' });
  ctx.services.fitCache.updateLink(ws, req.model_ref, link.expires_at, now);
  const kept = link.expires_at === null || link.expires_at > asked;
  const body: Record<string, unknown> = { model_ref: req.model_ref, model_expires_at: expiresIso(link.expires_at) };
  if (kept) {
    body.note =
      link.expires_at === null
        ? 'The model never expires; extending leaves it so.'
        : `The model already lives until ${expiresIso(link.expires_at)}, later than ${req.days} days from now; extending never shortens, so that expiry is kept (svc_delete_model retires a model sooner).`;
  }
  return { status: 200, body };
}

/** svc_extend_model: the one declaration the transports, MCP, OpenAPI and tasks are derived from. */
export const extendModelOperation: Operation = {
  name: 'svc_extend_model',
  resource: 'models',
  path: '/v1/extend-model',
  method: 'POST',
  auth: 'key',
  body: 'json',
  title: "Set a model's expiry",
  description:
    'Moves the expiry of a model (a model_ref an answered ask gave; send the namespace that ask named) to `days` (1 to 365) ' +
    'from now, so svc_ask can keep scoring new cases with it by model_ref. Never shortens: a model that already lives ' +
    'longer keeps its expiry, and the reply says so in `note`. Returns {model_ref, model_expires_at, note?}. An ' +
    'expired model cannot be renewed (model_expired): ask on the record again instead. Models hold cut points and ' +
    'category groupings, never rows. ' +
    FREE,
  request: ExtendModelRequestSchema,
  response: ExtendModelResponseSchema,
  status: 200,
  pending: false,
  // additions "Idempotent": svc_extend_model (sets expiry); it writes, so not read-only.
  tool: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  examples: [
    {
      name: 'extend',
      summary: 'Keep the model of an answered ask for 180 more days',
      value: { model_ref: EXAMPLE_IDS.modelRef, days: 180 },
    },
  ],
  run: runExtendModel,
};
