// Resolves the ask's record (docs/reference/ask.md#data) into a table and the content hash of the exact bytes it came
// as: inline rows (their JSON), inline csv (its text), a sample (its file) or a stored dataset.
import { ServiceError } from '../../errors.ts';
import { parseCsv, requireDataRows } from '../../table/csv.ts';
import { rowsToTable } from '../../table/rows.ts';
import { contentHash } from '../../table/hash.ts';
import type { RawTable } from '../../table/types.ts';
import type { AskData } from '../../schemas/index.ts';
import { getSample, loadSampleCsv } from '../../../samples/catalog.ts';
import type { OpContext } from '../../runtime/services.ts';
import { loadStoredRecord, REQUEST_THREAD_READ_CELLS } from '../datasets/read.ts';
import { testKeyRefusal, unknownSample } from '../datasets/errors.ts';
import { fetchedCsvText, fetchRecord, parseFetchedCsv } from '../datasets/fetch.ts';
import { RunAsTask } from '../../runtime/tasks.ts';

export interface ResolvedRecord {
  table: RawTable;
  contentHash: string;
  /** The stored dataset or sample asked about (absent for inline data). */
  datasetId?: string;
  isSample: boolean;
}

const SAMPLE_PREFIX = 'sample:';
// Sample files never change while the service runs: parse each once.
const sampleRecords = new Map<string, { table: RawTable; contentHash: string }>();

export function isSampleId(id: string): boolean {
  return id.startsWith(SAMPLE_PREFIX);
}

/** docs/reference/auth.md#test-keys: a test key works on sample datasets only (so not on rows scored by model_ref without data). */
export function assertKeyMayUse(ctx: OpContext, data: AskData | undefined): void {
  if (ctx.caller?.mode !== 'test') return;
  if (data?.dataset_id !== undefined && isSampleId(data.dataset_id)) return;
  throw testKeyRefusal(ctx, 'a test key works on sample datasets only (data.dataset_id "sample:<name>"), not on your own data');
}

/**
 * `quick` (the request thread, ask.ts): a download, or a stored dataset too large to read there,
 * throws RunAsTask instead (docs/guides/overload.md: reading a large record belongs to a task thread).
 */
export async function resolveRecord(ctx: OpContext, data: AskData, opts: { quick?: boolean } = {}): Promise<ResolvedRecord> {
  // An inline record larger than the request thread reads of a stored one is read in the task too: its
  // hash, table and plan cost the request thread more than its JSON did, and a task's admission refuses
  // it at once when the workspace or the server is busy.
  if (opts.quick && inlineCells(data) > REQUEST_THREAD_READ_CELLS) throw new RunAsTask('the inline record is large');
  if (data.rows !== undefined) {
    const bytes = JSON.stringify(data.rows);
    return { table: rowsToTable(data.rows, 'data.rows'), contentHash: contentHash(bytes), isSample: false };
  }
  if (data.csv !== undefined) {
    return {
      table: requireDataRows(parseCsv(data.csv, { field: 'data.csv' }), 'data.csv'),
      contentHash: contentHash(data.csv),
      isSample: false,
    };
  }
  if (data.dataset_id !== undefined) {
    const id = data.dataset_id;
    if (isSampleId(id)) {
      const sample = getSample(id.slice(SAMPLE_PREFIX.length));
      if (!sample) throw unknownSample(id, 'data.dataset_id');
      let parsed = sampleRecords.get(sample.name);
      if (!parsed) {
        const csv = loadSampleCsv(sample.name);
        parsed = { table: parseCsv(csv, { field: 'data.dataset_id' }), contentHash: contentHash(csv) };
        sampleRecords.set(sample.name, parsed);
      }
      return { ...parsed, datasetId: id, isSample: true };
    }
    const stored = await loadStoredRecord(ctx, id, 'data.dataset_id', opts);
    return { ...stored, datasetId: id, isSample: false };
  }
  // data.fetch_url (the schema guarantees exactly one source)
  if (opts.quick) throw new RunAsTask('the record is downloaded');
  // docs/reference/datasets.md#formats: a gzip CSV or Parquet download is read as the CSV it holds (or renders to), and hashed so
  const fetched = await fetchRecord(ctx, data.fetch_url!, data.fetch_headers ?? {}, 'data.fetch_url');
  const csv = await fetchedCsvText(fetched, 'data.fetch_url', ctx.services.config);
  return {
    table: requireDataRows(parseFetchedCsv(csv, 'data.fetch_url'), 'data.fetch_url'),
    contentHash: contentHash(csv),
    isSample: false,
  };
}

/** About how many cells an inline record holds (rows x columns of its first row; CSV: characters / 4). */
function inlineCells(data: AskData): number {
  if (data.rows !== undefined) {
    const first = data.rows[0];
    return data.rows.length * (first && typeof first === 'object' ? Object.keys(first).length : 1);
  }
  return data.csv !== undefined ? data.csv.length / 4 : 0;
}
