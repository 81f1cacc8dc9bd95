// svc_delete_dataset (docs/reference/datasets.md#delete, docs/reference/datasets.md#lifecycle): removes the rows now; the dataset_id stops working.
import { parseBody } from '../../schemas/index.ts';
import type { OpContext, OpResult } from '../../runtime/services.ts';
import { refuseTestKey, requireCaller, unknownDataset } from './errors.ts';
import { EXAMPLE_IDS, FREE, type Operation } from '../operation.ts';
import { DeleteDatasetRequestSchema, type DeleteDatasetResponse, DeleteDatasetResponseSchema } from './delete-dataset.schema.ts';

export async function runDeleteDataset(ctx: OpContext, raw: unknown): Promise<OpResult<DeleteDatasetResponse>> {
  const { dataset_id } = parseBody(DeleteDatasetRequestSchema, raw);
  const caller = requireCaller(ctx);
  refuseTestKey(ctx, caller);
  // docs/reference/auth.md#workspaces: another workspace's dataset answers exactly like one that never existed.
  if (!(await ctx.services.store.deleteDataset(caller.workspaceId, dataset_id))) throw unknownDataset(dataset_id, 'dataset_id');
  // docs/reference/datasets.md#delete "removes the rows now": the parsed copy kept for asks goes too, not only the stored one.
  ctx.services.records.forget(dataset_id);
  return { status: 200, body: { dataset_id, deleted: true } };
}

/** svc_delete_dataset: the one declaration the transports, MCP, OpenAPI and tasks are derived from. */
export const deleteDatasetOperation: Operation = {
  name: 'svc_delete_dataset',
  resource: 'datasets',
  path: '/v1/delete-dataset',
  method: 'POST',
  auth: 'key',
  body: 'json',
  title: 'Delete a stored dataset',
  description:
    'Deletes a stored dataset now: its rows are removed and the dataset_id stops working. Cannot be undone. Fitted ' +
    'models hold no rows and are not affected. Returns {dataset_id, deleted: true}; an unknown or already deleted id ' +
    'is unknown_dataset. ' +
    FREE,
  request: DeleteDatasetRequestSchema,
  response: DeleteDatasetResponseSchema,
  status: 200,
  pending: false,
  // docs/reference/mcp.md: destructive. Deleting twice changes nothing more.
  tool: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  examples: [{ name: 'dataset', summary: 'The dataset_id svc_add_dataset gave', value: { dataset_id: EXAMPLE_IDS.datasetId } }],
  run: runDeleteDataset,
};
