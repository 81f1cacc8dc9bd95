// Parquet files read as CSV (docs/reference/datasets.md#formats: Parquet is recognised by `PAR1` at both ends and passed through):
// row group by row group through hyparquet, each rendered as canonical CSV text, so a Parquet record is
// read, hashed and fitted exactly as the CSV it renders to (docs/decisions/README.md). hyparquet is
// pure JavaScript with no dependencies; hyparquet-compressors adds the codecs beyond snappy (gzip, zstd,
// brotli, lz4) that writers such as polars and pyarrow use.
//
// A file is bounded before it is inflated (docs/guides/uploads.md, "Limits"): the page headers of each row
// group are read first, and the pages of the whole file may hold at most `maxBytes` once decompressed, each
// page no more values than its row group has rows; a row group is then decoded a slice of rows at a time,
// and the CSV it renders to is at most `maxBytes` too (counted by the caller, stored-file.ts) with rows of at
// most `maxRowBytes`. So a small file that would inflate to gigabytes stops at the cap, never after.
import { parquetMetadataAsync, parquetRead, type AsyncBuffer, type FileMetaData, type ParquetParsers, type RowGroup } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { compressors, decompressZstd } from 'hyparquet-compressors';

export type { AsyncBuffer } from 'hyparquet';

/**
 * Why a file cannot be read as a table: corrupt, a kind of column this service does not read, larger than
 * the cap (its pages or its CSV), or a row of its CSV longer than one row may be (a fault of the table, as
 * the same row in a CSV is: docs/decisions/0088-a-parquet-row-over-the-row-limit.md).
 */
export class ParquetProblem extends Error {
  constructor(
    readonly kind: 'corrupt' | 'unsupported' | 'too_large' | 'row_too_long',
    message: string,
  ) {
    super(message);
    this.name = 'ParquetProblem';
  }
}

/** What a file may hold (the cap of a plain CSV upload, config UPLOAD_MAX_BYTES, and its longest row). */
export interface ParquetLimits {
  /** Bytes of its pages once decompressed, and bytes of the CSV it renders to. */
  maxBytes: number;
  /** Characters of one row of that CSV. */
  maxRowBytes: number;
}

const MAGIC = [0x50, 0x41, 0x52, 0x31]; // "PAR1"
/** Rows rendered to one CSV chunk at most, and its text length at most (a chunk may go one row past it). */
const ROWS_PER_CHUNK = 20_000;
const CHUNK_CHARS = 1 << 20;
/** Cells (rows x columns) decoded at once: a row group is read in slices of about this many. */
const SLICE_CELLS = 250_000;
/**
 * The footer (file metadata) is parsed whole into objects many times its size; real footers are kilobytes
 * to a few megabytes (a wide file with many row groups).
 */
const FOOTER_MAX_BYTES = 16 * 1024 * 1024;
const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });
const fmt = (n: number) => n.toLocaleString('en-US');

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
function isoDate(days: number): string {
  const d = new Date(days * 86_400_000);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}
const isoTime = (ms: number) => new Date(ms).toISOString();

/** Bytes as text when they are UTF-8, else the bytes themselves (field() then names the column that holds them). */
function textOrBytes(b: Uint8Array | undefined): string | Uint8Array | undefined {
  if (b == null) return b;
  try {
    return fatalUtf8.decode(b);
  } catch {
    return b;
  }
}

/**
 * Values as the CSV will hold them: dates as YYYY-MM-DD, timestamps as ISO 8601 UTC, text (JSON too) as
 * it is. A column of raw bytes is read as text whether or not its writer annotated it as UTF-8 (Hive,
 * Impala and older Spark write text without the annotation), value by value: a value that is not UTF-8
 * stays bytes, and field() refuses its column by name (upload_unreadable), never a guess at an encoding
 * (docs/decisions/0062-parquet-raw-bytes.md).
 */
const PARSERS: Partial<ParquetParsers> = {
  dateFromDays: isoDate,
  timestampFromMilliseconds: (v) => isoTime(Number(v)),
  timestampFromMicroseconds: (v) => isoTime(Number(v / 1000n)),
  timestampFromNanoseconds: (v) => isoTime(Number(v / 1_000_000n)),
  stringFromBytes: textOrBytes as ParquetParsers['stringFromBytes'],
  jsonFromBytes: textOrBytes,
};

/**
 * The codecs, each writing into a buffer of the length the page header declares (hyparquet checks that
 * the page fills it exactly): zstd would otherwise grow its output to whatever the frame holds.
 */
const BOUNDED_COMPRESSORS: typeof compressors = {
  ...compressors,
  ZSTD: (input, length) => decompressZstd(input, new Uint8Array(length)),
};

/** True when the bytes begin with `PAR1` (the end is checked when the file is read). */
export function startsLikeParquet(head: Uint8Array): boolean {
  return MAGIC.every((b, i) => head[i] === b);
}

function quote(text: string): string {
  return /[",\r\n]|^[ \t]|[ \t]$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One value as canonical CSV (docs/decisions/README.md). */
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
  if (v instanceof Uint8Array) {
    // raw bytes (a column without a text annotation, or one whose bytes are not UTF-8): text when they are UTF-8
    const text = textOrBytes(v);
    if (typeof text === 'string') return quote(text);
  }
  const what = v instanceof Uint8Array ? 'bytes that are not UTF-8 text (a binary column)' : 'nested values (a list, map or group)';
  throw new ParquetProblem(
    'unsupported',
    `Parquet column ${JSON.stringify(column)} holds ${what}; only flat columns of text, numbers, booleans, dates and times are read`,
  );
}

async function metadataOf(file: AsyncBuffer): Promise<FileMetaData> {
  if (file.byteLength < 12) throw new ParquetProblem('corrupt', `the file is ${file.byteLength} bytes, too short to be Parquet`);
  const tail = new Uint8Array(await file.slice(file.byteLength - 8));
  const head = new Uint8Array(await file.slice(0, 4));
  if (!startsLikeParquet(head) || !startsLikeParquet(tail.subarray(4)))
    throw new ParquetProblem('corrupt', 'the file does not begin and end with PAR1');
  const footer = new DataView(tail.buffer, tail.byteOffset).getUint32(0, true);
  if (footer > FOOTER_MAX_BYTES) {
    throw new ParquetProblem(
      'unsupported',
      `its footer (file metadata) is ${fmt(footer)} bytes, over the ${fmt(FOOTER_MAX_BYTES)} this service reads; write fewer row groups`,
    );
  }
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

/** Byte range of each column chunk of a row group, checked to lie in the file. */
function chunkRanges(group: RowGroup, at: number, fileBytes: number): Array<{ column: string; start: number; end: number }> {
  return group.columns.map((chunk) => {
    const meta = chunk.meta_data;
    if (!meta || chunk.file_path) throw new ParquetProblem('corrupt', `row group at row ${at} has a column chunk outside the file`);
    const start = Number(meta.dictionary_page_offset || meta.data_page_offset);
    const end = start + Number(meta.total_compressed_size);
    if (!(start >= 4 && end >= start && end <= fileBytes - 8)) {
      throw new ParquetProblem('corrupt', `row group at row ${at}: column ${meta.path_in_schema.join('.')} lies outside the file`);
    }
    return { column: meta.path_in_schema.join('.'), start, end };
  });
}

/**
 * The file's byte ranges, each read once while its row group is read (the page-header walk and then every
 * slice read the same column chunks); dropped with the row group.
 */
class RangeCache implements AsyncBuffer {
  private kept = new Map<string, Promise<ArrayBuffer>>();
  constructor(private readonly file: AsyncBuffer) {}
  get byteLength(): number {
    return this.file.byteLength;
  }
  slice(start: number, end = this.file.byteLength): Promise<ArrayBuffer> {
    const key = `${start}:${end}`;
    let got = this.kept.get(key);
    if (!got) {
      got = Promise.resolve(this.file.slice(start, end));
      this.kept.set(key, got);
    }
    return got;
  }
  clear(): void {
    this.kept.clear();
  }
}

/**
 * Reads the page headers of a row group's column chunks (no page is decompressed): adds their decompressed
 * sizes to `inflated` (refused past the cap) and checks each page's value count against the group's rows.
 * Returns the new total and the most values a data page of the group holds.
 */
async function walkPages(
  cache: RangeCache,
  group: RowGroup,
  at: number,
  inflated: number,
  limits: ParquetLimits,
): Promise<{ inflated: number; pageValues: number }> {
  const rows = Number(group.num_rows);
  let pageValues = 0;
  for (const { column, start, end } of chunkRanges(group, at, cache.byteLength)) {
    const view = new DataView(await cache.slice(start, end));
    const reader = { view, offset: 0 };
    let values = 0;
    while (values < rows && reader.offset < view.byteLength) {
      let header;
      try {
        header = parquetHeader(reader);
      } catch (err) {
        throw new ParquetProblem(
          'corrupt',
          `column ${column} of the row group at row ${at} has an unreadable page header (${(err as Error).message})`,
        );
      }
      const size = Number(header.uncompressed_page_size);
      const stored = Number(header.compressed_page_size);
      if (!(size >= 0 && stored >= 0 && reader.offset + stored <= view.byteLength)) {
        throw new ParquetProblem('corrupt', `column ${column} of the row group at row ${at} has a page that does not fit its column chunk`);
      }
      inflated += size;
      if (inflated > limits.maxBytes) {
        throw new ParquetProblem(
          'too_large',
          `its pages hold more than ${fmt(limits.maxBytes)} bytes once decompressed (reading stopped at column ${column} of the row group at row ${fmt(at)})`,
        );
      }
      const n = Number(header.data_page_header?.num_values ?? header.data_page_header_v2?.num_values ?? 0);
      const dictionary = Number(header.dictionary_page_header?.num_values ?? 0);
      // A flat column holds one value (or null) per row; a dictionary value takes at least a byte.
      if (!(n >= 0 && values + n <= rows && dictionary >= 0 && dictionary <= size)) {
        throw new ParquetProblem('corrupt', `column ${column} of the row group at row ${at} has pages that hold more values than its rows`);
      }
      values += n;
      pageValues = Math.max(pageValues, n);
      reader.offset += stored;
    }
    if (values !== rows) {
      throw new ParquetProblem('corrupt', `column ${column} of the row group at row ${at} holds ${values} values for its ${rows} rows`);
    }
  }
  return { inflated, pageValues };
}

/** The file's footer and columns, checked: flat columns, and a CSV of its rows within the cap. */
async function footerOf(file: AsyncBuffer, limits: ParquetLimits): Promise<{ meta: FileMetaData; columns: string[]; rows: number }> {
  const meta = await metadataOf(file);
  const columns = flatColumns(meta);
  // Each row renders to at least one byte per column (its commas and line end).
  let rows = 0;
  for (const group of meta.row_groups) {
    const n = Number(group.num_rows);
    if (!(n >= 0)) throw new ParquetProblem('corrupt', `row group at row ${rows} has a negative row count`);
    rows += n;
  }
  if (rows * columns.length > limits.maxBytes) {
    throw new ParquetProblem(
      'too_large',
      `it holds ${fmt(rows)} rows of ${columns.length} columns, more than ${fmt(limits.maxBytes)} bytes of CSV`,
    );
  }
  return { meta, columns, rows };
}

/**
 * The file's rows and columns, from its footer, with everything checked that needs no page inflated: the
 * footer, flat columns, every column chunk within the file, every page header readable, the pages within
 * the cap once decompressed, each column's values as many as its row group's rows. Reads every column
 * chunk as stored, one row group at a time; decodes nothing.
 */
export async function parquetShape(file: AsyncBuffer, limits: ParquetLimits): Promise<{ columns: string[]; rows: number }> {
  const { meta, columns, rows } = await footerOf(file, limits);
  const cache = new RangeCache(file);
  let inflated = 0;
  let start = 0;
  for (const group of meta.row_groups) {
    inflated = (await walkPages(cache, group, start, inflated, limits)).inflated;
    cache.clear();
    start += Number(group.num_rows);
  }
  return { columns, rows };
}

/**
 * The file as canonical CSV text, in chunks: the header row first, then rows (each line ends with \n),
 * row group by row group, each read a slice of rows at a time (the event loop gets a turn between slices).
 * Memory holds one row group's column chunks as stored, the values of one slice (or of the largest page,
 * when larger) and one chunk of text.
 */
export async function* parquetAsCsv(file: AsyncBuffer, limits: ParquetLimits): AsyncGenerator<string> {
  const { meta, columns } = await footerOf(file, limits);
  yield columns.map(quote).join(',') + '\n';
  const cache = new RangeCache(file);
  let inflated = 0;
  let start = 0;
  for (const group of meta.row_groups) {
    const end = start + Number(group.num_rows);
    const walked = await walkPages(cache, group, start, inflated, limits);
    inflated = walked.inflated;
    // a slice smaller than a page would decode that page once per slice
    const sliceRows = Math.max(1, Math.floor(SLICE_CELLS / columns.length), walked.pageValues);
    for (let from = start; from < end; from += sliceRows) {
      const to = Math.min(end, from + sliceRows);
      yield* renderRows(await readSlice(cache, meta, from, to), from, columns, limits);
      await new Promise((resolve) => setImmediate(resolve));
    }
    cache.clear();
    start = end;
  }
}

async function readSlice(file: AsyncBuffer, meta: FileMetaData, from: number, to: number): Promise<unknown[][]> {
  let rows: unknown[][] = [];
  try {
    await parquetRead({
      file,
      metadata: meta,
      rowStart: from,
      rowEnd: to,
      rowFormat: 'array',
      compressors: BOUNDED_COMPRESSORS,
      parsers: PARSERS,
      onComplete: (r) => (rows = r),
    });
  } catch (err) {
    if (err instanceof ParquetProblem) throw err;
    throw new ParquetProblem('corrupt', `rows ${from} to ${to - 1} cannot be read (${(err as Error).message})`);
  }
  if (rows.length !== to - from)
    throw new ParquetProblem('corrupt', `rows ${from} to ${to - 1}: ${rows.length} rows were read, its footer says ${to - from}`);
  return rows;
}

/**
 * Rows as CSV text, in chunks of at most ROWS_PER_CHUNK rows or about CHUNK_CHARS characters; `first` is the
 * file's index of rows[0] (0 for its first data row).
 */
function* renderRows(rows: unknown[][], first: number, columns: string[], limits: ParquetLimits): Generator<string> {
  let lines: string[] = [];
  let chars = 0;
  const fields: string[] = new Array<string>(columns.length);
  for (const [i, row] of rows.entries()) {
    let length = row.length; // its commas and line end
    for (let j = 0; j < row.length; j++) {
      const f = field(row[j], columns[j]);
      // characters never outnumber the UTF-8 bytes, so this bounds the row before it is joined
      length += f.length;
      if (length > limits.maxRowBytes) {
        // the CSV's line of that row: its header is line 1
        throw new ParquetProblem(
          'row_too_long',
          `The row on line ${fmt(first + i + 2)} of its CSV (row ${fmt(first + i + 1)} of the file) is longer than ${fmt(limits.maxRowBytes)} bytes, the most one row of an upload may hold.`,
        );
      }
      fields[j] = f;
    }
    lines.push(fields.join(',') + '\n');
    chars += length;
    if (lines.length >= ROWS_PER_CHUNK || chars >= CHUNK_CHARS) {
      yield lines.join('');
      lines = [];
      chars = 0;
    }
  }
  if (lines.length > 0) yield lines.join('');
}

/** An AsyncBuffer over bytes in memory (a fetched file). */
export function bytesAsAsyncBuffer(bytes: Uint8Array): AsyncBuffer {
  return {
    byteLength: bytes.byteLength,
    slice: (s, e) => bytes.buffer.slice(bytes.byteOffset + s, bytes.byteOffset + (e ?? bytes.byteLength)) as ArrayBuffer,
  };
}
