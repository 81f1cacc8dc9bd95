// Runs one fit on a fresh engine instance: copies the encoded table in, runs its phases (fitStart, each
// phase's tasks, fitAdvance), copies the numbers out. Synchronously in one thread (browser preview, tests),
// or with each phase's tasks shared with helper instances in other worker threads (pool.ts).
import { KIND_CATEGORICAL, KIND_NUMERIC, KIND_SKIP, METRIC_COUNT, OK, PHASE_DONE, type EngineExports } from './abi.ts';
import { EngineError } from './errors.ts';
import type { EncodedTable } from './encode.ts';
import { callEngine, instantiate, type EngineModule, type ProgressListener } from './wasm.ts';

/** The buffers of a fit's output, to transfer (not copy) it to another thread. */
export function outputBuffers(out: RawFitOutput): ArrayBuffer[] {
  return [out.metrics, out.exclusions, out.columnAuc, out.rowSplit, out.heldLogits, out.model].map((a) => a.buffer as ArrayBuffer);
}

/**
 * The buffers of a fit's input that may move to another thread (not copied): all but the outcome, which the
 * caller's plan shares (ask/fits.ts: the drift report reads it after the fit). Each buffer once.
 */
export function inputBuffers(input: FitInput): ArrayBuffer[] {
  const views: Array<ArrayBufferView | null | undefined> = [input.entityBytes, input.entityOffsets, input.time];
  for (const c of input.columns) views.push(c.values, c.codes);
  const out = new Set<ArrayBuffer>();
  for (const v of views)
    if (v && v.buffer !== input.outcome.buffer && !(v.buffer instanceof SharedArrayBuffer)) out.add(v.buffer as ArrayBuffer);
  return [...out];
}

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

/**
 * Runs the tasks of one phase somewhere and puts each output back into the fit's instance. `runHere(k)`
 * runs task k on the fit's own instance (its output goes in at once); `put(k, out)` takes an output
 * computed on a helper instance (runHelperTasks). Every task must be in when the promise settles.
 */
export interface PhaseRunner {
  (phase: PhaseWork): Promise<void>;
}
export interface PhaseWork {
  phase: number;
  count: number;
  /** The task block helpers load (a copy in a SharedArrayBuffer: posted, not copied, to each helper). */
  block(): Uint8Array;
  runHere(k: number): void;
  put(k: number, out: Float64Array): void;
}

interface Started {
  ex: EngineExports;
  n: number;
  m: number;
  status: number;
}

/** `onProgress` hears the engine's own progress reports (wasm.ts ProgressListener; docs/reference/tasks.md#events). */
function startFit(mod: EngineModule, input: FitInput, onProgress?: ProgressListener): Started {
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
  const status = callEngine('a fit', () => ex.fitStart(n, m, eb, eo, y, t, kp, dp, cp));
  return { ex, n, m, status };
}

/** The work of the phase under way on the fit's instance. */
function phaseWork(ex: EngineExports): PhaseWork {
  return {
    phase: ex.fitPhase(),
    count: ex.fitTaskCount(),
    block: () => {
      // Shared, not copied per helper: every helper of the phase reads the same bytes into its instance.
      const src = new Uint8Array(ex.memory.buffer, ex.taskBlock(), ex.taskBlockLength());
      const out = new Uint8Array(new SharedArrayBuffer(src.length));
      out.set(src);
      return out;
    },
    runHere: (k) =>
      check(
        callEngine('a fit task', () => ex.runTask(k)),
        `task ${k}`,
      ),
    put: (k, out) => {
      const p = copyIn(ex, out);
      const st = callEngine('a fit task', () => ex.putTaskOutput(k, p, out.length));
      ex.release(p);
      check(st, `the output of task ${k}`);
    },
  };
}

function check(status: number, what: string): void {
  if (status !== OK) throw new EngineError('bad_input', `the engine refused ${what} (status ${status})`);
}

function finishFit(ex: EngineExports): void {
  check(
    callEngine('a fit', () => ex.fitAdvance()),
    'the end of a phase',
  );
}

/**
 * A whole fit in this thread on one fresh instance (the browser preview, tests, a pool of one): every
 * task of each phase here, in task order. The same bits as a fit whose tasks ran on helpers.
 */
export function runFitSync(mod: EngineModule, input: FitInput, onProgress?: ProgressListener): RawFitOutput {
  const f = startFit(mod, input, onProgress);
  if (f.status !== OK) return failedOutput(f);
  while (f.ex.fitPhase() !== PHASE_DONE) {
    const work = phaseWork(f.ex);
    for (let k = 0; k < work.count; k++) work.runHere(k);
    finishFit(f.ex);
  }
  return readOutput(f);
}

/**
 * A whole fit whose phases are run by `runPhase` (a worker thread sharing tasks with idle workers). The
 * input is taken out of `held` once it is copied into the engine, so its arrays (a copy of the table, about
 * 100 MB at a million rows) are garbage while the fit runs, not held to its end.
 */
export async function runFitShared(
  mod: EngineModule,
  held: { input: FitInput | null },
  runPhase: PhaseRunner,
  onProgress?: ProgressListener,
): Promise<RawFitOutput> {
  const f = startHeld(mod, held, onProgress);
  if (f.status !== OK) return failedOutput(f);
  while (f.ex.fitPhase() !== PHASE_DONE) {
    await runPhase(phaseWork(f.ex));
    finishFit(f.ex);
  }
  return readOutput(f);
}

function startHeld(mod: EngineModule, held: { input: FitInput | null }, onProgress?: ProgressListener): Started {
  const input = held.input;
  if (!input) throw new Error('a fit input is used once');
  held.input = null;
  return startFit(mod, input, onProgress);
}

/**
 * A helper's part of a phase: a helper instance (`ex`, kept by its worker from phase to phase: a task reads
 * only its block and its index, and loading a block frees the one before, so its memory is reused rather
 * than a fresh instance's added until a collection) loads the task block, then runs the tasks `claim` hands
 * out (-1: none left) and gives each output to `emit`.
 */
export function runHelperTasks(
  ex: EngineExports,
  block: Uint8Array,
  claim: () => number,
  emit: (k: number, out: Float64Array) => void,
): void {
  const p = copyIn(ex, block);
  check(
    callEngine('a fit task', () => ex.loadTasks(p, block.length)),
    'a task block',
  );
  for (let k = claim(); k >= 0; k = claim()) {
    check(
      callEngine('a fit task', () => ex.runTask(k)),
      `task ${k}`,
    );
    emit(k, new Float64Array(ex.memory.buffer, ex.taskOutput(), ex.taskOutputLength()).slice());
  }
}

function failedOutput(f: Started): RawFitOutput {
  return {
    status: f.status,
    metrics: new Float64Array(METRIC_COUNT),
    exclusions: new Int32Array(f.m),
    columnAuc: new Float64Array(f.m),
    rowSplit: new Uint8Array(f.n),
    heldLogits: new Float64Array(f.n).fill(NaN),
    model: new Float64Array(0),
  };
}

function readOutput({ ex, n, m, status }: Started): RawFitOutput {
  // Views are re-created after the call: memory growth detaches earlier ones (docs/design/house-rules.md#toolchain).
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
