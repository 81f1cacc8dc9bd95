// docs/reference/datasets.md#formats: what a file is, from its first bytes: gzip (1f 8b) and Parquet (PAR1; its end is checked when it
// is read) are recognised by content, via upload or fetch_url; anything else is taken as CSV.
import type { UploadFormat } from '../../store/index.ts';
import { startsLikeParquet } from '../../table/parquet.ts';

export function detectFormat(head: Uint8Array): UploadFormat {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'gzip';
  if (head.length >= 4 && startsLikeParquet(head)) return 'parquet';
  return 'csv';
}

/** docs/reference/datasets.md#uploads: pieces of at most 4,000,000 bytes, at most 250 of them. */
export const PIECE_MAX_BYTES = 4_000_000;
export const PIECES_MAX = 250;
