// The shapes' arquero verbs (architecture.md: host/table is arquero's only home). Column names in
// these frames are our own fixed names (c, t, v0, ...): caller data never reaches an expression.
import * as aq from 'arquero';
import type { RawTable } from '../types.ts';
import { compareCodePoints } from '../typing.ts';

// `op` builds expression objects from our own column names; its typings describe values, hence `any`.
const op: any = aq.op;
export type Frame = ReturnType<typeof aq.table>;

/** A frame from named arrays (all the same length). */
export function frame(columns: Record<string, ArrayLike<unknown>>): Frame {
  return aq.table(columns as Record<string, unknown[]>);
}

/**
 * Rows in canonical order (architecture.md "Determinism contract"): entity id by code point, then
 * time, then the row's cells as text (a total order up to identical rows).
 */
export function canonicalOrder(table: RawTable, rows: number[], ids: string[], times: Float64Array): number[] {
  const distinct = [...new Set(rows.map((r) => ids[r]))].sort(compareCodePoints);
  const rank = new Map<string, number>();
  distinct.forEach((id, i) => rank.set(id, i));
  const e = new Int32Array(rows.length);
  const t = new Float64Array(rows.length);
  const k: string[] = new Array(rows.length);
  rows.forEach((r, i) => {
    e[i] = rank.get(ids[r]) as number;
    t[i] = times[r];
    k[i] = table.data.map((col) => (col[r] === null || col[r] === undefined ? '' : String(col[r]))).join('\u0000');
  });
  const sorted = frame({ e, t, k, r: Int32Array.from(rows) }).orderby('e', 't', 'k');
  return Array.from(sorted.array('r') as ArrayLike<number>);
}

/** Per-group statistics of value columns `v0..v{n-1}` from one rollup. */
export interface GroupStats {
  n: number;
  sum: (number | null)[];
  mean: (number | null)[];
  min: (number | null)[];
  max: (number | null)[];
  valid: number[];
}

/**
 * Groups the rows of `f` whose time `t` lies in (lo, hi] by `c` and summarises v0..v{nValues-1}:
 * count, sum, mean (sum over non-missing count), min, max and non-missing count (arquero skips nulls
 * in every aggregate).
 */
export function rollupWindow(f: Frame, nValues: number, lo: number, hi: number): Map<number, GroupStats> {
  const inWindow = f.params({ lo, hi }).filter((d: any, $: any) => d.t > $.lo && d.t <= $.hi);
  return rollupBy(inWindow, nValues);
}

/** Groups every row of `f` by `c` and summarises as `rollupWindow` does. */
export function rollupBy(f: Frame, nValues: number): Map<number, GroupStats> {
  const spec: Record<string, unknown> = { n: op.count() };
  for (let j = 0; j < nValues; j++) {
    spec[`s${j}`] = op.sum(`v${j}`);
    spec[`lo${j}`] = op.min(`v${j}`);
    spec[`hi${j}`] = op.max(`v${j}`);
    spec[`k${j}`] = op.valid(`v${j}`);
  }
  const out = new Map<number, GroupStats>();
  if (f.numRows() === 0) return out;
  const r = f.groupby('c').rollup(spec as any);
  const col = (name: string) => r.array(name) as ArrayLike<any>;
  const cs = col('c');
  const ns = col('n');
  const per = Array.from({ length: nValues }, (_, j) => ({ s: col(`s${j}`), lo: col(`lo${j}`), hi: col(`hi${j}`), k: col(`k${j}`) }));
  for (let i = 0; i < r.numRows(); i++) {
    const valid = per.map((p) => p.k[i] as number);
    out.set(cs[i], {
      n: ns[i],
      valid,
      sum: per.map((p, j) => (valid[j] > 0 ? p.s[i] : null)),
      mean: per.map((p, j) => (valid[j] > 0 ? p.s[i] / valid[j] : null)),
      min: per.map((p, j) => (valid[j] > 0 ? p.lo[i] : null)),
      max: per.map((p, j) => (valid[j] > 0 ? p.hi[i] : null)),
    });
  }
  return out;
}

/** Counts rows in (lo, hi] per (c, y) pair; keys are `${c}:${y}`. */
export function countByType(f: Frame, lo: number, hi: number): Map<string, number> {
  const inWindow = f.params({ lo, hi }).filter((d: any, $: any) => d.t > $.lo && d.t <= $.hi && d.y >= 0);
  const out = new Map<string, number>();
  if (inWindow.numRows() === 0) return out;
  const r = inWindow.groupby('c', 'y').rollup({ n: op.count() });
  const cs = r.array('c') as ArrayLike<number>;
  const ys = r.array('y') as ArrayLike<number>;
  const ns = r.array('n') as ArrayLike<number>;
  for (let i = 0; i < r.numRows(); i++) out.set(`${cs[i]}:${ys[i]}`, ns[i]);
  return out;
}

/** Per c over rows with t <= hi: first and last time, and the largest `m` (a 0/1 match flag). */
export function spanBy(f: Frame, lo: number, hi: number): Map<number, { n: number; first: number; last: number; anyMatch: number }> {
  const inWindow = f.params({ lo, hi }).filter((d: any, $: any) => d.t > $.lo && d.t <= $.hi);
  const out = new Map<number, { n: number; first: number; last: number; anyMatch: number }>();
  if (inWindow.numRows() === 0) return out;
  const r = inWindow.groupby('c').rollup({ n: op.count(), first: op.min('t'), last: op.max('t'), anyMatch: op.max('m') });
  const get = (name: string) => r.array(name) as ArrayLike<number>;
  const [cs, ns, fs, ls, ms] = [get('c'), get('n'), get('first'), get('last'), get('anyMatch')];
  for (let i = 0; i < r.numRows(); i++) out.set(cs[i], { n: ns[i], first: fs[i], last: ls[i], anyMatch: ms[i] });
  return out;
}

/**
 * Trailing windows over each case's periods (series): for every row, with the frame ordered by `t`
 * within `c`, the non-missing `v{j}` of the row and the w-1 rows before it (`win_{j}_{w}`, in period
 * order), `v{j}` w-1 rows back (`lag_{j}_{w}`) and the row's position in its case (`pos`, 1-based).
 * The statistics are taken from the window's values by the caller, so every window is summed
 * afresh (a rolling sum with removals would carry rounding from earlier periods).
 */
export function trailingWindows(f: Frame, nValues: number, windows: readonly number[]): Frame {
  const spec: Record<string, unknown> = { pos: op.row_number() };
  for (const w of windows) {
    for (let j = 0; j < nValues; j++) {
      spec[`win_${j}_${w}`] = aq.rolling(op.array_agg(`v${j}`), [-(w - 1), 0]);
      spec[`lag_${j}_${w}`] = op.lag(`v${j}`, w - 1);
    }
  }
  return f.groupby('c').orderby('t').derive(spec as any).ungroup().unorder();
}
