// The add-dataset reply (spec 2.2, 4.2): dataset_id, status, rows, columns; upload fields when presigned.
import type { DatasetRecord } from '../../store/index.ts';
import { columnsOf } from '../../table/pieces.ts';
import type { AddDatasetResponse } from './add-dataset.schema.ts';

export function datasetReply(d: DatasetRecord): AddDatasetResponse {
  if (d.status === 'awaiting_upload') return { dataset_id: d.id, status: 'awaiting_upload', rows: null, columns: null };
  // A sealed dataset is never answered here (appends to it are refused); the spec names no sealed status.
  const status = d.status === 'open' ? 'open' : 'ready';
  const columns = columnsOf(d.columns);
  // spec 3.8: a gzip or Parquet upload is passed through: its rows and columns are null
  return { dataset_id: d.id, status, rows: columns === null ? null : d.row_count, columns };
}
