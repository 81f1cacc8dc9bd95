// RFC 4180 CSV reader for inline `csv` and stored uploads (docs/reference/ask.md#data, docs/reference/limits.md#limits): one pass over char codes.
import { ServiceError } from '../errors.ts';
import type { Cell, RawTable } from './types.ts';
import { MISSING_TOKENS } from './typing.ts';

export interface CsvOptions {
  /** Dotted request path named in errors (docs/reference/errors.md#problem). Default `data.csv`. */
  field?: string;
}

const LF = 10;
const CR = 13;
const QUOTE = 34;
const COMMA = 44;
const SEMICOLON = 59;
const SPACE = 32;
const TAB = 9;
/** Fields of at most this many characters are shared when repeated (longer ones are rarely repeated). */
const INTERN_MAX_CHARS = 24;
/**
 * Remembered fields per column (a power of two, at most this many): a direct-mapped cache, the last field
 * seen in each slot. Fewer for a short text or a wide table (at most about one slot per 8 characters, and
 * 65,536 slots in all), so a small CSV does not pay for a large cache.
 */
const INTERN_SLOTS_MAX = 4096;
const INTERN_SLOTS_TOTAL = 65_536;

/** Column states while parsing: its fields kept as numbers, with or without a fraction seen so far, or as text. */
const NUMBERS_WHOLE = 0;
const NUMBERS_FRACTION = 1;
const TEXT = 2;

/**
 * Parses CSV text into a column-major table of strings (typing happens later, docs/design/engine.md#step-3).
 * A column of decimal numbers is the exception: when every field of a column is a number in the form
 * JavaScript writes it (`canonicalNumber`) or a missing token, and one of them has a fraction, its fields
 * are kept as those numbers (missing tokens as text). Such a cell reads exactly as its text would (typing,
 * categories, entity keys and times read a number by that same text), and a million distinct numbers then
 * take 8 bytes each instead of a string each (bench/scale.ts realistic: no string per numeric cell).
 * Rules: comma separator, or semicolon when the header line holds semicolons and no comma (a spreadsheet's
 * export in much of Europe; see `headerDelimiter`), and then a decimal comma in a data field (`12,5`) reads
 * as a decimal point (`12.5`); `"` quoting with `""` escapes, quoted fields may hold commas, CR and LF;
 * CRLF, LF or a lone CR end a line; a leading BOM is dropped; lines that are empty or hold only
 * spaces/tabs are skipped (so a trailing newline adds no row); the first line is the header, names
 * trimmed, none empty or repeated; every row has exactly the header's number of fields. Spaces or
 * tabs after a closing quote are ignored; a `"` inside an unquoted field is kept as a character.
 * Line numbers in errors are 1-based physical lines (a row's number is the line it starts on).
 */
export function parseCsv(text: string, opts: CsvOptions = {}): RawTable {
  const field = opts.field ?? 'data.csv';
  const fail = (detail: string, remedy?: string): never => {
    throw new ServiceError('invalid_request', detail, { field, ...(remedy ? { remedy } : {}) });
  };
  const n = text.length;
  let i = n > 0 && text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const sep = headerDelimiter(text, i);
  let line = 1;
  let columns: string[] | null = null;
  let data: string[][] = [];
  let width = 0;
  let rowCount = 0;
  const header: string[] = [];
  // Repeated short fields (a column's few categories, numbers of few digits) share one string: a record of a
  // million rows then holds a pointer per cell, not a string per cell (bench/scale.ts: about 300 MB less).
  // A field is looked up by a hash of its characters computed while scanning, so a repeat allocates nothing.
  let seen: Array<string | undefined> = [];
  let slots = 1;
  let kinds: Uint8Array = new Uint8Array(0);
  // A column read as numbers holds them in a growing Float64Array (row r at index r) and its missing tokens
  // by row, until it is text or the input ends: a JS array of them is made once, at the end, by Array.from,
  // so it holds unboxed doubles (an array literal here would take the kind V8 last saw at this site: text).
  let nums: Float64Array[] = [];
  let missingAt: Array<Map<number, string>> = [];
  const keepNumber = (col: number, x: number): void => {
    let a = nums[col];
    if (rowCount >= a.length) {
      const grown = new Float64Array(Math.max(1024, a.length * 2));
      grown.set(a);
      nums[col] = a = grown;
    }
    a[rowCount] = x;
  };
  /** The column's cells so far as text (each number is the field as written), and its later fields too. */
  const toText = (col: number): void => {
    kinds[col] = TEXT;
    const a = nums[col];
    const missing = missingAt[col];
    const texts = new Map<number, string>();
    const cells: Cell[] = [];
    for (let r = 0; r < rowCount; r++) {
      const m = missing.get(r);
      if (m !== undefined) {
        cells.push(m);
        continue;
      }
      const x = a[r];
      let t = texts.get(x);
      if (t === undefined) {
        t = String(x);
        if (texts.size < 1 << 16) texts.set(x, t);
      }
      cells.push(t);
    }
    data[col] = cells as string[];
    nums[col] = new Float64Array(0);
  };
  const interned = (col: number, start: number, end: number, h: number): string => {
    const slot = col * slots + ((h ^ (h >>> 13)) & (slots - 1));
    const s = seen[slot];
    const len = end - start;
    if (s !== undefined && s.length === len) {
      let q = 0;
      while (q < len && s.charCodeAt(q) === text.charCodeAt(start + q)) q++;
      if (q === len) return s;
    }
    const v = text.slice(start, end);
    seen[slot] = v;
    return v;
  };

  while (i < n) {
    // Skip a blank line (empty, or spaces/tabs only).
    let j = i;
    let c = 0;
    while (j < n && ((c = text.charCodeAt(j)) === SPACE || c === TAB)) j++;
    if (j >= n) break;
    if (c === LF || c === CR) {
      i = j + 1;
      if (c === CR && i < n && text.charCodeAt(i) === LF) i++;
      line++;
      continue;
    }

    const rowLine = line;
    let k = 0; // field index within this row
    for (;;) {
      let value: string;
      if (i < n && text.charCodeAt(i) === QUOTE) {
        i++;
        let start = i;
        let head = '';
        for (;;) {
          if (i >= n) fail(`A quoted field that starts on line ${rowLine} is never closed (unterminated quote).`);
          c = text.charCodeAt(i);
          if (c === QUOTE) {
            if (i + 1 < n && text.charCodeAt(i + 1) === QUOTE) {
              head += text.slice(start, i + 1);
              i += 2;
              start = i;
              continue;
            }
            break;
          }
          if (c === LF || (c === CR && !(i + 1 < n && text.charCodeAt(i + 1) === LF))) line++;
          i++;
        }
        value = head + text.slice(start, i);
        if (columns !== null && k < width && kinds[k] !== TEXT) toText(k);
        i++; // closing quote
        while (i < n && ((c = text.charCodeAt(i)) === SPACE || c === TAB)) i++;
        if (i < n && c !== sep && c !== LF && c !== CR) {
          fail(`Line ${line} has a character after a closing quote; quote the whole field and write "" for a quote inside it.`);
        }
      } else {
        const start = i;
        let h = 0;
        const numeric = columns !== null && k < width && kinds[k] !== TEXT;
        // A field of a column still read as numbers is read as a number while it is scanned (one pass over
        // its characters); only one that is not a number is hashed for sharing, below.
        const x = numeric ? scanCanonicalNumber(text, i, n, sep) : NaN;
        if (numeric) i = scanEnd;
        else {
          while (i < n && (c = text.charCodeAt(i)) !== sep && c !== LF && c !== CR) {
            h = (Math.imul(h, 31) + c) | 0;
            i++;
          }
        }
        if (numeric) {
          if (x === x) {
            keepNumber(k, x);
            if (kinds[k] === NUMBERS_WHOLE && !Number.isInteger(x)) kinds[k] = NUMBERS_FRACTION;
            k++;
            if (i >= n) break;
            c = text.charCodeAt(i);
            i++;
            if (c === sep) continue;
            if (c === CR && i < n && text.charCodeAt(i) === LF) i++;
            line++;
            break;
          }
          for (let q = start; q < i; q++) h = (Math.imul(h, 31) + text.charCodeAt(q)) | 0;
        }
        value = columns !== null && k < width && i - start <= INTERN_MAX_CHARS ? interned(k, start, i, h) : text.slice(start, i);
        if (columns !== null && k < width && kinds[k] !== TEXT && !MISSING_TOKENS.has(value.trim())) toText(k);
      }

      if (sep === SEMICOLON && columns !== null && DECIMAL_COMMA.test(value)) value = value.replace(',', '.');
      if (columns === null) header.push(value);
      else if (k < width) {
        if (kinds[k] === TEXT) data[k].push(value);
        else {
          keepNumber(k, NaN); // a missing token in a column of numbers (any other text made it text above)
          missingAt[k].set(rowCount, value);
        }
      }
      k++;

      if (i >= n) break;
      c = text.charCodeAt(i);
      i++;
      if (c === sep) continue;
      if (c === CR && i < n && text.charCodeAt(i) === LF) i++;
      line++;
      break;
    }

    if (columns === null) {
      columns = checkHeader(header, fail);
      if (columns.length === 1) refuseOtherDelimiter(columns[0], fail);
      width = columns.length;
      data = columns.map(() => []);
      const budget = Math.min(INTERN_SLOTS_TOTAL, (n - i) / 8) / width;
      while (slots * 2 <= Math.min(INTERN_SLOTS_MAX, budget)) slots *= 2;
      seen = new Array<string | undefined>(width * slots);
      // A semicolon-separated file's decimal commas are rewritten below: its columns are read as text.
      kinds = new Uint8Array(width).fill(sep === SEMICOLON ? TEXT : NUMBERS_WHOLE);
      nums = columns.map(() => new Float64Array(0));
      missingAt = columns.map(() => new Map<number, string>());
    } else {
      if (k !== width) fail(`Line ${rowLine} has ${k} field${k === 1 ? '' : 's'}; the header has ${width}.`);
      rowCount++;
    }
  }

  if (columns === null) fail('The CSV has no header row.');
  // Whole numbers alone stay text (an id or a date written 20240315 is read by its text as before).
  for (let col = 0; col < width; col++) {
    if (kinds[col] === NUMBERS_WHOLE) toText(col);
    else if (kinds[col] === NUMBERS_FRACTION) {
      const cells: Cell[] = Array.from(nums[col].subarray(0, rowCount));
      for (const [r, m] of missingAt[col]) cells[r] = m;
      data[col] = cells as string[];
    }
  }
  return { columns: columns as string[], data: data as Cell[][], rowCount };
}

const POW10 = Array.from({ length: 16 }, (_, k) => 10 ** k);

/**
 * The number a field between `start` and `end` spells when it is written as JavaScript writes that number
 * (`String(x)` gives the field back): an optional `-`, an integer part without leading zeros, an optional
 * fraction not ending in 0, at most 15 digits in all, not -0 and not below 1e-6 (written with an exponent);
 * NaN otherwise. Read without a string: with at most 15 digits the digits are an exact integer and the
 * division by a power of ten is rounded once, so the result is the double `Number(field)` gives.
 */
export function canonicalNumber(text: string, start: number, end: number): number {
  let i = start;
  const negative = i < end && text.charCodeAt(i) === 45;
  if (negative) i++;
  const intStart = i;
  let m = 0;
  let c = 0;
  while (i < end && (c = text.charCodeAt(i)) >= 48 && c <= 57) {
    m = m * 10 + (c - 48);
    i++;
  }
  const intDigits = i - intStart;
  if (intDigits === 0 || (intDigits > 1 && text.charCodeAt(intStart) === 48)) return NaN;
  let fraction = 0;
  if (i < end && text.charCodeAt(i) === 46) {
    i++;
    const from = i;
    while (i < end && (c = text.charCodeAt(i)) >= 48 && c <= 57) {
      m = m * 10 + (c - 48);
      i++;
    }
    fraction = i - from;
    if (fraction === 0 || text.charCodeAt(i - 1) === 48) return NaN;
  }
  if (i !== end || intDigits + fraction > 15) return NaN;
  const x = m / POW10[fraction];
  if (x < 1e-6 && (x !== 0 || negative)) return NaN;
  return negative ? -x : x;
}

/** Where the field read by scanCanonicalNumber ends (its separator, line end or the text's end). */
let scanEnd = 0;

/**
 * canonicalNumber of the field that starts at `start` and runs to the next `sep`, LF or CR (or `n`), read in
 * the same pass that finds its end (left in `scanEnd`). The same rules as canonicalNumber, which stays the
 * readable statement of them (test/table/csv.test.ts holds the two equal).
 */
export function scanCanonicalNumber(text: string, start: number, n: number, sep: number): number {
  let i = start;
  let c = i < n ? text.charCodeAt(i) : -1;
  const negative = c === 45;
  if (negative) c = ++i < n ? text.charCodeAt(i) : -1;
  const intStart = i;
  let m = 0;
  while (c >= 48 && c <= 57) {
    m = m * 10 + (c - 48);
    c = ++i < n ? text.charCodeAt(i) : -1;
  }
  const intDigits = i - intStart;
  let ok = intDigits > 0 && !(intDigits > 1 && text.charCodeAt(intStart) === 48);
  let fraction = 0;
  if (c === 46) {
    c = ++i < n ? text.charCodeAt(i) : -1;
    const from = i;
    while (c >= 48 && c <= 57) {
      m = m * 10 + (c - 48);
      c = ++i < n ? text.charCodeAt(i) : -1;
    }
    fraction = i - from;
    if (fraction === 0 || text.charCodeAt(i - 1) === 48) ok = false;
  }
  if (c !== -1 && c !== sep && c !== LF && c !== CR) {
    ok = false;
    while (++i < n && (c = text.charCodeAt(i)) !== sep && c !== LF && c !== CR);
  }
  scanEnd = i;
  if (!ok || intDigits + fraction > 15) return NaN;
  const x = m / POW10[fraction];
  if (x < 1e-6 && (x !== 0 || negative)) return NaN;
  return negative ? -x : x;
}

/** A CSV for a record must hold cases: a header with no rows under it is a mistake to name, not an empty record. */
export function requireDataRows(table: RawTable, field: string): RawTable {
  if (table.rowCount > 0) return table;
  throw new ServiceError(
    'invalid_request',
    `${field}: the CSV has a header row (${table.columns.slice(0, 10).join(', ')}${table.columns.length > 10 ? ', ...' : ''}) but no data rows`,
    {
      field,
      remedy: 'Send the CSV with its rows under the header, one line per row.',
    },
  );
}

/** A number written with a decimal comma, as a semicolon-separated export writes it. */
const DECIMAL_COMMA = /^[+-]?\d+,\d+$/;

/**
 * The separator, judged on the header line alone (docs/guides/mistakes.md "A semicolon-separated CSV"): a
 * semicolon when the first non-blank line holds a semicolon and neither a comma nor a quote, else a comma.
 * The header is names, never numbers, so a decimal comma cannot mislead it; without quotes the header ends
 * at its line end under either reading, so the streaming upload check (csv-scan.ts) finds it the same way.
 */
export function headerDelimiter(text: string, from: number): number {
  let semicolons = 0;
  let seen = false;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === LF || c === CR) {
      if (seen) break;
    } else if (c === COMMA || c === QUOTE) return COMMA;
    else if (c === SEMICOLON) semicolons++;
    if (c !== SPACE && c !== TAB && c !== LF && c !== CR) seen = true;
  }
  return semicolons > 0 ? SEMICOLON : COMMA;
}

const OTHER_DELIMITERS: ReadonlyArray<[string, string]> = [
  ['\t', 'tab'],
  ['|', 'pipe'],
];

/**
 * A file saved with another separator (a European spreadsheet's `;`, a TSV's tab) reads as one column
 * whose name holds the separator: say so, rather than answer from a table of one column.
 */
function refuseOtherDelimiter(name: string, fail: (detail: string, remedy?: string) => never): void {
  for (const [sep, word] of OTHER_DELIMITERS) {
    if (name.split(sep).length >= 3) {
      fail(
        `The CSV reads as one column named ${JSON.stringify(name.length > 80 ? name.slice(0, 77) + '...' : name)}: it looks ${word}-separated ` +
          `(${JSON.stringify(sep)}).`,
        `Save or export the file as comma-separated CSV (fields separated by ",", quoted with " where they hold commas), then send it again.`,
      );
    }
  }
}

/** Trims header names and refuses empty or repeated ones (the header is line 1 after blank lines). */
function checkHeader(raw: string[], fail: (detail: string) => never): string[] {
  const names = raw.map((s) => s.trim());
  const seen = new Map<string, number>();
  names.forEach((name, idx) => {
    if (name === '') fail(`Header column ${idx + 1} has no name.`);
    const first = seen.get(name);
    if (first !== undefined) {
      fail(`Header column name "${name}" appears more than once (columns ${first + 1} and ${idx + 1}).`);
    }
    seen.set(name, idx);
  });
  return names;
}
