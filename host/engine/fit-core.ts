// Runs one fit on a fresh engine instance: copies the encoded table in, calls `fit`, copies the
// numbers out. Synchronous; called inside a worker thread (Node) or directly (browser preview).
import { KIND_CATEGORICAL, KIND_NUMERIC, KIND_SKIP, METRIC_COUNT, OK, type EngineExports } from './abi.ts';
import type { EncodedTable } from './encode.ts';
import { callEngine, instantiate, type EngineModule, type ProgressListener } from './wasm.ts';

/** The plain numbers a fit produces (structured-clone friendly). */
export interface RawFitOutput {
  status: number;
  metrics: Float64Array;
  exclusions: Int32Array;
  columnAuc: Float64Array;
  rowSplit: Uint8Array;
  /** Logit of each held-out row under the model tested on it (NaN elsewhere): cross-fitted, each fold's own model. */
  heldLogits: Float64Array;
  model: Float64Array;
}

/** The table parts a fit needs (what crosses to a worker). */
export type FitInput = Pick<EncodedTable, 'nRows' | 'entityBytes' | 'entityOffsets' | 'outcome' | 'time'> & {
  columns: Array<{ kind: 'numeric' | 'categorical' | 'skip'; values?: Float64Array; codes?: Int32Array; dictionary?: string[] }>;
};

export function toFitInput(t: EncodedTable): FitInput {
  return {
    nRows: t.nRows,
    entityBytes: t.entityBytes,
    entityOffsets: t.entityOffsets,
    outcome: t.outcome,
    time: t.time,
    columns: t.columns.map((c) => ({ kind: c.kind, values: c.values, codes: c.codes, dictionary: c.dictionary })),
  };
}

/** Copies a typed array into freshly allocated engine memory; returns its address. */
export function copyIn(ex: EngineExports, arr: ArrayBufferView): number {
  const bytes = new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength);
  const p = ex.alloc(bytes.length);
  new Uint8Array(ex.memory.buffer, p, bytes.length).set(bytes);
  return p;
}

/** `onProgress` hears the engine's own progress reports during the fit (wasm.ts ProgressListener). */
export function runFitSync(mod: EngineModule, input: FitInput, onProgress?: ProgressListener): RawFitOutput {
  const ex = instantiate(mod, onProgress);
  const n = input.nRows;
  const m = input.columns.length;
  const eb = copyIn(ex, input.entityBytes);
  const eo = copyIn(ex, input.entityOffsets);
  const y = copyIn(ex, input.outcome);
  const t = input.time ? copyIn(ex, input.time) : 0;
  const kinds = new Int32Array(m);
  const ptrs = new Int32Array(m);
  const cards = new Int32Array(m);
  input.columns.forEach((c, j) => {
    if (c.kind === 'numeric' && c.values) {
      kinds[j] = KIND_NUMERIC;
      ptrs[j] = copyIn(ex, c.values);
    } else if (c.kind === 'categorical' && c.codes) {
      kinds[j] = KIND_CATEGORICAL;
      ptrs[j] = copyIn(ex, c.codes);
      cards[j] = c.dictionary?.length ?? 0;
    } else kinds[j] = KIND_SKIP;
  });
  const kp = copyIn(ex, kinds),
    dp = copyIn(ex, ptrs),
    cp = copyIn(ex, cards);
  const status = callEngine('a fit', () => ex.fit(n, m, eb, eo, y, t, kp, dp, cp));
  if (status !== OK) {
    return {
      status,
      metrics: new Float64Array(METRIC_COUNT),
      exclusions: new Int32Array(m),
      columnAuc: new Float64Array(m),
      rowSplit: new Uint8Array(n),
      heldLogits: new Float64Array(n).fill(NaN),
      model: new Float64Array(0),
    };
  }
  // Views are re-created after the call: memory growth detaches earlier ones (toolchain.md).
  const buf = ex.memory.buffer;
  const metrics = new Float64Array(buf, ex.fitMetrics(), METRIC_COUNT).slice();
  const exclusions = new Int32Array(buf, ex.fitExclusions(), m).slice();
  const columnAuc = new Float64Array(buf, ex.fitColumnAuc(), m).slice();
  const rowSplit = new Uint8Array(buf, ex.fitRowSplit(), n).slice();
  const heldLogits = new Float64Array(buf, ex.fitHeldLogits(), n).slice();
  const len = ex.fitModelLength();
  const model = len > 0 ? new Float64Array(buf, ex.fitModel(), len).slice() : new Float64Array(0);
  return { status, metrics, exclusions, columnAuc, rowSplit, heldLogits, model };
}
