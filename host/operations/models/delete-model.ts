// svc_delete_model (docs/reference/models.md#delete): from now on the ref answers nothing and takes no outcome reports,
// attestations or evidence; the model's bytes go (unless another namespace or workspace still holds the
// same fit); past records stay, and Verdicts made with it still verify. Repeats give the same result.
import { parseBody } from '../../schemas/index.ts';
import type { OpContext, OpResult } from '../../runtime/services.ts';
import { namespaceOf, requireLink } from './model-links.ts';
import { EXAMPLE_IDS, FREE, type Operation } from '../operation.ts';
import { DeleteModelRequestSchema, DeleteModelResponseSchema } from './delete-model.schema.ts';

async function runDeleteModel(ctx: OpContext, raw: unknown): Promise<OpResult> {
  // The write:outcomes capability is checked by the transport (the declaration's `scope`, docs/reference/auth.md#capabilities).
  const req = parseBody(DeleteModelRequestSchema, raw);
  const ws = ctx.caller!.workspaceId;
  const now = ctx.services.now();
  const link = await requireLink(ctx, req.model_ref, namespaceOf(req.namespace), { use: 'delete' });
  if (link.deleted_at === null) {
    const res = await ctx.services.store.deleteModel(ws, req.model_ref, now);
    ctx.services.fitCache.updateLink(ws, req.model_ref, null, now, res.fit_key_removed);
  }
  return { status: 200, body: { model_ref: req.model_ref, deleted: true } };
}

/** svc_delete_model: the one declaration the transports, MCP, OpenAPI and tasks are derived from. */
export const deleteModelOperation: Operation = {
  name: 'svc_delete_model',
  resource: 'models',
  path: '/v1/delete-model',
  method: 'POST',
  auth: 'key',
  body: 'json',
  scope: 'write:outcomes',
  title: 'Delete a model',
  description:
    'Deletes a model (a model_ref an answered ask gave, in the namespace that ask named): its bytes are removed and from ' +
    'then on the ref answers nothing (model_deleted) and takes no outcome reports, attestations or evidence. Past ' +
    'records stay and Verdicts made with it still verify. Asking on the record again fits a new model (billed as a ' +
    'fit). Repeats give the same result {model_ref, deleted: true}. Needs the write:outcomes capability. ' +
    FREE,
  request: DeleteModelRequestSchema,
  response: DeleteModelResponseSchema,
  status: 200,
  pending: false,
  // additions "Idempotent" and "Destructive": both deletes.
  tool: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  examples: [{ name: 'delete', summary: 'Delete the model of an answered ask', value: { model_ref: EXAMPLE_IDS.modelRef } }],
  run: runDeleteModel,
};
