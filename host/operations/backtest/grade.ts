// Grading of a backtest cutoff (docs/reference/map.md#backtest): capture at the top 10% and 20%, lift there, 10-bin
// calibration; the single-column baseline (the lone numeric column that best ranks the training window);
// positives-weighted summaries and the decision. Pure numbers: no store, no engine, nothing timed.
import { aucComponents } from '../../lib/auc.ts';

/** docs/reference/map.md#backtest lift.top10 / top20: the shares of the scored cases read from the top. */
export const TOPS = [10, 20] as const;
/** Contract 1.1 decision on docs/decisions/0037-backtest-bar.md: the engine bar behind `supported` (lift at the top 10%). */
export const LIFT_BAR = 1.5;
/** docs/reference/map.md#backtest: `supported` and `not_supported` need this many cutoffs that say something. */
export const MIN_DECIDED = 3;

export interface Capture {
  top: number;
  k: number;
  value: number | null;
}

export interface Lift {
  top10: number | null;
  top20: number | null;
}

export interface CalibrationBin {
  bin: number;
  count: number;
  mean_p: number | null;
  observed: number | null;
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/**
 * Positives expected among the `k` highest scores, ties read in a random order (a tie group straddling k
 * gives its share): the same for any order of the rows, so the grade never depends on how ids sort.
 */
function positivesInTop(scores: readonly number[], labels: readonly number[], k: number): number {
  const order = scores.map((_, i) => i).sort((a, b) => scores[b] - scores[a]);
  let taken = 0;
  let found = 0;
  for (let i = 0; i < order.length && taken < k;) {
    let j = i;
    let pos = 0;
    while (j < order.length && scores[order[j]] === scores[order[i]]) pos += labels[order[j++]];
    const size = j - i;
    const room = Math.min(size, k - taken);
    found += (pos * room) / size;
    taken += room;
    i = j;
  }
  return found;
}

/** Capture and lift of `scores` (higher = more likely) against 0/1 `labels`; null when there are no positives. */
export function rankGrade(scores: readonly number[], labels: readonly number[]): { capture: Capture[]; lift: Lift } {
  const n = scores.length;
  const positives = labels.reduce((a, b) => a + b, 0);
  const capture: Capture[] = [];
  const lift: Lift = { top10: null, top20: null };
  for (const top of TOPS) {
    const k = Math.ceil((n * top) / 100);
    if (positives === 0 || k === 0) {
      capture.push({ top, k, value: null });
      continue;
    }
    const found = positivesInTop(scores, labels, k);
    capture.push({ top, k, value: round6(found / positives) });
    lift[`top${top}` as keyof Lift] = round6(found / k / (positives / n));
  }
  return { capture, lift };
}

/** Ten bins of width 0.1 over p (bin 0 = [0, 0.1), bin 9 = [0.9, 1]): count, mean p, observed rate. */
export function calibration(ps: readonly number[], labels: readonly number[]): CalibrationBin[] {
  const bins = Array.from({ length: 10 }, (_, bin) => ({ bin, count: 0, sumP: 0, sumY: 0 }));
  ps.forEach((p, i) => {
    const b = bins[Math.min(9, Math.floor(p * 10))];
    b.count++;
    b.sumP += p;
    b.sumY += labels[i];
  });
  return bins.map((b) => ({
    bin: b.bin,
    count: b.count,
    mean_p: b.count > 0 ? round6(b.sumP / b.count) : null,
    observed: b.count > 0 ? round6(b.sumY / b.count) : null,
  }));
}

export interface BaselineColumn {
  column: string;
  direction: 'higher' | 'lower';
  /** |AUC - 0.5| on the training window. */
  strength: number;
}

/**
 * docs/reference/map.md#backtest `single_column`: the numeric column whose values alone best rank the training window's
 * labels (AUC furthest from 0.5 over the rows that have a value; the earlier column on a tie), and which
 * way round. Null when no column ranks at all (every column constant, or one class only).
 */
export function bestColumn(
  columns: ReadonlyArray<{ name: string; values: ReadonlyArray<number | null> }>,
  labels: readonly number[],
): BaselineColumn | null {
  let best: BaselineColumn | null = null;
  for (const c of columns) {
    const xs: number[] = [];
    const ys: number[] = [];
    c.values.forEach((x, i) => {
      if (x !== null) {
        xs.push(x);
        ys.push(labels[i]);
      }
    });
    const a = aucComponents(xs, ys)?.auc;
    if (a === undefined) continue;
    const strength = round6(Math.abs(a - 0.5));
    if (strength === 0) continue;
    if (!best || strength > best.strength) best = { column: c.name, direction: a >= 0.5 ? 'higher' : 'lower', strength };
  }
  return best;
}

/** A baseline column's scores: its value the way round that ranks positives first; a blank ranks last. */
export function baselineScores(values: ReadonlyArray<number | null>, direction: 'higher' | 'lower'): number[] {
  return values.map((x) => (x === null ? -Infinity : direction === 'higher' ? x : -x));
}

/** What the summary reads of each graded cutoff. */
export interface GradedCutoff {
  positives: number;
  capture: Capture[];
  lift: Lift;
  baseline?: { capture: Capture[]; lift: Lift } | null;
}

export interface TopSummary {
  top10: number | null;
  top20: number | null;
}

/** docs/reference/map.md#backtest summary: each metric's mean over graded cutoffs weighted by their positives (no pooling). */
export function weightedMean(items: ReadonlyArray<{ weight: number; value: number | null }>): number | null {
  let w = 0;
  let s = 0;
  for (const it of items) {
    if (it.value === null || it.weight <= 0) continue;
    w += it.weight;
    s += it.weight * it.value;
  }
  return w > 0 ? round6(s / w) : null;
}

function summarise(graded: readonly GradedCutoff[], pick: (g: GradedCutoff) => { capture: Capture[]; lift: Lift } | null | undefined) {
  const capture: TopSummary = { top10: null, top20: null };
  const lift: TopSummary = { top10: null, top20: null };
  TOPS.forEach((top, t) => {
    const key = `top${top}` as keyof TopSummary;
    capture[key] = weightedMean(graded.map((g) => ({ weight: g.positives, value: pick(g)?.capture[t]?.value ?? null })));
    lift[key] = weightedMean(graded.map((g) => ({ weight: g.positives, value: pick(g)?.lift[key] ?? null })));
  });
  return { capture, lift };
}

export function summaryOf(graded: readonly GradedCutoff[], withBaseline: boolean) {
  const model = summarise(graded, (g) => g);
  return { ...model, baseline: withBaseline ? summarise(graded, (g) => g.baseline) : null };
}

export type Decision = 'supported' | 'not_supported' | 'not_yet';

/**
 * docs/reference/map.md#backtest decision. `decided`: cutoffs graded with positives in their window plus cutoffs whose fit
 * was refused (the engine found nothing that held: history speaking against the question). Fewer than
 * three: not_yet. Supported: three or more graded with positives, lift.top10 at or above the engine bar and
 * above the baseline's (when there is one). Else not_supported.
 */
export function decide(
  gradedWithPositives: number,
  refused: number,
  lift10: number | null,
  baselineLift10: number | null,
  withBaseline: boolean,
): Decision {
  if (gradedWithPositives + refused < MIN_DECIDED) return 'not_yet';
  const beatsBaseline = !withBaseline || baselineLift10 === null || (lift10 !== null && lift10 > baselineLift10);
  if (gradedWithPositives >= MIN_DECIDED && lift10 !== null && lift10 >= LIFT_BAR && beatsBaseline) return 'supported';
  return 'not_supported';
}
