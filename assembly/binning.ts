// Column binning on the training part (docs/design/engine.md#step-4): numeric quantile bins with bin 0 for
// missing; categorical one bin per frequent value, an "other" bin (1) and a missing bin (0).
import { ldf, ldi, sti, allocF64, allocI32, release } from './mem';
import { sortF64 } from './sort';
import { MIN_VALUE_BINS, MIN_ROWS_PER_BIN, MIN_CATEGORY_COUNT } from './tunables';

// A bin index is a u8: every per-bin table of the fit (terms, counts, histograms) has BIN_STRIDE slots a column,
// indexed [column * BIN_STRIDE + bin], and a pair's or tree term's cell codes fit the same 256.
export const BIN_STRIDE: i32 = 256;
export const MAX_VALUE_BINS: i32 = 255; // numeric bins 1..255 (0 is missing)
export const MAX_CATEGORY_BINS: i32 = 254; // categorical bins 2..255 (0 missing, 1 other)

/** Result of binning one column: cut points (numeric) or code -> bin (categorical). */
export class ColumnBins {
  kind: i32 = 0;
  nBins: i32 = 0;
  nAux: i32 = 0;
  aux: usize = 0; // f64 cuts or f64 code->bin, nAux of them
}

/**
 * Numeric cut points from the training values: one bin per distinct value when there are at most
 * maxBins, otherwise cuts at count quantiles, always at midpoints between neighbouring distinct values.
 */
export function binNumeric(values: usize, rows: usize, nRows: i32): ColumnBins {
  const out = new ColumnBins();
  out.kind = 0;
  const buf = allocF64(nRows);
  let m = 0;
  for (let t = 0; t < nRows; t++) {
    const v = ldf(values, ldi(rows, t));
    if (v == v) { store<f64>(buf + (<usize>m << 3), v); m++; }
  }
  sortF64(buf, m);
  let distinct = 0;
  for (let i = 0; i < m; i++) if (i == 0 || ldf(buf, i) != ldf(buf, i - 1)) distinct++;
  // At most one value bin per MIN_ROWS_PER_BIN training values, never under MIN_VALUE_BINS (tunables.ts says why)
  const maxBins = min<i32>(MAX_VALUE_BINS, max<i32>(MIN_VALUE_BINS, m / MIN_ROWS_PER_BIN));
  const cuts = allocF64(MAX_VALUE_BINS);
  let nCuts = 0;
  if (distinct <= maxBins) {
    for (let i = 1; i < m; i++) {
      const a = ldf(buf, i - 1), b = ldf(buf, i);
      if (a != b) { store<f64>(cuts + (<usize>nCuts << 3), a + (b - a) * 0.5); nCuts++; }
    }
  } else {
    // Walk distinct values with their cumulative count; cut after a value once the count passes the
    // next quantile target. At most maxBins - 1 cuts.
    const target = <f64>m / <f64>maxBins;
    let i = 0;
    while (i < m) {
      let j = i;
      const v = ldf(buf, i);
      while (j < m && ldf(buf, j) == v) j++;
      if (j < m && nCuts < maxBins - 1 && <f64>j >= target * <f64>(nCuts + 1)) {
        const b = ldf(buf, j);
        store<f64>(cuts + (<usize>nCuts << 3), v + (b - v) * 0.5);
        nCuts++;
      }
      i = j;
    }
  }
  release(buf);
  out.nAux = nCuts;
  out.aux = cuts;
  out.nBins = nCuts + 2; // missing + (nCuts + 1) value bins
  return out;
}

/**
 * Bin of a numeric value given ascending cuts: 0 for missing, else 1 + #cuts <= v. A binary search with
 * no data-dependent branch (select): the count of cuts <= v stays in [lo, lo + len] while len halves
 * (readable version: while lo < hi, mid = (lo + hi) / 2, lo = mid + 1 if cuts[mid] <= v else hi = mid).
 */
@inline export function numericBin(v: f64, cuts: usize, nCuts: i32): i32 {
  if (v != v) return 0;
  if (nCuts == 0) return 1;
  let lo = 0, len = nCuts;
  while (len > 1) {
    const half = len >>> 1;
    lo = select<i32>(lo + half, lo, ldf(cuts, lo + half - 1) <= v);
    len -= half;
  }
  return 1 + lo + select<i32>(1, 0, ldf(cuts, lo) <= v);
}

/**
 * Categorical bins: values seen at least MIN_CATEGORY_COUNT times in training get their own bin
 * (the most frequent MAX_CATEGORY_BINS when there are more, ties by code), in code order.
 */
export function binCategorical(codes: usize, rows: usize, nRows: i32, cardinality: i32): ColumnBins {
  const out = new ColumnBins();
  out.kind = 1;
  const counts = allocI32(cardinality);
  for (let t = 0; t < nRows; t++) {
    const c = ldi(codes, ldi(rows, t));
    if (c >= 0 && c < cardinality) sti(counts, c, ldi(counts, c) + 1);
  }
  let frequent = 0;
  for (let c = 0; c < cardinality; c++) if (ldi(counts, c) >= MIN_CATEGORY_COUNT) frequent++;
  let minKeep = MIN_CATEGORY_COUNT;
  if (frequent > MAX_CATEGORY_BINS) {
    // Raise the bar until at most MAX_CATEGORY_BINS remain; then admit ties at the bar by code.
    minKeep = kthLargestCount(counts, cardinality, MAX_CATEGORY_BINS);
  }
  const aux = allocF64(cardinality);
  let next = 2;
  let atBar = 0;
  let strictlyAbove = 0;
  for (let c = 0; c < cardinality; c++) if (ldi(counts, c) > minKeep) strictlyAbove++;
  for (let c = 0; c < cardinality; c++) {
    const k = ldi(counts, c);
    let keep = k >= minKeep && k >= MIN_CATEGORY_COUNT;
    if (keep && k == minKeep && frequent > MAX_CATEGORY_BINS) {
      keep = strictlyAbove + atBar < MAX_CATEGORY_BINS;
      if (keep) atBar++;
    }
    if (keep) { store<f64>(aux + (<usize>c << 3), <f64>next); next++; }
    else store<f64>(aux + (<usize>c << 3), 1.0);
  }
  release(counts);
  out.nAux = cardinality;
  out.aux = aux;
  out.nBins = next;
  return out;
}

function kthLargestCount(counts: usize, n: i32, k: i32): i32 {
  // counts are small integers; a copy sorted descending gives the k-th largest.
  const buf = allocF64(n);
  for (let i = 0; i < n; i++) store<f64>(buf + (<usize>i << 3), -<f64>ldi(counts, i));
  sortF64(buf, n);
  const v = <i32>(-ldf(buf, k - 1));
  release(buf);
  return v;
}

/** Bin of a categorical code: 0 missing (-1), 1 other (rare or unseen, -2 or out of range). */
@inline export function categoricalBin(code: i32, aux: usize, nAux: i32): i32 {
  if (code == -1) return 0;
  if (code < 0 || code >= nAux) return 1;
  return <i32>ldf(aux, code);
}
