// A fitted model on the host side: the engine's f64 model array plus the column names and
// dictionaries that stay out of the wasm. Serialises to bytes and back bit for bit.
import { COL_COUNT, COL_MAX, COL_MIN, COL_TERM, MODEL_FOREST, MODEL_HEADER, MODEL_MAGIC } from './abi.ts';
import { EngineError } from './errors.ts';

export interface ModelColumn {
  name: string;
  kind: 'numeric' | 'categorical' | 'unused';
  dictionary?: string[];
}

/** A bin in words and bounds (docs/reference/verdicts.md Reason `range`); keys in canonical order. */
export interface BinRange {
  readonly text: string;
  readonly [k: string]: unknown;
}

export interface ModelHeader {
  format: 'oq-model';
  version: 1;
  core_hash: string;
  columns: ModelColumn[];
}

const MAGIC = new Uint8Array([0x4f, 0x51, 0x4d, 0x31]); // "OQM1"

export class Model {
  readonly header: ModelHeader;
  readonly array: Float64Array;
  private readonly codeIndex: Array<Map<string, number> | null>;
  private readonly rangeCache = new Map<number, BinRange>();

  constructor(header: ModelHeader, array: Float64Array) {
    if (array.length < MODEL_HEADER || array[0] !== MODEL_MAGIC) throw new EngineError('bad_model', 'not a model of this engine');
    if (array[1] !== header.columns.length) throw new EngineError('bad_model', 'model header and array disagree on columns');
    this.header = header;
    this.array = array;
    this.codeIndex = header.columns.map((c) => (c.dictionary ? new Map(c.dictionary.map((v, i) => [v, i])) : null));
  }

  get columns(): ModelColumn[] {
    return this.header.columns;
  }
  get intercept(): number {
    return this.array[2];
  }
  /** Interaction terms: pairs and tree terms (the residual trees' section is not one: residualTrees). */
  get pairCount(): number {
    return this.array[3] - (this.forestOffset() >= 0 ? 1 : 0);
  }
  /** Interaction terms over three columns (tree terms: a pair section whose first value is negative, abi.ts). */
  get tripleCount(): number {
    const m = this.columns.length;
    let k = 0;
    for (let q = 0; q < this.array[3]; q++) {
      const first = this.array[this.array[MODEL_HEADER + m + q]];
      if (first < 0 && first !== MODEL_FOREST) k++;
    }
    return k;
  }
  /** Residual trees (assembly/residual-trees.ts) in the model's forest section; 0 for a model without one. */
  get residualTrees(): number {
    const off = this.forestOffset();
    return off >= 0 ? this.array[off + 1] : 0;
  }
  /** Offset of the forest section (abi.ts: a pair section whose first value is MODEL_FOREST), -1 when none. */
  private forestOffset(): number {
    const m = this.columns.length;
    for (let q = 0; q < this.array[3]; q++) {
      const off = this.array[MODEL_HEADER + m + q];
      if (this.array[off] === MODEL_FOREST) return off;
    }
    return -1;
  }
  /** Names of the columns the model uses (in input order). */
  usedColumns(): string[] {
    return this.columns.filter((c) => c.kind !== 'unused').map((c) => c.name);
  }
  /** Code of a categorical value in the fit's dictionary: -1 missing is handled by the caller, -2 unseen. */
  codeOf(column: number, value: string): number {
    return this.codeIndex[column]?.get(value) ?? -2;
  }

  /**
   * Whether categorical column j scores a value its fit never saw: the engine puts such a value in the
   * column's "other" bin (assembly/binning.ts categoricalBin, bin 1), and that bin is a learned level only
   * when training rows fell in it (values seen fewer than 10 times). Without such rows the bin says nothing,
   * and a case with a new value is not_scoreable (docs/decisions/0067-unseen-categories.md).
   */
  scoresUnseen(j: number): boolean {
    return this.columns[j].kind === 'categorical' && this.counts(j)[1] > 0;
  }

  /** The range of a value categorical column j never saw, scored in its "other" bin (scoresUnseen). */
  describeUnseen(j: number): BinRange {
    const key = -1 - j;
    let range = this.rangeCache.get(key);
    if (range === undefined) {
      const name = this.columns[j].name;
      range = Object.freeze({ other: true, text: `${name} is a value the fit never saw, scored as its rare values`, unseen: true });
      this.rangeCache.set(key, range);
    }
    return range;
  }

  /** Offset of column j's section and its bin count / aux length. */
  section(j: number): { off: number; nBins: number; nAux: number; base: number } {
    const off = this.array[MODEL_HEADER + j];
    const nBins = this.array[off + 1];
    const nAux = this.array[off + 2];
    return { off, nBins, nAux, base: off + 3 + nAux };
  }

  /** Per-bin term values of column j (centred logit contributions). */
  terms(j: number): Float64Array {
    const s = this.section(j);
    return this.array.subarray(s.base + COL_TERM * s.nBins, s.base + (COL_TERM + 1) * s.nBins);
  }
  counts(j: number): Float64Array {
    const s = this.section(j);
    return this.array.subarray(s.base + COL_COUNT * s.nBins, s.base + (COL_COUNT + 1) * s.nBins);
  }

  /**
   * Words and bounds for bin `bin` of column j (docs/reference/ask.md#reasons Reason `range`). Given the case's numeric
   * value `x`, the words are true of that value: the training span of the bin ("9 to 12", "is 9")
   * only when x lies inside it, else the bin's own bounds ("8.5 or more"), since a bin also holds
   * values no training row had. Without `x` the bin is described by its training span.
   * Objects are shared and frozen, keys in canonical (sorted) order, so a Verdict can hold them as is.
   */
  describeBin(j: number, bin: number, x?: number): BinRange {
    const col = this.columns[j];
    const s = this.section(j);
    let inSpan = true;
    let lo = NaN;
    let hi = NaN;
    if (col.kind === 'numeric' && bin > 0) {
      lo = this.array[s.base + COL_MIN * s.nBins + bin];
      hi = this.array[s.base + COL_MAX * s.nBins + bin];
      inSpan = Number.isFinite(lo) && Number.isFinite(hi) && (x === undefined || (x >= lo && x <= hi));
    }
    const key = (j * 65536 + bin) * 2 + (inSpan ? 1 : 0);
    let range = this.rangeCache.get(key);
    if (range === undefined) {
      range = Object.freeze(this.binRange(j, bin, inSpan, lo, hi));
      this.rangeCache.set(key, range);
    }
    return range;
  }

  private binRange(j: number, bin: number, inSpan: boolean, lo: number, hi: number): BinRange {
    const col = this.columns[j];
    const s = this.section(j);
    const name = col.name;
    if (bin === 0) return { missing: true, text: `${name} is missing` };
    if (col.kind === 'categorical') {
      if (bin === 1) return { other: true, text: `${name} is a rare or unseen value` };
      const aux = this.array.subarray(s.off + 3, s.off + 3 + s.nAux);
      const code = aux.indexOf(bin);
      const value = code >= 0 ? col.dictionary![code] : '';
      return { text: `${name} is ${value}`, value };
    }
    // numeric bin b >= 1 holds cuts[b - 2] <= x < cuts[b - 1] (assembly/binning.ts numericBin)
    const cuts = this.array.subarray(s.off + 3, s.off + 3 + s.nAux);
    const lower = bin >= 2 ? cuts[bin - 2] : null;
    const upper = bin - 1 < cuts.length ? cuts[bin - 1] : null;
    const seen = Number.isFinite(lo) && Number.isFinite(hi);
    let text: string;
    if (inSpan && lo === hi) text = `${name} is ${fmt(lo)}`;
    else if (inSpan) text = `${name} ${fmt(lo)} to ${fmt(hi)}`;
    else if (lower === null && upper === null) text = `${name} is any value`;
    else if (lower === null) text = `${name} ${below(upper!)}`;
    else if (upper === null) text = `${name} ${fmt(lower)} or more`;
    else text = `${name} from ${fmt(lower)} to ${roundsDown(upper) ? fmt(upper) : `under ${fmt(upper)}`}`;
    return { lower, ...(seen ? { max: hi, min: lo } : {}), text, upper };
  }

  toBytes(): Uint8Array {
    const json = new TextEncoder().encode(JSON.stringify(this.header));
    const headerLen = 8 + json.length;
    const pad = (8 - (headerLen % 8)) % 8;
    const out = new Uint8Array(headerLen + pad + this.array.byteLength);
    out.set(MAGIC, 0);
    new DataView(out.buffer).setUint32(4, json.length, true);
    out.set(json, 8);
    const body = new DataView(out.buffer, headerLen + pad);
    for (let i = 0; i < this.array.length; i++) body.setFloat64(i * 8, this.array[i], true);
    return out;
  }

  static fromBytes(bytes: Uint8Array): Model {
    if (bytes.length < 8 || MAGIC.some((b, i) => bytes[i] !== b)) throw new EngineError('bad_model', 'not a serialised model');
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const jsonLen = view.getUint32(4, true);
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + jsonLen))) as ModelHeader;
    const headerLen = 8 + jsonLen;
    const start = headerLen + ((8 - (headerLen % 8)) % 8);
    const n = (bytes.length - start) / 8;
    if (!Number.isInteger(n)) throw new EngineError('bad_model', 'truncated model');
    const array = new Float64Array(n);
    for (let i = 0; i < n; i++) array[i] = view.getFloat64(start + i * 8, true);
    return new Model(header, array);
  }
}

/**
 * "under U" for a bin's upper cut, worded so it stays true of every value in the bin: a cut rounded for
 * people to a number below the exact cut (50.650000000000006, halfway between 50.6 and 50.7, reads 50.65)
 * would call 50.65 "under 50.65" although 50.65 is in the bin; then the bound is inclusive ("50.65 or less").
 */
function below(upper: number): string {
  return roundsDown(upper) ? `${fmt(upper)} or less` : `under ${fmt(upper)}`;
}

/** Whether the text of `x` is a number below it (then a bound of "under" it would exclude a value it holds). */
function roundsDown(x: number): boolean {
  return Number(fmt(x)) < x;
}

/**
 * A number as a person reads it in a range's text: the fewest significant digits (up to 6) that stay within
 * a billionth of it, so a cut point halfway between 29.4 and 29.45 reads 29.425, not 29.424999999999997.
 * The range's `lower` / `upper` / `min` / `max` keep the exact values (the Verdict signs those).
 */
export function fmt(v: number): string {
  if (Object.is(v, -0) || v === 0) return '0';
  if (Number.isSafeInteger(v)) return String(v);
  const tolerance = 1e-9 * Math.max(1, Math.abs(v));
  for (let digits = 1; digits <= 6; digits++) {
    const near = Number(v.toPrecision(digits));
    if (Math.abs(near - v) <= tolerance) return String(near);
  }
  return String(Number(v.toPrecision(6)));
}
