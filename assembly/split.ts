// The split search of the boosting (docs/design/engine.md#step-6): the best single cut of one column's per-bin gradient
// histogram. A Histogram says where the sums are and what they total; findSplit answers with a Split (the cut's
// side sums, its score and, when asked, each bin's side). boost.ts steps main terms by it, pairs.ts and
// cell-trees.ts cut a pair's cells with cellCut.
import { ldf, stf, ldi, sti, allocF64, allocI32, allocU8 } from './mem';
import { BIN_STRIDE } from './binning';
import { MIN_CHILD_ROWS, HESS_FLOOR, CAT_SMOOTH } from './tunables';

/**
 * A column's histogram as the split finder reads it: each bin's gradient and hessian sums side by side
 * (`gh`, f64 [bin][g, h]) and its rows (`counts`, f64 [bin]), where they were made (nothing is copied), and their
 * totals in bin order (g, h, n).
 */
export class Histogram {
  gh: usize = 0;
  counts: usize = 0;
  g: f64 = 0;
  h: f64 = 0;
  n: f64 = 0;

  /** Points at the sums of `nb` bins and adds up their totals in bin order. */
  at(gh: usize, nb: i32, counts: usize): Histogram {
    this.gh = gh; this.counts = counts;
    let gt = 0.0, ht = 0.0, nt = 0.0;
    for (let b = 0; b < nb; b++) { gt += gOf(gh, b); ht += hOf(gh, b); nt += nOf(counts, b); }
    this.g = gt; this.h = ht; this.n = nt;
    return this;
  }

  /** Points at sums whose totals were added up beforehand (in bin order, as `at` adds them). */
  withTotals(gh: usize, counts: usize, g: f64, h: f64, n: f64): Histogram {
    this.gh = gh; this.counts = counts; this.g = g; this.h = h; this.n = n;
    return this;
  }
}

@inline function gOf(gh: usize, b: i32): f64 { return load<f64>(gh + (<usize>b << 4)); }
@inline function hOf(gh: usize, b: i32): f64 { return load<f64>(gh + (<usize>b << 4) + 8); }
@inline function nOf(counts: usize, b: i32): f64 { return load<f64>(counts + (<usize>b << 3)); }

/** The split finder's answer: the best cut's side sums and score, and (when marked) each bin's side. */
export class Split {
  /** score2 of the cut: GL^2 / HL + GR^2 / HR (its gain is that less G^2 / H of the whole histogram). */
  score: f64 = 0;
  gl: f64 = 0;
  hl: f64 = 0;
  gr: f64 = 0;
  hr: f64 = 0;
  /** u8 [bin]: 0 left, 1 right, 2 no step (a categorical bin without rows). */
  side: usize = allocU8(BIN_STRIDE);
}

@inline function score2(gl: f64, hl: f64, gr: f64, hr: f64): f64 {
  return gl * gl / hl + gr * gr / hr;
}

// scratch of the categorical order (at most BIN_STRIDE bins or cells)
const ORDER = allocI32(BIN_STRIDE);
const ORDER_TMP = allocI32(BIN_STRIDE); // orderByRatio's merge buffer
const RATIO = allocF64(BIN_STRIDE);

/**
 * Best single cut of a column's histogram into `out`: its score, and with `mark` each bin's side and the side
 * sums. Numeric: a cut between ordered value bins with missing on either side, or missing alone. Categorical:
 * bins ordered by G/(H + CAT_SMOOTH) (ties by bin), then a cut. Returns false when no cut leaves MIN_CHILD_ROWS on
 * both sides. With `mark` false only out.score is set (the stagewise rounds compare every column's best score and
 * mark only the winner's cut).
 */
export function findSplit(hist: Histogram, kind: i32, nBins: i32, out: Split, mark: bool = true): bool {
  const gh = hist.gh, cnt = hist.counts, side = out.side;
  const gt = hist.g, ht = hist.h, nt = hist.n;
  let best = -1.0;
  let found = false;
  if (kind == 0) {
    const gm = gOf(gh, 0), hm = hOf(gh, 0), nm = nOf(cnt, 0);
    // missing alone
    if (nm >= MIN_CHILD_ROWS && nt - nm >= MIN_CHILD_ROWS && hm > HESS_FLOOR && ht - hm > HESS_FLOOR) {
      best = score2(gm, hm, gt - gm, ht - hm);
      found = true;
      if (mark) {
        for (let b = 0; b < nBins; b++) store<u8>(side + <usize>b, b == 0 ? 0 : 1);
        out.gl = gm; out.hl = hm; out.gr = gt - gm; out.hr = ht - hm;
      }
    }
    let gl = 0.0, hl = 0.0, nl = 0.0;
    let bestCut = -1, bestMissLeft = false;
    if (nm == 0) {
      // no missing rows: the "missing on the left" cut of the loop below, with gm = hm = nm = 0 (the same
      // scores: gl + 0.0 differs from gl only in the sign of a zero, which score2 squares), and no other
      for (let t = 1; t < nBins - 1; t++) {
        const n1 = nOf(cnt, t);
        gl += gOf(gh, t); hl += hOf(gh, t); nl += n1;
        if (nt - nl < MIN_CHILD_ROWS) break; // nl only grows: no later cut leaves enough on the right
        if (n1 == 0 || nl < MIN_CHILD_ROWS || !(hl > HESS_FLOOR && ht - hl > HESS_FLOOR)) continue;
        const s = score2(gl, hl, gt - gl, ht - hl);
        if (s > best) { best = s; bestCut = t; found = true; }
      }
      bestMissLeft = true;
    } else for (let t = 1; t < nBins - 1; t++) {
      gl += gOf(gh, t); hl += hOf(gh, t); nl += nOf(cnt, t);
      if (nOf(cnt, t) == 0) continue; // same split as the previous non-empty cut
      // missing on the left
      let nL = nl + nm, hL = hl + hm, gL = gl + gm;
      if (nL >= MIN_CHILD_ROWS && nt - nL >= MIN_CHILD_ROWS && hL > HESS_FLOOR && ht - hL > HESS_FLOOR) {
        const s = score2(gL, hL, gt - gL, ht - hL);
        if (s > best) { best = s; bestCut = t; bestMissLeft = true; found = true; }
      }
      if (nm > 0) {
        nL = nl; hL = hl; gL = gl;
        if (nL >= MIN_CHILD_ROWS && nt - nL >= MIN_CHILD_ROWS && hL > HESS_FLOOR && ht - hL > HESS_FLOOR) {
          const s = score2(gL, hL, gt - gL, ht - hL);
          if (s > best) { best = s; bestCut = t; bestMissLeft = false; found = true; }
        }
      }
    }
    out.score = best;
    if (bestCut >= 0 && mark) {
      let g2 = 0.0, h2 = 0.0;
      store<u8>(side, bestMissLeft ? 0 : 1);
      if (bestMissLeft) { g2 += gm; h2 += hm; }
      for (let b = 1; b < nBins; b++) {
        const left = b <= bestCut;
        store<u8>(side + <usize>b, left ? 0 : 1);
        if (left) { g2 += gOf(gh, b); h2 += hOf(gh, b); }
      }
      out.gl = g2; out.hl = h2; out.gr = gt - g2; out.hr = ht - h2;
    }
    return found;
  }
  // categorical: order non-empty bins by G/H ratio
  let k = 0;
  for (let b = 0; b < nBins; b++) {
    store<u8>(side + <usize>b, 2); // empty bins take no step
    if (nOf(cnt, b) > 0) {
      stf(RATIO, b, gOf(gh, b) / (hOf(gh, b) + CAT_SMOOTH));
      store<i32>(ORDER + (<usize>k << 2), b);
      k++;
    }
  }
  orderByRatio(k);
  let gl = 0.0, hl = 0.0, nl = 0.0;
  let bestAt = -1;
  for (let i = 0; i < k - 1; i++) {
    const b = ldi(ORDER, i);
    gl += gOf(gh, b); hl += hOf(gh, b); nl += nOf(cnt, b);
    if (nl >= MIN_CHILD_ROWS && nt - nl >= MIN_CHILD_ROWS && hl > HESS_FLOOR && ht - hl > HESS_FLOOR) {
      const s = score2(gl, hl, gt - gl, ht - hl);
      if (s > best) { best = s; bestAt = i; found = true; out.gl = gl; out.hl = hl; }
    }
  }
  out.score = best;
  if (bestAt >= 0 && mark) {
    for (let i = 0; i < k; i++) store<u8>(side + <usize>ldi(ORDER, i), i <= bestAt ? 0 : 1);
    out.gr = gt - out.gl; out.hr = ht - out.hl;
  }
  return found;
}

/** Whether bin a comes before bin b: by RATIO, ties by bin (a total order: bins are distinct). */
@inline function before(a: i32, b: i32): bool {
  const ra = ldf(RATIO, a), rb = ldf(RATIO, b);
  return ra < rb || (ra == rb && a < b);
}

/**
 * Sorts ORDER[0..k) by (RATIO, bin). Readable version: an insertion sort. A few bins are sorted so; past 32
 * (a full-resolution pair has up to 256 cells), a bottom-up merge sort through ORDER_TMP. Both give the one
 * order of that total order, so the cut is the same bits either way.
 */
function orderByRatio(k: i32): void {
  if (k <= 32) {
    for (let i = 1; i < k; i++) {
      const b = ldi(ORDER, i);
      let j = i - 1;
      while (j >= 0 && before(b, ldi(ORDER, j))) { sti(ORDER, j + 1, ldi(ORDER, j)); j--; }
      sti(ORDER, j + 1, b);
    }
    return;
  }
  let src = ORDER, dst = ORDER_TMP;
  for (let width = 1; width < k; width <<= 1) {
    for (let lo = 0; lo < k; lo += width << 1) {
      const mid = min(lo + width, k), hi = min(lo + (width << 1), k);
      let i = lo, j = mid, o = lo;
      while (i < mid && j < hi) {
        const a = ldi(src, i), b = ldi(src, j);
        if (before(b, a)) { sti(dst, o++, b); j++; } else { sti(dst, o++, a); i++; }
      }
      while (i < mid) sti(dst, o++, ldi(src, i++));
      while (j < hi) sti(dst, o++, ldi(src, j++));
    }
    const t = src; src = dst; dst = t;
  }
  if (src != ORDER) memory.copy(ORDER, src, <usize>k << 2);
}

const CELL_HIST = new Histogram();
const CELL_SPLIT = new Split();

/**
 * The best cut of a full-resolution pair's cells (pairs.ts) as one categorical column: cells ordered by
 * G/(H + CAT_SMOOTH), cut in two with MIN_CHILD_ROWS a side. `gh` holds each cell's (g, h) side by side,
 * `counts` its rows. Writes each cell's side (0 left, 1 right, 2 empty) to `side` and the two Newton steps to
 * `steps` (f64 [2]); returns the cut's gain, or -1 when no cut is valid.
 */
export function cellCut(gh: usize, counts: usize, cells: i32, side: usize, steps: usize): f64 {
  const hist = CELL_HIST.at(gh, cells, counts), s = CELL_SPLIT;
  if (!findSplit(hist, 1, cells, s)) return -1;
  memory.copy(side, s.side, <usize>cells);
  stf(steps, 0, -s.gl / s.hl);
  stf(steps, 1, -s.gr / s.hr);
  return score2(s.gl, s.hl, s.gr, s.hr) - hist.g * hist.g / hist.h;
}

/**
 * A seeded random valid cut of a numeric column into `out` (missing rows join the left side): the smoothing
 * rounds of cross-fitted bags (boost.ts boostStagewise).
 */
export function randomSplit(hist: Histogram, nBins: i32, r: u64, out: Split): bool {
  const gh = hist.gh, cnt = hist.counts;
  let nt = 0.0, ht = 0.0;
  for (let b = 0; b < nBins; b++) { nt += nOf(cnt, b); ht += hOf(gh, b); }
  let count = 0;
  let nl = nOf(cnt, 0), hl = hOf(gh, 0);
  for (let t = 1; t < nBins - 1; t++) {
    nl += nOf(cnt, t); hl += hOf(gh, t);
    if (nOf(cnt, t) == 0) continue;
    if (nl >= MIN_CHILD_ROWS && nt - nl >= MIN_CHILD_ROWS && hl > HESS_FLOOR && ht - hl > HESS_FLOOR) count++;
  }
  if (count == 0) return false;
  let pick = <i32>(r % <u64>count);
  nl = nOf(cnt, 0); hl = hOf(gh, 0);
  let gl = gOf(gh, 0);
  let cut = -1;
  for (let t = 1; t < nBins - 1; t++) {
    nl += nOf(cnt, t); hl += hOf(gh, t); gl += gOf(gh, t);
    if (nOf(cnt, t) == 0) continue;
    if (nl >= MIN_CHILD_ROWS && nt - nl >= MIN_CHILD_ROWS && hl > HESS_FLOOR && ht - hl > HESS_FLOOR) {
      if (pick == 0) { cut = t; break; }
      pick--;
    }
  }
  let gt = 0.0;
  for (let b = 0; b < nBins; b++) gt += gOf(gh, b);
  const side = out.side;
  store<u8>(side, 0);
  for (let b = 1; b < nBins; b++) store<u8>(side + <usize>b, b <= cut ? 0 : 1);
  out.gl = gl; out.hl = hl; out.gr = gt - gl; out.hr = ht - hl;
  return true;
}
