// A fitted model on the host side: the engine's f64 model array plus the column names and
// dictionaries that stay out of the wasm. Serialises to bytes and back bit for bit.
import { COL_COUNT, COL_MAX, COL_MIN, COL_TERM, MODEL_HEADER, MODEL_MAGIC } from './abi.ts';

export interface ModelColumn {
  name: string;
  kind: 'numeric' | 'categorical' | 'unused';
  dictionary?: string[];
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

  constructor(header: ModelHeader, array: Float64Array) {
    if (array.length < MODEL_HEADER || array[0] !== MODEL_MAGIC) throw new Error('not a model of this engine');
    if (array[1] !== header.columns.length) throw new Error('model header and array disagree on columns');
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
  get pairCount(): number {
    return this.array[3];
  }
  /** Names of the columns the model uses (in input order). */
  usedColumns(): string[] {
    return this.columns.filter((c) => c.kind !== 'unused').map((c) => c.name);
  }
  /** Code of a categorical value in the fit's dictionary: -1 missing is handled by the caller, -2 unseen. */
  codeOf(column: number, value: string): number {
    return this.codeIndex[column]?.get(value) ?? -2;
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

  /** Words and bounds for the bin a value fell in (wire.md Reason `range`). */
  describeBin(j: number, bin: number): { text: string; [k: string]: unknown } {
    const col = this.columns[j];
    const s = this.section(j);
    const name = col.name;
    if (bin === 0) return { text: `${name} is missing`, missing: true };
    if (col.kind === 'categorical') {
      if (bin === 1) return { text: `${name} is a rare or unseen value`, other: true };
      const aux = this.array.subarray(s.off + 3, s.off + 3 + s.nAux);
      const code = aux.indexOf(bin);
      const value = code >= 0 ? col.dictionary![code] : '';
      return { text: `${name} is ${value}`, value };
    }
    const cuts = this.array.subarray(s.off + 3, s.off + 3 + s.nAux);
    const lower = bin >= 2 ? cuts[bin - 2] : null;
    const upper = bin - 1 < cuts.length ? cuts[bin - 1] : null;
    const lo = this.array[s.base + COL_MIN * s.nBins + bin];
    const hi = this.array[s.base + COL_MAX * s.nBins + bin];
    const seen = Number.isFinite(lo) && Number.isFinite(hi);
    let text: string;
    if (seen && lo === hi) text = `${name} is ${fmt(lo)}`;
    else if (lower === null && upper === null) text = `${name} is any value`;
    else if (lower === null) text = seen ? `${name} ${fmt(hi)} or less` : `${name} under ${fmt(upper!)}`;
    else if (upper === null) text = seen ? `${name} ${fmt(lo)} or more` : `${name} from ${fmt(lower)}`;
    else if (seen) text = `${name} ${fmt(lo)} to ${fmt(hi)}`;
    else text = `${name} ${fmt(lower)} to under ${fmt(upper)}`;
    return { text, lower, upper, ...(seen ? { min: lo, max: hi } : {}) };
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
    if (bytes.length < 8 || MAGIC.some((b, i) => bytes[i] !== b)) throw new Error('not a serialised model');
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const jsonLen = view.getUint32(4, true);
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + jsonLen))) as ModelHeader;
    const headerLen = 8 + jsonLen;
    const start = headerLen + ((8 - (headerLen % 8)) % 8);
    const n = (bytes.length - start) / 8;
    if (!Number.isInteger(n)) throw new Error('truncated model');
    const array = new Float64Array(n);
    for (let i = 0; i < n; i++) array[i] = view.getFloat64(start + i * 8, true);
    return new Model(header, array);
  }
}

/** Shortest round-trip text of a number, without exponent noise for ordinary values. */
function fmt(v: number): string {
  return Object.is(v, -0) ? '0' : String(v);
}
