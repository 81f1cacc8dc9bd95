// Scores cases with a model inside the engine: p, per-column contributions, bins and reasons.
// One long-lived instance per compiled engine; discarded after a trap.
import { ERR_BAD_MODEL, OK, STRONG, type EngineExports } from './abi.ts';
import { copyIn } from './fit-core.ts';
import type { BinRange, Model } from './model.ts';
import { callEngine, instantiate, type EngineModule } from './wasm.ts';
import { EngineError } from './errors.ts';
import type { Cell, RawTable } from '../table/types.ts';
import { cellText, isMissing, parseNumber } from '../table/typing.ts';

/**
 * A reason as the wire carries it (docs/reference/ask.md#reasons, docs/reference/verdicts.md), keys in canonical (sorted) order so the
 * same object goes into the answer and, unchanged, into the signed Verdict.
 */
export interface ReasonOut {
  association_not_causal: true;
  feature_label: string;
  likelihood_direction: 'higher' | 'lower';
  range: BinRange;
  strength: 'strong' | 'moderate';
  /** The case's value: a number for a numeric column, the text for a categorical one, null when missing. */
  value: string | number | null;
}

export interface ScoreOutput {
  p: Float64Array;
  contributions: Float64Array; // [row * m + column]
  bins: Int32Array; // [row * m + column], -1 for unused columns
  reasonColumns: Int32Array; // [row * 4 + k]
  reasonStrengths: Int32Array; // [row * 4 + k]
}

/** A case cannot be scored: the columns it lacks, or a value of the wrong type. */
export class NotScoreable extends Error {
  constructor(
    readonly missingColumns: string[],
    readonly badValue?: { row: number; column: string; value: Cell },
  ) {
    super(
      missingColumns.length > 0
        ? `cases lack column(s) the model uses: ${missingColumns.join(', ')}`
        : `case ${badValue!.row}: ${badValue!.column} must be a number like the record's, got ${JSON.stringify(badValue!.value)}`,
    );
    this.name = 'NotScoreable';
  }
}

/** docs/reference/ask.md#case-result: what keeps one case from being scored (blanks are scored as the record's blanks). */
export interface CaseProblem {
  missing_columns?: string[];
  /** column -> the values the model never saw: new categories, or non-numbers in a numeric column. */
  unseen_values?: Record<string, Cell[]>;
}

/**
 * The rows of `cases` the model cannot read, by row: a column the model uses that the table lacks (or,
 * with `absent`, that the row's object lacks), a category its fit never saw in a column with no learned
 * level for rare values (Model.scoresUnseen: where there is one, the value is scored in it and its reason's
 * range says `unseen`), or a value that is not a number in a numeric column. `ignore`: columns the caller
 * fills in itself.
 */
export function unreadableRows(
  model: Model,
  cases: RawTable,
  absent?: (column: string, row: number) => boolean,
  ignore?: ReadonlySet<string>,
): Map<number, CaseProblem> {
  const problems = new Map<number, CaseProblem>();
  const problemOf = (r: number) => {
    let p = problems.get(r);
    if (!p) problems.set(r, (p = {}));
    return p;
  };
  const unseen = (r: number, column: string, value: Cell) => {
    const p = problemOf(r);
    ((p.unseen_values ??= {})[column] ??= []).push(value);
  };
  model.columns.forEach((col, j) => {
    if (col.kind === 'unused' || ignore?.has(col.name)) return;
    const c = cases.columns.indexOf(col.name);
    if (c < 0) {
      for (let r = 0; r < cases.rowCount; r++) (problemOf(r).missing_columns ??= []).push(col.name);
      return;
    }
    const cells = cases.data[c];
    const newValuesScored = model.scoresUnseen(j);
    for (let r = 0; r < cases.rowCount; r++) {
      const cell = cells[r];
      if (isMissing(cell)) {
        if (absent?.(col.name, r)) (problemOf(r).missing_columns ??= []).push(col.name);
      } else if (col.kind === 'numeric') {
        if (parseNumber(cell) === null) unseen(r, col.name, cell);
      } else if (!newValuesScored && model.codeOf(j, cellText(cell)!) < 0) unseen(r, col.name, cell);
    }
  });
  return problems;
}

const instances = new WeakMap<EngineModule, EngineExports>();

function engineFor(mod: EngineModule): EngineExports {
  let ex = instances.get(mod);
  if (!ex) {
    ex = instantiate(mod);
    instances.set(mod, ex);
  }
  return ex;
}

/** Typed input columns for the model from a case table (throws NotScoreable). */
export function encodeCases(model: Model, cases: RawTable): Array<Float64Array | Int32Array | null> {
  const missing: string[] = [];
  const out: Array<Float64Array | Int32Array | null> = [];
  model.columns.forEach((col, j) => {
    if (col.kind === 'unused') return void out.push(null);
    const c = cases.columns.indexOf(col.name);
    if (c < 0) {
      missing.push(col.name);
      return void out.push(null);
    }
    const cells = cases.data[c];
    if (col.kind === 'numeric') {
      const v = new Float64Array(cases.rowCount);
      for (let r = 0; r < cases.rowCount; r++) {
        if (isMissing(cells[r])) v[r] = NaN;
        else {
          const x = parseNumber(cells[r]);
          if (x === null) throw new NotScoreable([], { row: r, column: col.name, value: cells[r] });
          v[r] = x;
        }
      }
      out.push(v);
    } else {
      const codes = new Int32Array(cases.rowCount);
      for (let r = 0; r < cases.rowCount; r++) {
        const t = cellText(cells[r]);
        codes[r] = t === null ? -1 : model.codeOf(j, t);
      }
      out.push(codes);
    }
  });
  if (missing.length > 0) throw new NotScoreable(missing);
  return out;
}

export function scoreEncoded(mod: EngineModule, model: Model, cols: Array<Float64Array | Int32Array | null>, n: number): ScoreOutput {
  const m = model.columns.length;
  const ex = engineFor(mod);
  const ptrs: number[] = [];
  try {
    const mp = copyIn(ex, model.array);
    ptrs.push(mp);
    const colPtrs = new Int32Array(m);
    cols.forEach((c, j) => {
      if (c) {
        colPtrs[j] = copyIn(ex, c);
        ptrs.push(colPtrs[j]);
      }
    });
    const cp = copyIn(ex, colPtrs);
    const pp = ex.alloc(n * 8),
      kp = ex.alloc(n * m * 8),
      bp = ex.alloc(n * m * 4),
      rp = ex.alloc(n * 16),
      sp = ex.alloc(n * 16);
    ptrs.push(cp, pp, kp, bp, rp, sp);
    const status = callEngine('scoring', () => ex.score(mp, model.array.length, n, cp, pp, kp, bp, rp, sp));
    if (status !== OK)
      throw new EngineError(status === ERR_BAD_MODEL ? 'bad_model' : 'bad_input', `the engine refused to score (status ${status})`);
    const buf = ex.memory.buffer;
    return {
      p: new Float64Array(buf, pp, n).slice(),
      contributions: new Float64Array(buf, kp, n * m).slice(),
      bins: new Int32Array(buf, bp, n * m).slice(),
      reasonColumns: new Int32Array(buf, rp, n * 4).slice(),
      reasonStrengths: new Int32Array(buf, sp, n * 4).slice(),
    };
  } catch (err) {
    instances.delete(mod); // a trapped instance is never reused (docs/design/house-rules.md#toolchain)
    throw err;
  } finally {
    if (instances.get(mod) === ex) for (const p of ptrs) ex.release(p);
  }
}

/** Scores a case table: encode, score, and read out each case's reasons. */
export function scoreCases(mod: EngineModule, model: Model, cases: RawTable): ScoreOutput {
  return scoreEncoded(mod, model, encodeCases(model, cases), cases.rowCount);
}

// One frozen object per distinct reason in a scored batch (column, bin, strength, value): 10,000
// cases repeat a few hundred reasons, which an answer and its Verdict then hold once in memory.
// Kept with the batch's output, so it lives exactly as long as the batch: keyed by number, then by
// the value itself (a Map tells 7 from "7").
const batchReasons = new WeakMap<ScoreOutput, Map<number, Map<string | number | null, ReasonOut>>>();

/** The interned reason of `slot` and `value` in this batch, undefined the first time. */
function knownReason(out: ScoreOutput, slot: number, value: string | number | null): ReasonOut | undefined {
  return batchReasons.get(out)?.get(slot)?.get(value);
}

function internReason(out: ScoreOutput, slot: number, value: string | number | null, reason: ReasonOut): ReasonOut {
  let bySlot = batchReasons.get(out);
  if (!bySlot) batchReasons.set(out, (bySlot = new Map()));
  let byValue = bySlot.get(slot);
  if (!byValue) bySlot.set(slot, (byValue = new Map()));
  const frozen = Object.freeze(reason);
  byValue.set(value, frozen);
  return frozen;
}

/**
 * The reasons of case `r` (strongest first), with the case's values and bin ranges. Each distinct
 * reason is made once per batch: a reason object (and the closure that used to make it) is built only
 * the first time its slot and value are met.
 */
export function reasonsOf(model: Model, out: ScoreOutput, cases: RawTable, r: number): ReasonOut[] {
  const m = model.columns.length;
  const reasons: ReasonOut[] = [];
  for (let k = 0; k < 4; k++) {
    const j = out.reasonColumns[r * 4 + k];
    if (j < 0) break;
    const s = out.reasonStrengths[r * 4 + k];
    const col = model.columns[j];
    const c = cases.columns.indexOf(col.name);
    const cell = c >= 0 ? cases.data[c][r] : null;
    let value: string | number | null;
    if (isMissing(cell)) value = null;
    else if (col.kind === 'numeric')
      value = parseNumber(cell); // scoring already checked it parses
    else value = cellText(cell);
    const bin = out.bins[r * m + j];
    const slot = (j * 256 + bin) * 8 + s + 4;
    // a category the fit never saw, scored in the column's "other" bin (Model.scoresUnseen)
    const unseen = col.kind === 'categorical' && typeof value === 'string' && model.codeOf(j, value) < 0;
    reasons.push(
      knownReason(out, slot, value) ??
        internReason(out, slot, value, {
          association_not_causal: true,
          feature_label: col.name,
          likelihood_direction: s > 0 ? 'higher' : 'lower',
          range: unseen ? model.describeUnseen(j) : model.describeBin(j, bin, typeof value === 'number' ? value : undefined),
          strength: Math.abs(s) === STRONG ? 'strong' : 'moderate',
          value,
        }),
    );
  }
  return reasons;
}
