// docs/reference/datasets.md#add-dataset: svc_add_dataset's request and reply (also the reply of an upload).
import * as v from 'valibot';
import {
  CsvSchema,
  DatasetIdSchema,
  FILENAME_PATTERN,
  FetchHeadersSchema,
  FetchUrlSchema,
  RowsSchema,
  exactlyOneSource,
} from '../../schemas/common.ts';
import { Integer } from '../../schemas/replies.ts';

/** docs/reference/datasets.md#add-dataset: one piece of a dataset; exactly one of rows, csv, fetch_url, upload; no other properties. */
export const AddDatasetRequestSchema = v.pipe(
  v.strictObject({
    dataset_id: v.optional(DatasetIdSchema),
    rows: v.optional(RowsSchema),
    csv: v.optional(CsvSchema),
    fetch_url: v.optional(FetchUrlSchema),
    fetch_headers: v.optional(FetchHeadersSchema),
    upload: v.optional(v.literal(true)),
    filename: v.optional(v.pipe(v.string(), v.regex(FILENAME_PATTERN))),
  }),
  exactlyOneSource(['rows', 'csv', 'fetch_url', 'upload']),
);

/** docs/reference/datasets.md#add-dataset: rows and columns are required but may be null. */
export const AddDatasetResponseSchema = v.looseObject({
  dataset_id: DatasetIdSchema,
  status: v.picklist(['ready', 'open', 'awaiting_upload']),
  rows: v.nullable(Integer),
  columns: v.nullable(v.array(v.string())),
  upload_url: v.optional(v.string()),
  upload_method: v.optional(v.literal('PUT')),
  expires_in: v.optional(Integer),
  upload_pieces_url: v.optional(v.string()),
  upload_page: v.optional(v.string()),
  upload_page_expires_in: v.optional(Integer),
});

export type AddDatasetRequest = v.InferOutput<typeof AddDatasetRequestSchema>;
export type AddDatasetResponse = v.InferOutput<typeof AddDatasetResponseSchema>;
