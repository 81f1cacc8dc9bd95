// Spec 4.2 and 4.9: requests that store and delete a dataset.
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

/** Spec 4.2: one piece of a dataset; exactly one of rows, csv, fetch_url, upload; no other properties. */
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

/** Spec 4.9: delete a stored dataset now. */
export const DeleteDatasetRequestSchema = v.strictObject({ dataset_id: DatasetIdSchema });

export type AddDatasetRequest = v.InferOutput<typeof AddDatasetRequestSchema>;
export type DeleteDatasetRequest = v.InferOutput<typeof DeleteDatasetRequestSchema>;
