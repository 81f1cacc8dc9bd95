// The shapes' arquero verbs (docs/design/architecture.md#layout: host/table is arquero's only home). Column names in
// these frames are our own fixed names (c, t, v0, ...): caller data never reaches an expression.
import * as aq from 'arquero';

// `op` builds expression objects from our own column names; its typings describe values, hence `any`.
const op: any = aq.op;
export type Frame = ReturnType<typeof aq.table>;

/** A frame from named arrays (all the same length). */
export function frame(columns: Record<string, ArrayLike<unknown>>): Frame {
  return aq.table(columns as Record<string, unknown[]>);
}

/** Aggregates `rollupColumns` offers; each skips blank (null) values, as arquero's do. */
export type Agg = 'sum' | 'min' | 'max' | 'valid';

/**
 * One arquero groupby/rollup pass: per group id, each requested aggregate of its column, null when
 * the group has no value there (`valid` gives 0). Callers put a window or a condition into the
 * column itself (null outside it), so many windows cost one pass over the rows.
 */
export function rollupColumns(
  group: ArrayLike<number>,
  columns: ArrayLike<number | null>[],
  aggs: readonly (readonly [Agg, number])[],
): Map<number, (number | null)[]> {
  const out = new Map<number, (number | null)[]>();
  if (group.length === 0) return out;
  const data: Record<string, ArrayLike<unknown>> = { g: group };
  columns.forEach((col, i) => (data[`a${i}`] = col));
  const spec: Record<string, unknown> = {};
  aggs.forEach(([agg, i], k) => (spec[`r${k}`] = op[agg](`a${i}`)));
  const r = frame(data)
    .groupby('g')
    .rollup(spec as any);
  const gs = r.array('g') as ArrayLike<number>;
  const results = aggs.map((_, k) => r.array(`r${k}`) as ArrayLike<number | null | undefined>);
  for (let i = 0; i < r.numRows(); i++)
    out.set(
      gs[i],
      results.map((res) => res[i] ?? null),
    );
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
  return f
    .groupby('c')
    .orderby('t')
    .derive(spec as any)
    .ungroup()
    .unorder();
}
