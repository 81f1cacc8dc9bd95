// Scores a case table with a fit's model and reads out rounded chances, reasons and support:
// the numbers every question type is built from (docs/reference/ask.md#case-result, docs/reference/ask.md#reasons; docs/design/engine.md#scoring).
import { ServiceError } from '../errors.ts';
import { NotScoreable, reasonsOf, scoreCases, type ReasonOut } from '../engine/scorer.ts';
import type { Model } from '../engine/model.ts';
import type { EngineModule } from '../engine/wasm.ts';
import type { RawTable } from '../table/types.ts';
import { fmt } from '../engine/model.ts';
import { effectSpan } from './effect-span.ts';

export interface ScoredCase {
  p: number; // rounded to 6 decimals (docs/reference/ask.md#case-result): every decision uses this value
  reasons: ReasonOut[];
  /** Columns whose value fell in a bin no training row had (outside the record's support). */
  unsupported: string[];
  /** Columns the engine gave as reasons whose effect span was too narrow to act on (core/effect-span.ts). */
  narrow: string[];
}

const NONE = Object.freeze([]) as unknown as string[];

export const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

export function scoreTable(engine: EngineModule, model: Model, cases: RawTable): ScoredCase[] {
  if (cases.rowCount === 0) return [];
  let out;
  try {
    out = scoreCases(engine, model, cases);
  } catch (err) {
    if (err instanceof NotScoreable) {
      throw new ServiceError('row_not_scoreable', err.message, {
        field: 'cases',
        extra: err.missingColumns.length > 0 ? { missing_columns: err.missingColumns } : { bad_value: err.badValue },
        cause: err,
      });
    }
    throw err;
  }
  const m = model.columns.length;
  const counts = model.columns.map((c, j) => (c.kind === 'unused' ? null : model.counts(j)));
  const index = new Map(model.columns.map((c, j) => [c.name, j]));
  const spoken = new Map<ReasonOut, ReasonOut | null>();
  const result: ScoredCase[] = new Array(cases.rowCount);
  for (let r = 0; r < cases.rowCount; r++) {
    // nearly every case is inside the record's support: those share one frozen empty list
    let unsupported: string[] = NONE;
    for (let j = 0; j < m; j++) {
      const cnt = counts[j];
      if (cnt && cnt[out.bins[r * m + j]] === 0) (unsupported === NONE ? (unsupported = []) : unsupported).push(model.columns[j].name);
    }
    const engineReasons = reasonsOf(model, out, cases, r);
    const reasons = spokenReasons(model, index, out.bins, r * m, engineReasons, spoken);
    const narrow =
      reasons.length === engineReasons.length
        ? NONE
        : engineReasons.filter((x) => !reasons.some((y) => y.feature_label === x.feature_label)).map((x) => x.feature_label);
    result[r] = { p: round6(out.p[r]), reasons, unsupported, narrow };
  }
  return result;
}

/**
 * The engine's reasons of one case as the answer gives them (docs/decisions/0074-effect-spans.md): none from a
 * numeric bin whose effect span is too narrow to act on, and a numeric range widened from the case's bin to
 * the span over which the column pushes the chance alike, when the case's value lies in that span's training
 * values. `spoken` keeps one answer per engine reason object (those are shared within a batch).
 */
function spokenReasons(
  model: Model,
  index: ReadonlyMap<string, number>,
  bins: Int32Array,
  rowOffset: number,
  reasons: ReasonOut[],
  spoken: Map<ReasonOut, ReasonOut | null>,
): ReasonOut[] {
  let out: ReasonOut[] | null = null;
  for (let k = 0; k < reasons.length; k++) {
    const reason = reasons[k];
    let said = spoken.get(reason);
    if (said === undefined) {
      said = spokenReason(model, index, bins, rowOffset, reason);
      spoken.set(reason, said);
    }
    if (said !== reason && out === null) out = reasons.slice(0, k);
    if (out !== null && said !== null) out.push(said);
  }
  return out ?? reasons;
}

function spokenReason(
  model: Model,
  index: ReadonlyMap<string, number>,
  bins: Int32Array,
  rowOffset: number,
  reason: ReasonOut,
): ReasonOut | null {
  const j = index.get(reason.feature_label);
  if (j === undefined || typeof reason.value !== 'number') return reason;
  const span = effectSpan(model, j, bins[rowOffset + j]);
  if (span === null) return reason;
  if (span.narrow) return null;
  if (span.first === span.last || reason.value < span.min || reason.value > span.max) return reason;
  // keys in canonical (sorted) order, as Model.describeBin's, so a Verdict holds the range as it is
  const range = Object.freeze({
    lower: span.lower,
    max: span.max,
    min: span.min,
    text: `${reason.feature_label} ${fmt(span.min)} to ${fmt(span.max)}`,
    upper: span.upper,
  });
  return Object.freeze({ ...reason, range });
}
