// Levers on answered cases (docs/reference/ask.md#answer: one per reason a caller could act on) and the target
// bins a lever points at, which svc_attest uses to judge compliance with the same model.
//
// Rules (main terms of the model; pair terms are left out of the lever's aim):
// - Only with outcome_is_desirable given (docs/reference/ask.md#reasons: the service never decides what is good). A
//   reason is actionable when it pushes the chance the unwanted way: `higher` for an outcome to
//   avoid, `lower` for a wanted one.
// - A target bin of the column is a bin training rows fell in (count > 0), not the missing bin nor
//   the categorical "rare or unseen" bin, whose term improves on the case's bin by at least ln 1.1
//   (10% on the odds) in the wanted direction: lower for an outcome to avoid, higher for a wanted one.
// - Numeric: a target bin's effect span must be wide enough to act on (core/effect-span.ts,
//   docs/decisions/0074-effect-spans.md): a lone bin a few cents wide is no target. The side (higher or lower bins) holding the largest improvement gives `increase` or
//   `decrease`; the targets are the improving bins on that side. A missing numeric value gets none.
// - Categorical: `to_one_of` the values of the best improving bins (at most 10, best first).
// - A lever on a column that moves with the calendar by itself says so: `lever_advisory: "time_like"` (core/time-like.ts).
import { scoreCases } from '../engine/scorer.ts';
import type { Model } from '../engine/model.ts';
import type { EngineModule } from '../engine/wasm.ts';
import type { RawTable } from '../table/types.ts';
import type { LeverDirection, LeverGrant } from '../signing/lever-token.ts';
import { tooNarrow } from './effect-span.ts';
import { isTimeLike } from './time-like.ts';

export const LEVER_MIN_GAIN = Math.log(1.1);
const MAX_VALUES = 10;
const MISSING_BIN = 0;
const OTHER_BIN = 1;

export interface Lever {
  feature_label: string;
  direction: LeverDirection;
  /** to_one_of: the values to move to, best first (docs/decisions/0069-to-one-of-values.md). */
  to_one_of?: string[];
  /** increase: the least value reaching a target bin; decrease: values under this reach one. */
  target?: { at_least: number } | { under: number };
  lever_token: string;
  /** The column moves with the calendar by itself (core/time-like.ts): acting on it means waiting. */
  lever_advisory?: 'time_like';
}

export interface LeverTargets {
  direction: LeverDirection;
  /** Bins a post-action value must fall in to comply. */
  bins: number[];
  values?: string[];
  target?: Lever['target'];
}

/** How much moving from term `from` to `to` helps (positive = better) for the outcome's polarity. */
function gain(from: number, to: number, desirable: boolean): number {
  return desirable ? to - from : from - to;
}

/** The lever's targets for a case in `bin` of model column `j`, or null when no bin is clearly better. */
export function leverTargets(model: Model, j: number, bin: number, desirable: boolean): LeverTargets | null {
  const col = model.columns[j];
  if (col.kind === 'unused') return null;
  const terms = model.terms(j);
  const counts = model.counts(j);
  if (bin < 0 || bin >= terms.length) return null;
  const improving = (b: number) =>
    b !== MISSING_BIN && b !== bin && counts[b] > 0 && gain(terms[bin], terms[b], desirable) >= LEVER_MIN_GAIN;

  if (col.kind === 'numeric') {
    if (bin === MISSING_BIN) return null;
    const up: number[] = [];
    const down: number[] = [];
    let bestUp = 0;
    let bestDown = 0;
    for (let b = 1; b < terms.length; b++) {
      if (!improving(b) || tooNarrow(model, j, b)) continue;
      const g = gain(terms[bin], terms[b], desirable);
      if (b > bin) (up.push(b), (bestUp = Math.max(bestUp, g)));
      else (down.push(b), (bestDown = Math.max(bestDown, g)));
    }
    if (up.length === 0 && down.length === 0) return null;
    const cuts = model.array.subarray(model.section(j).off + 3, model.section(j).off + 3 + model.section(j).nAux);
    if (bestUp > bestDown) return { direction: 'increase', bins: up, target: { at_least: cuts[up[0] - 2] } };
    return { direction: 'decrease', bins: down, target: { under: cuts[down[down.length - 1] - 1] } };
  }

  // categorical: aux maps dictionary code -> bin
  const s = model.section(j);
  const aux = model.array.subarray(s.off + 3, s.off + 3 + s.nAux);
  const byBin = new Map<number, string[]>();
  for (let code = 0; code < aux.length; code++) {
    const b = aux[code];
    if (b === OTHER_BIN || !improving(b)) continue;
    const list = byBin.get(b) ?? [];
    list.push(col.dictionary![code]);
    byBin.set(b, list);
  }
  if (byBin.size === 0) return null;
  // best first; ties by bin (the dictionary's code-point order), so the list is deterministic
  const bins = [...byBin.keys()].sort((x, y) => gain(terms[bin], terms[y], desirable) - gain(terms[bin], terms[x], desirable) || x - y);
  const chosen = bins.slice(0, MAX_VALUES);
  return { direction: 'to_one_of', bins: chosen, values: chosen.flatMap((b) => byBin.get(b)!).slice(0, MAX_VALUES) };
}

interface CaseReasons {
  reasons: ReadonlyArray<{ feature_label: string; likelihood_direction: 'higher' | 'lower' }>;
}

/**
 * The levers of every case of `cases` (row r of the table is entity `entityIds[r]`) scored with
 * `model`: one per actionable reason, in the reasons' order (strongest first).
 */
export function leversForCases(
  deps: { engine: EngineModule; leverToken: (g: LeverGrant) => string },
  model: Model,
  modelRef: string,
  desirable: boolean,
  cases: RawTable,
  entityIds: readonly string[],
  scored: readonly CaseReasons[],
  /** docs/reference/models.md#profile profile `fixed`: columns an action cannot change get no lever. */
  fixed?: ReadonlySet<string>,
): Lever[][] {
  const out = scoreCases(deps.engine, model, cases);
  const m = model.columns.length;
  const index = new Map(model.columns.map((c, j) => [c.name, j]));
  const harmful = desirable ? 'lower' : 'higher';
  const memo = new Map<string, LeverTargets | null>();
  const timeLike = model.columns.map((c) => c.kind !== 'unused' && isTimeLike(c));
  return scored.map((s, r) =>
    s.reasons.flatMap((reason) => {
      if (reason.likelihood_direction !== harmful || fixed?.has(reason.feature_label)) return [];
      const j = index.get(reason.feature_label);
      if (j === undefined) return [];
      const bin = out.bins[r * m + j];
      const key = `${j}:${bin}`;
      if (!memo.has(key)) memo.set(key, leverTargets(model, j, bin, desirable));
      const t = memo.get(key);
      if (!t) return [];
      const token = deps.leverToken({
        modelRef,
        entityId: entityIds[r],
        feature: reason.feature_label,
        bin,
        direction: t.direction,
      });
      const lever: Lever = {
        feature_label: reason.feature_label,
        direction: t.direction,
        ...(t.values ? { to_one_of: t.values } : {}),
        ...(t.target ? { target: t.target } : {}),
        lever_token: token,
        ...(timeLike[j] ? { lever_advisory: 'time_like' as const } : {}),
      };
      return [lever];
    }),
  );
}
