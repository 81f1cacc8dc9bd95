// The add-dataset reply (docs/reference/datasets.md#lifecycle, docs/reference/datasets.md#add-dataset): dataset_id, status, rows, columns; upload fields when presigned.
import type { DatasetRecord, UploadFormat } from '../../store/index.ts';
import { columnsOf } from '../../table/pieces.ts';
import type { AddDatasetResponse } from './add-dataset.schema.ts';

/** `format`: the file the dataset was stored from, when known (an upload or a download). */
export function datasetReply(d: DatasetRecord, format: UploadFormat = 'csv'): AddDatasetResponse {
  if (d.status === 'awaiting_upload') return { dataset_id: d.id, status: 'awaiting_upload', rows: null, columns: null };
  // A sealed dataset is never answered here (appends to it are refused); the spec names no sealed status.
  const status = d.status === 'open' ? 'open' : 'ready';
  const columns = columnsOf(d.columns);
  // docs/reference/datasets.md#formats: a gzip or Parquet upload is passed through: its rows and columns are null in the reply (the
  // dataset keeps them, counted when it was stored, to choose where an ask reads it: read.ts)
  if (format !== 'csv' || columns === null) return { dataset_id: d.id, status, rows: null, columns: null };
  return { dataset_id: d.id, status, rows: d.row_count, columns };
}
