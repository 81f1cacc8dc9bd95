// Parquet files read as CSV (spec 3.8: Parquet is recognised by `PAR1` at both ends and passed through):
// row group by row group through hyparquet, each rendered as canonical CSV text, so a Parquet record is
// read, hashed and fitted exactly as the CSV it renders to (README "Contract 1.1 decisions"). hyparquet is
// pure JavaScript with no dependencies; hyparquet-compressors adds the codecs beyond snappy (gzip, zstd,
// brotli, lz4) that writers such as polars and pyarrow use.
import { parquetMetadataAsync, parquetRead, type AsyncBuffer, type FileMetaData, type ParquetParsers } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

export type { AsyncBuffer } from 'hyparquet';

/** Why a file cannot be read as a table: corrupt, or a kind of column this service does not read. */
export class ParquetProblem extends Error {
  constructor(
    readonly kind: 'corrupt' | 'unsupported',
    message: string,
  ) {
    super(message);
    this.name = 'ParquetProblem';
  }
}

const MAGIC = [0x50, 0x41, 0x52, 0x31]; // "PAR1"
/** Rows rendered to one CSV chunk (a row group may hold a million). */
const ROWS_PER_CHUNK = 20_000;
const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
function isoDate(days: number): string {
  const d = new Date(days * 86_400_000);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}
const isoTime = (ms: number) => new Date(ms).toISOString();

/**
 * Values as the CSV will hold them: dates as YYYY-MM-DD, timestamps as ISO 8601 UTC, text (JSON too) as
 * it is; bytes that are not UTF-8 text are refused rather than guessed at.
 */
const PARSERS: Partial<ParquetParsers> = {
  dateFromDays: isoDate,
  timestampFromMilliseconds: (v) => isoTime(Number(v)),
  timestampFromMicroseconds: (v) => isoTime(Number(v / 1000n)),
  timestampFromNanoseconds: (v) => isoTime(Number(v / 1_000_000n)),
  stringFromBytes: (b) => (b == null ? b : fatalUtf8.decode(b)),
  jsonFromBytes: (b) => (b == null ? b : fatalUtf8.decode(b)),
};

/** True when the bytes begin with `PAR1` (the end is checked when the file is read). */
export function startsLikeParquet(head: Uint8Array): boolean {
  return MAGIC.every((b, i) => head[i] === b);
}

function quote(text: string): string {
  return /[",\r\n]|^[ \t]|[ \t]$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One value as canonical CSV (README "Contract 1.1 decisions"). */
function field(v: unknown, column: string): string {
  if (v === null || v === undefined) return '';
  switch (typeof v) {
    case 'string':
      return quote(v);
    case 'number':
      return Number.isFinite(v) ? String(v === 0 ? 0 : v) : ''; // -0 as 0; NaN and infinities are missing
    case 'bigint':
      return String(v);
    case 'boolean':
      return v ? 'true' : 'false';
  }
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? '' : v.toISOString();
  const what = v instanceof Uint8Array ? 'bytes that are not UTF-8 text' : 'nested values (a list, map or group)';
  throw new ParquetProblem(
    'unsupported',
    `Parquet column ${JSON.stringify(column)} holds ${what}; only flat columns of text, numbers, booleans, dates and times are read`,
  );
}

async function metadataOf(file: AsyncBuffer): Promise<FileMetaData> {
  if (file.byteLength < 12) throw new ParquetProblem('corrupt', `the file is ${file.byteLength} bytes, too short to be Parquet`);
  const tail = new Uint8Array(await file.slice(file.byteLength - 4));
  const head = new Uint8Array(await file.slice(0, 4));
  if (!startsLikeParquet(head) || !startsLikeParquet(tail))
    throw new ParquetProblem('corrupt', 'the file does not begin and end with PAR1');
  try {
    return await parquetMetadataAsync(file);
  } catch (err) {
    throw new ParquetProblem('corrupt', `its footer cannot be read (${(err as Error).message})`);
  }
}

function flatColumns(meta: FileMetaData): string[] {
  const [root, ...rest] = meta.schema;
  const names: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const el = rest[i];
    if ((el.num_children ?? 0) > 0 || el.repetition_type === 'REPEATED') {
      throw new ParquetProblem(
        'unsupported',
        `Parquet column ${JSON.stringify(el.name)} is nested (a list, map or group); only flat columns are read`,
      );
    }
    names.push(el.name);
  }
  if (names.length !== (root?.num_children ?? 0)) throw new ParquetProblem('corrupt', 'its schema does not add up');
  if (names.length === 0) throw new ParquetProblem('corrupt', 'it has no columns');
  return names;
}

/**
 * The file as canonical CSV text, in chunks: the header row first, then rows (each line ends with \n),
 * row group by row group. Memory holds one row group's values and one chunk of text at a time.
 */
export async function* parquetAsCsv(file: AsyncBuffer): AsyncGenerator<string> {
  const meta = await metadataOf(file);
  const columns = flatColumns(meta);
  yield columns.map(quote).join(',') + '\n';
  let start = 0;
  for (const group of meta.row_groups) {
    const end = start + Number(group.num_rows);
    let rows: unknown[][] = [];
    try {
      await parquetRead({
        file,
        metadata: meta,
        rowStart: start,
        rowEnd: end,
        rowFormat: 'array',
        compressors,
        parsers: PARSERS,
        onComplete: (r) => (rows = r),
      });
    } catch (err) {
      if (err instanceof ParquetProblem) throw err;
      throw new ParquetProblem('corrupt', `row group at row ${start} cannot be read (${(err as Error).message})`);
    }
    if (rows.length !== end - start)
      throw new ParquetProblem('corrupt', `row group at row ${start} holds ${rows.length} rows, its footer says ${end - start}`);
    for (let at = 0; at < rows.length; at += ROWS_PER_CHUNK) {
      const lines: string[] = [];
      for (const row of rows.slice(at, at + ROWS_PER_CHUNK)) lines.push(row.map((v, j) => field(v, columns[j])).join(',') + '\n');
      yield lines.join('');
    }
    start = end;
  }
}

/** An AsyncBuffer over bytes in memory (a fetched file). */
export function bytesAsAsyncBuffer(bytes: Uint8Array): AsyncBuffer {
  return {
    byteLength: bytes.byteLength,
    slice: (s, e) => bytes.buffer.slice(bytes.byteOffset + s, bytes.byteOffset + (e ?? bytes.byteLength)) as ArrayBuffer,
  };
}
