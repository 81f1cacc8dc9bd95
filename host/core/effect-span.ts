// The span of values over which a numeric column's effect holds, and whether it is too narrow to act on
// (docs/decisions/0074-effect-spans.md). A fit cuts a numeric column into many small bins, each with its own
// term; a reason or a lever should speak of the span where the column pushes the chance about as this bin
// does, not of one bin "86.53 to 86.96" that a change of a few cents leaves.
//
// - The effect span of bin b: the longest run of adjacent bins around b, each with training rows, whose
//   terms push the same way as b's and are within a factor of two of it (|t| from |t_b| / 2 to 2 |t_b|).
// - Its width: from the cut below its first bin to the cut above its last (the training minimum or maximum
//   where the span reaches the end of the column).
// - The column's spread: the values from the 5th to the 95th percentile of its training rows (from the bin
//   counts; the whole training span when those are equal).
// - A span narrower than NARROW_SHARE of the spread is too narrow to act on: no reason and no lever from it,
//   and no lever target in it.
import { COL_MAX, COL_MIN } from '../engine/abi.ts';
import type { Model } from '../engine/model.ts';

/** A span narrower than this share of the column's 5th-95th percentile spread is too narrow to act on. */
export const NARROW_SHARE = 0.05;
const MISSING_BIN = 0;

export interface EffectSpan {
  /** First and last bin of the span (b itself when nothing next to it behaves alike). */
  first: number;
  last: number;
  /** Training minimum of the first bin and maximum of the last. */
  min: number;
  max: number;
  /** Cut below the first bin and above the last; null at the column's ends. */
  lower: number | null;
  upper: number | null;
  narrow: boolean;
}

interface ColumnView {
  terms: Float64Array;
  counts: Float64Array;
  mins: Float64Array;
  maxs: Float64Array;
  cuts: Float64Array;
  spread: number;
}

const views = new WeakMap<Model, Map<number, ColumnView | null>>();
const spans = new WeakMap<Model, Map<number, EffectSpan | null>>();

function columnView(model: Model, j: number): ColumnView | null {
  let byColumn = views.get(model);
  if (!byColumn) views.set(model, (byColumn = new Map()));
  if (byColumn.has(j)) return byColumn.get(j)!;
  let view: ColumnView | null = null;
  if (model.columns[j]?.kind === 'numeric') {
    const s = model.section(j);
    const a = model.array;
    const mins = a.subarray(s.base + COL_MIN * s.nBins, s.base + (COL_MIN + 1) * s.nBins);
    const maxs = a.subarray(s.base + COL_MAX * s.nBins, s.base + (COL_MAX + 1) * s.nBins);
    const counts = model.counts(j);
    view = {
      terms: model.terms(j),
      counts,
      mins,
      maxs,
      cuts: a.subarray(s.off + 3, s.off + 3 + s.nAux),
      spread: spreadOf(counts, mins, maxs),
    };
  }
  byColumn.set(j, view);
  return view;
}

/** Values from the 5th to the 95th percentile of the training rows, read from the bins (0 when none). */
function spreadOf(counts: Float64Array, mins: Float64Array, maxs: Float64Array): number {
  let total = 0;
  for (let b = 1; b < counts.length; b++) total += counts[b];
  if (total <= 0) return 0;
  let low = NaN;
  let high = NaN;
  let first = NaN;
  let last = NaN;
  let seen = 0;
  for (let b = 1; b < counts.length; b++) {
    if (!(counts[b] > 0)) continue;
    if (Number.isNaN(first)) first = mins[b];
    last = maxs[b];
    seen += counts[b];
    if (Number.isNaN(low) && seen >= 0.05 * total) low = mins[b];
    if (Number.isNaN(high) && seen >= 0.95 * total) high = maxs[b];
  }
  const middle = high - low;
  return middle > 0 ? middle : Math.max(0, last - first);
}

/** Whether term t pushes the same way as t0 and is within a factor of two of it. */
function alike(t: number, t0: number): boolean {
  if (t0 === 0) return t === 0;
  const r = t / t0;
  return r >= 0.5 && r <= 2;
}

/** The effect span of numeric column j around bin `bin`; null for other columns, the missing bin or an empty bin. */
export function effectSpan(model: Model, j: number, bin: number): EffectSpan | null {
  let byKey = spans.get(model);
  if (!byKey) spans.set(model, (byKey = new Map()));
  const key = j * 65536 + bin;
  if (byKey.has(key)) return byKey.get(key)!;
  const span = computeSpan(model, j, bin);
  byKey.set(key, span);
  return span;
}

function computeSpan(model: Model, j: number, bin: number): EffectSpan | null {
  const v = columnView(model, j);
  if (!v || bin === MISSING_BIN || bin < 0 || bin >= v.terms.length || !(v.counts[bin] > 0)) return null;
  const t0 = v.terms[bin];
  let first = bin;
  let last = bin;
  while (first - 1 > MISSING_BIN && v.counts[first - 1] > 0 && alike(v.terms[first - 1], t0)) first--;
  while (last + 1 < v.terms.length && v.counts[last + 1] > 0 && alike(v.terms[last + 1], t0)) last++;
  // numeric bin b >= 1 holds cuts[b - 2] <= x < cuts[b - 1] (Model.describeBin)
  const lower = first >= 2 ? v.cuts[first - 2] : null;
  const upper = last - 1 < v.cuts.length ? v.cuts[last - 1] : null;
  const min = v.mins[first];
  const max = v.maxs[last];
  const width = (upper ?? max) - (lower ?? min);
  const narrow = v.spread > 0 && width < NARROW_SHARE * v.spread;
  return { first, last, min, max, lower, upper, narrow };
}

/** Whether bin `bin` of column j is a numeric bin whose effect span is too narrow to act on. */
export function tooNarrow(model: Model, j: number, bin: number): boolean {
  return effectSpan(model, j, bin)?.narrow === true;
}
