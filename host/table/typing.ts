// Column typing and encoding (docs/design/engine.md#step-3 and "Determinism rules"): independent of row order.

/**
 * Strings (after trimming) that mean "no value" (docs/design/engine.md#step-3: empty, null, NA, NaN), plus the
 * common spellings spreadsheets and dataframes write. Exact case: 'Na', 'none' or 'nil' stay values.
 */
export const MISSING_TOKENS: ReadonlySet<string> = new Set([
  '',
  'NA',
  'N/A',
  'n/a',
  '#N/A',
  'NaN',
  'nan',
  'null',
  'NULL',
  // docs/design/engine.md#determinism: NaN and infinities are missing
  'Infinity',
  '+Infinity',
  '-Infinity',
  'inf',
  '+inf',
  '-inf',
  'Inf',
  '+Inf',
  '-Inf',
]);
const NUMBER_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

export type ColumnKind = 'numeric' | 'categorical' | 'empty';

export interface ColumnInfo {
  kind: ColumnKind;
  /** Rows whose value is missing (`isMissing`). */
  missing: number;
  /** Distinct non-missing values: numbers compared as numbers, otherwise trimmed text. */
  distinct: number;
}

/** True for null/undefined, a missing token (after trimming), and NaN or infinite numbers. */
export function isMissing(cell: unknown): boolean {
  if (cell === null || cell === undefined) return true;
  if (typeof cell === 'number') return !Number.isFinite(cell);
  if (typeof cell === 'string') {
    const s = cell.trim();
    if (MISSING_TOKENS.has(s)) return true;
    // a number written too large for a double (1e999) is an infinity: missing too
    return NUMBER_TEXT.test(s) && !Number.isFinite(Number(s));
  }
  return false;
}

/**
 * A finite number from a number or a plain decimal string (`12`, `-3.5`, `.5`, `1e3`, ` 4 `);
 * null otherwise (not hex, no thousands separators, not `Infinity`, not overflowing). -0 becomes 0.
 */
export function parseNumber(cell: unknown): number | null {
  let x: number;
  if (typeof cell === 'number') x = cell;
  else if (typeof cell === 'string') {
    const s = cell.trim();
    if (!isDecimal(s)) return null;
    x = Number(s);
  } else return null;
  if (!Number.isFinite(x)) return null;
  return x === 0 ? 0 : x;
}

/** `[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?`, scanned without a regex. */
function isDecimal(s: string): boolean {
  const n = s.length;
  let i = 0;
  let c = s.charCodeAt(0);
  if (c === 43 || c === 45) i++;
  let digits = 0;
  while (i < n && (c = s.charCodeAt(i)) >= 48 && c <= 57) (i++, digits++);
  if (i < n && s.charCodeAt(i) === 46) {
    i++;
    while (i < n && (c = s.charCodeAt(i)) >= 48 && c <= 57) (i++, digits++);
  }
  if (digits === 0) return false;
  if (i < n && ((c = s.charCodeAt(i)) === 101 || c === 69)) {
    i++;
    if (i < n && ((c = s.charCodeAt(i)) === 43 || c === 45)) i++;
    const at = i;
    while (i < n && (c = s.charCodeAt(i)) >= 48 && c <= 57) i++;
    if (i === at) return false;
  }
  return i === n;
}

/** The categorical text of a cell: trimmed string, `true`/`false`, canonical number; null if missing. */
export function cellText(cell: unknown): string | null {
  if (isMissing(cell)) return null;
  if (typeof cell === 'string') return cell.trim();
  if (typeof cell === 'number') return String(cell === 0 ? 0 : cell);
  if (typeof cell === 'boolean') return cell ? 'true' : 'false';
  return String(cell);
}

/** Numeric when every non-missing value is a finite number; empty when all are missing. */
export function inferColumn(cells: readonly unknown[]): ColumnInfo {
  let missing = 0;
  let numeric = true;
  const nums = new Set<number>();
  for (const cell of cells) {
    if (isMissing(cell)) missing++;
    else if (numeric) {
      const x = parseNumber(cell);
      if (x === null) numeric = false;
      else nums.add(x);
    }
  }
  if (missing === cells.length) return { kind: 'empty', missing, distinct: 0 };
  if (numeric) return { kind: 'numeric', missing, distinct: nums.size };
  const texts = new Set<string>();
  for (const cell of cells) {
    const t = cellText(cell);
    if (t !== null) texts.add(t);
  }
  return { kind: 'categorical', missing, distinct: texts.size };
}

/** Numbers per row; NaN where the value is missing or not a number. */
export function encodeNumeric(cells: readonly unknown[]): Float64Array {
  const out = new Float64Array(cells.length);
  for (let r = 0; r < cells.length; r++) out[r] = isMissing(cells[r]) ? NaN : (parseNumber(cells[r]) ?? NaN);
  return out;
}

/**
 * Codes per row into a dictionary of the distinct texts sorted by code point, so the same values
 * give the same codes whatever the row order; -1 where missing.
 */
export function encodeCategorical(cells: readonly unknown[]): { codes: Int32Array; dictionary: string[] } {
  // One pass gives each cell a provisional code (its text's order of first appearance), then the sorted
  // dictionary renumbers them. A cell is looked up as it is: the same cell always has the same text, so
  // cellText (trim, missing tokens, number check) runs once per distinct cell, not once per row.
  const n = cells.length;
  const codes = new Int32Array(n);
  const byCell = new Map<unknown, number>();
  const byText = new Map<string, number>();
  const texts: string[] = [];
  for (let r = 0; r < n; r++) {
    const cell = cells[r];
    let code = byCell.get(cell);
    if (code === undefined) {
      const t = cellText(cell);
      if (t === null) code = -1;
      else {
        code = byText.get(t);
        if (code === undefined) {
          code = texts.length;
          texts.push(t);
          byText.set(t, code);
        }
      }
      byCell.set(cell, code);
    }
    codes[r] = code;
  }
  const dictionary = [...texts].sort(compareCodePoints);
  const final = new Int32Array(texts.length);
  const rank = new Map<string, number>();
  dictionary.forEach((v, i) => rank.set(v, i));
  texts.forEach((t, k) => (final[k] = rank.get(t) as number));
  for (let r = 0; r < n; r++) if (codes[r] >= 0) codes[r] = final[codes[r]];
  return { codes, dictionary };
}

/** Orders strings by Unicode code point (JS `<` orders UTF-16 units, which differs above U+FFFF). */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // Move surrogates (U+D800-DFFF) above U+E000-FFFF so supplementary characters sort last.
    x = x >= 0xd800 ? (x <= 0xdfff ? x + 0x2000 : x - 0x800) : x;
    y = y >= 0xd800 ? (y <= 0xdfff ? y + 0x2000 : y - 0x800) : y;
    return x - y;
  }
  return a.length - b.length;
}

/** Yes/no pairs recognised without `positive_values` (docs/reference/ask.md#questions), as [no, yes], lower case. */
const YES_NO_PAIRS: ReadonlyArray<readonly [string, string]> = [
  ['0', '1'],
  ['false', 'true'],
  ['no', 'yes'],
  ['n', 'y'],
  ['f', 't'],
];

export interface YesNoMeaning {
  /** The spelling that means yes (the first by code point when several case variants occur). */
  positive: string;
  /** Every given spelling that means yes (case variants), sorted by code point. */
  positiveValues: string[];
  /** Every given spelling that means no, sorted by code point. */
  negativeValues: string[];
}

/**
 * docs/reference/ask.md#questions `positive_values` omitted: when the distinct non-missing values are exactly two words of
 * one pair (case-insensitive; 0/1 as numbers or strings, e.g. `1.0`), says which spellings mean
 * yes. Null when the values are not such a pair.
 */
export function yesNoMeaning(distinctValues: readonly unknown[]): YesNoMeaning | null {
  const byWord = new Map<string, Set<string>>();
  for (const v of distinctValues) {
    const text = cellText(v);
    if (text === null) continue;
    const x = parseNumber(v);
    const word = x === 0 ? '0' : x === 1 ? '1' : text.toLowerCase();
    let spellings = byWord.get(word);
    if (!spellings) byWord.set(word, (spellings = new Set()));
    spellings.add(text);
  }
  if (byWord.size !== 2) return null;
  for (const [no, yes] of YES_NO_PAIRS) {
    const noSpell = byWord.get(no);
    const yesSpell = byWord.get(yes);
    if (!noSpell || !yesSpell) continue;
    const positiveValues = [...yesSpell].sort(compareCodePoints);
    return { positive: positiveValues[0], positiveValues, negativeValues: [...noSpell].sort(compareCodePoints) };
  }
  return null;
}
