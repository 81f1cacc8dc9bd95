// svc_delete_dataset (spec 4.9, 3.3): removes the rows now; the dataset_id stops working.
import { DeleteDatasetRequestSchema, parseBody, type DeleteDatasetResponse } from '../../schemas/index.ts';
import type { OpContext, OpResult } from '../../services.ts';
import { refuseTestKey, requireCaller, unknownDataset } from './errors.ts';
import { forgetStoredRecord } from './read.ts';

export async function deleteDatasetOperation(ctx: OpContext, raw: unknown): Promise<OpResult<DeleteDatasetResponse>> {
  const { dataset_id } = parseBody(DeleteDatasetRequestSchema, raw);
  const caller = requireCaller(ctx);
  refuseTestKey(caller);
  // Spec 5.6: another workspace's dataset answers exactly like one that never existed.
  if (!(await ctx.services.store.deleteDataset(caller.workspaceId, dataset_id))) throw unknownDataset(dataset_id, 'dataset_id');
  // Spec 4.9 "removes the rows now": the parsed copy kept for asks goes too, not only the stored one.
  forgetStoredRecord(dataset_id);
  return { status: 200, body: { dataset_id, deleted: true } };
}
