// Streaming CSV check for uploads (docs/reference/datasets.md: the PUT body is streamed to disk): counts rows,
// reads the header and reports where rows start, chunk by chunk, by parseCsv's rules (host/table/csv.ts).
import { ServiceError } from '../errors.ts';
import { headerDelimiter, parseCsv } from './csv.ts';
import { Utf8Check } from './utf8-check.ts';

const LF = 10;
const CR = 13;
const QUOTE = 34;
const COMMA = 44;
const SPACE = 32;
const TAB = 9;
/** A header longer than this is refused rather than buffered. */
export const MAX_HEADER_BYTES = 1_000_000;

const enum S {
  RowStart, // before a row: blank-line spaces/tabs are pending
  FieldStart,
  Unquoted,
  Quoted,
  QuoteInQuoted, // a `"` inside a quoted field: an escape or the closing quote
  AfterClose, // spaces/tabs after a closing quote
}

export interface CsvSummary {
  columns: string[];
  rowCount: number;
}

export interface CsvScanOptions {
  /** A data row (its bytes from first field to line end) longer than this is refused. Default: no limit. */
  maxRowBytes?: number;
  /**
   * Called as each data row (not the header) starts: `at` is the byte offset of its first byte in the
   * whole input, `rowsBefore` the data rows before it. Every byte before `at` belongs to whole rows or
   * blank lines, so the input may be cut there and each side parsed on its own (after the header).
   */
  onRowStart?: (at: number, rowsBefore: number) => void;
}

/**
 * Feed bytes with push(), then finish(). Works on UTF-8 bytes: every delimiter is ASCII and never part
 * of a multi-byte character. Line numbers in errors match parseCsv (1-based physical lines).
 */
export class CsvScanner {
  private state = S.RowStart;
  private pendingBlank = 0;
  private afterCR = false;
  private line = 1;
  private rowLine = 1;
  private fields = 0;
  private width = -1; // header width once known
  private rows = 0;
  private header: Uint8Array[] = [];
  private headerBytes = 0;
  private headerText: Buffer | null = null;
  private columns: string[] | null = null;
  /** Offset in the whole input of the current chunk's first byte, and of the current row's first byte. */
  private base = 0;
  private rowStartAt = 0;
  private first = true;
  /** The chunk being scanned and the byte position in it (-1 at the end of input). */
  private chunk: Uint8Array = new Uint8Array(0);
  private pos = -1;
  private readonly utf8 = new Utf8Check();
  /**
   * A comma while the header is scanned, then the separator parseCsv reads the file with (headerDelimiter):
   * a semicolon only for a header without quotes, whose end a comma reading finds at the same place.
   */
  private sep = COMMA;

  constructor(
    private readonly field: string,
    private readonly opts: CsvScanOptions = {},
  ) {}

  private fail(detail: string): never {
    throw new ServiceError('invalid_request', detail, { field: this.field });
  }

  push(chunk: Uint8Array): void {
    if (!this.utf8.push(chunk)) this.notUtf8();
    let start = 0;
    if (this.first && chunk.length > 0) {
      this.first = false;
      if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) start = 3; // BOM (parseCsv drops it)
    }
    if (this.columns === null) {
      this.header.push(chunk.slice());
      this.headerBytes += chunk.length;
    }
    this.chunk = chunk;
    for (let i = start; i < chunk.length; i++) {
      this.pos = i;
      this.step(chunk[i]);
    }
    this.base += chunk.length;
    if (this.columns !== null) {
      this.header = [];
      // Refused as soon as it is too long, not only at its end: the check is what bounds the upload's parts.
      const max = this.opts.maxRowBytes;
      if (max !== undefined && this.state !== S.RowStart && this.base - this.rowStartAt > max) this.rowTooLong(max);
    } else if (this.headerBytes > MAX_HEADER_BYTES) this.fail(`The header row is longer than ${MAX_HEADER_BYTES} bytes.`);
  }

  /** The input's bytes up to and including the header row's line end (a BOM and blank lines before it too). */
  headerRow(): Uint8Array {
    if (this.headerText === null) throw new Error('headerRow() before the header row was scanned');
    return this.headerText;
  }

  finish(): CsvSummary {
    if (!this.utf8.end()) this.notUtf8();
    this.pos = -1;
    switch (this.state) {
      case S.Quoted:
        this.fail(`A quoted field that starts on line ${this.rowLine} is never closed (unterminated quote).`);
        break;
      case S.RowStart:
        break;
      default:
        this.endField();
        this.endRow();
    }
    if (this.columns === null) this.fail('The CSV has no header row.');
    return { columns: this.columns as string[], rowCount: this.rows };
  }

  private notUtf8(): never {
    this.fail('The upload is not UTF-8 text.');
  }

  private step(b: number): void {
    const lineEnd = b === LF || b === CR;
    if (lineEnd) {
      // CRLF is one line end; a lone CR or LF is one too.
      const secondOfPair = b === LF && this.afterCR;
      this.afterCR = b === CR;
      if (secondOfPair) return;
      this.line++;
    } else this.afterCR = false;

    switch (this.state) {
      case S.RowStart:
        if (b === SPACE || b === TAB) this.pendingBlank++;
        else if (lineEnd)
          this.pendingBlank = 0; // blank line: skipped
        else {
          this.rowLine = this.line;
          this.fields = 0;
          // The row (and a part of an upload cut before it) begins at its leading spaces, if any.
          this.rowStartAt = this.base + this.pos - this.pendingBlank;
          if (this.columns !== null) this.opts.onRowStart?.(this.rowStartAt, this.rows);
          if (this.pendingBlank > 0) {
            // Leading spaces belong to an unquoted first field (parseCsv keeps them).
            this.pendingBlank = 0;
            this.state = S.Unquoted;
            this.fieldStep(b);
          } else this.fieldStart(b);
        }
        return;
      case S.FieldStart:
        return lineEnd ? this.endLine() : this.fieldStart(b);
      case S.Unquoted:
        return lineEnd ? this.endLine() : this.fieldStep(b);
      case S.Quoted:
        if (b === QUOTE) this.state = S.QuoteInQuoted;
        return;
      case S.QuoteInQuoted:
        if (b === QUOTE) this.state = S.Quoted;
        else this.afterClose(b, lineEnd);
        return;
      case S.AfterClose:
        return this.afterClose(b, lineEnd);
    }
  }

  private fieldStart(b: number): void {
    if (b === QUOTE) this.state = S.Quoted;
    else if (b === this.sep) {
      this.endField();
      this.state = S.FieldStart;
    } else this.state = S.Unquoted;
  }

  private fieldStep(b: number): void {
    if (b === this.sep) {
      this.endField();
      this.state = S.FieldStart;
    }
  }

  private afterClose(b: number, lineEnd: boolean): void {
    if (b === SPACE || b === TAB) this.state = S.AfterClose;
    else if (b === this.sep) {
      this.endField();
      this.state = S.FieldStart;
    } else if (lineEnd) this.endLine();
    else this.fail(`Line ${this.line} has a character after a closing quote; quote the whole field and write "" for a quote inside it.`);
  }

  private endField(): void {
    this.fields++;
  }

  private endLine(): void {
    this.endField();
    this.endRow();
  }

  private endRow(): void {
    this.state = S.RowStart;
    this.pendingBlank = 0;
    if (this.columns === null) {
      this.columns = this.headerColumns();
      this.width = this.columns.length;
      return;
    }
    if (this.fields !== this.width) {
      const k = this.fields;
      this.fail(`Line ${this.rowLine} has ${k} field${k === 1 ? '' : 's'}; the header has ${this.width}.`);
    }
    const max = this.opts.maxRowBytes;
    const end = this.pos < 0 ? this.base : this.base + this.pos + 1;
    if (max !== undefined && end - this.rowStartAt > max) this.rowTooLong(max);
    this.rows++;
  }

  private rowTooLong(max: number): never {
    this.fail(`The row starting on line ${this.rowLine} is longer than ${max} bytes, the most one row of an upload may hold.`);
  }

  /** The header row, parsed by parseCsv itself (names trimmed, none empty or repeated). */
  private headerColumns(): string[] {
    // The kept chunks end with the current one; the header ends at the current byte (or at the input's end).
    const kept = this.pos < 0 ? this.header : [...this.header.slice(0, -1), this.chunk.subarray(0, this.pos + 1)];
    this.headerText = Buffer.concat(kept);
    const text = this.headerText.toString('utf8');
    this.sep = headerDelimiter(text, text.charCodeAt(0) === 0xfeff ? 1 : 0);
    return parseCsv(text, { field: this.field }).columns;
  }
}
