// svc_delete_dataset's request and reply.
import * as v from 'valibot';
import { DatasetIdSchema } from '../../schemas/common.ts';

/** docs/reference/datasets.md#delete: delete a stored dataset now. */
export const DeleteDatasetRequestSchema = v.strictObject({ dataset_id: DatasetIdSchema });

export const DeleteDatasetResponseSchema = v.looseObject({ dataset_id: v.string(), deleted: v.literal(true) });

export type DeleteDatasetRequest = v.InferOutput<typeof DeleteDatasetRequestSchema>;
export type DeleteDatasetResponse = v.InferOutput<typeof DeleteDatasetResponseSchema>;
