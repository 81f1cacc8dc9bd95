// docs/reference/ask.md#shapes `series`: one row per case per period, trailing-window statistics known at each period.
import { ServiceError } from '../../errors.ts';
import type { Shape } from '../../schemas/shape.ts';
import type { Cell, RawTable } from '../types.ts';
import { frame, trailingWindows } from './frame.ts';
import { NameBook } from './names.ts';
import { labelCounts, pickOutcome, emptyShape } from './outcome.ts';
import { buildTable, dedupePeriods, formatTime, numericColumn, readLog, shapeColumn } from './read.ts';
import type { ShapeOptions, ShapedRecord } from './types.ts';

export type SeriesShape = Extract<Shape, { kind: 'series' }>;

/**
 * Periods are a case's rows in `time_column` order (a gap is not filled; a repeated period keeps
 * one row, the last in canonical order). For the row at period t and each window w, the features
 * use periods t-w+1..t, the values known at t: `{v}_mean_{w}p`, `{v}_min_{w}p`, `{v}_max_{w}p`,
 * `{v}_change_{w}p` (value at t minus value at t-w+1), and `{v}_last` (the value at t). The row's
 * own outcome column (e.g. `stockout_next_week`, describing what follows t) is kept as it is, with
 * every other column that is not a value column. Rows before a case's first full largest window are
 * dropped (`short_history`). A value column may not be the outcome column: its window would hold
 * the outcome itself.
 */
export function shapeSeries(table: RawTable, shape: SeriesShape, opts: ShapeOptions): ShapedRecord {
  const valueNames = shape.value_columns;
  const valueIdx = valueNames.map((name, i) => shapeColumn(table, name, `shape.value_columns.${i}`));
  valueNames.forEach((name, i) => {
    if (name === opts.question?.outcomeColumn) {
      throw new ServiceError(
        'shape_invalid',
        `Value column ${JSON.stringify(name)} is the outcome column; its trailing window would contain the outcome.`,
        {
          field: `shape.value_columns.${i}`,
        },
      );
    }
  });
  const values = valueIdx.map((c, i) => numericColumn(table, c, `shape.value_columns.${i}`));
  const log = readLog(table, opts.entityColumn, opts.timeColumn, 'order');
  const duplicates = dedupePeriods(log);
  const windows = shape.windows;
  const widest = Math.max(...windows);

  const rows: number[] = [];
  const cs: number[] = [];
  log.cases.forEach((c, i) => c.rows.forEach((r) => (rows.push(r), cs.push(i))));
  const cols: Record<string, ArrayLike<unknown>> = { c: cs, t: rows.map((r) => log.times[r]), r: rows };
  values.forEach((v, j) => (cols[`v${j}`] = rows.map((r) => v[r])));
  const w = trailingWindows(frame(cols), values.length, windows)
    .params({ widest })
    .filter((d: any, $: any) => d.pos >= $.widest);
  if (w.numRows() === 0) {
    emptyShape('series', `no case has ${widest} periods for the widest window (${rows.length} usable rows).`);
  }

  const skip = new Set([log.entityIdx, log.timeIdx, ...valueIdx]);
  const keptIdx = table.columns.map((_, c) => c).filter((c) => !skip.has(c));
  const kept = keptIdx.map((c) => table.columns[c]);
  const book = new NameBook([opts.entityColumn, opts.timeColumn, ...kept]);
  const names: string[] = [];
  const data: Cell[][] = [];
  const get = (name: string) => Array.from(w.array(name) as ArrayLike<Cell>, (x) => (x === undefined ? null : x));
  const outRows = Array.from(w.array('r') as ArrayLike<number>);
  valueNames.forEach((v, j) => {
    names.push(book.add(`${v}_last`));
    data.push(outRows.map((r) => values[j][r]));
    for (const win of windows) {
      const wins = get(`win_${j}_${win}`) as unknown as number[][];
      names.push(
        book.add(`${v}_mean_${win}p`),
        book.add(`${v}_min_${win}p`),
        book.add(`${v}_max_${win}p`),
        book.add(`${v}_change_${win}p`),
      );
      const lag = get(`lag_${j}_${win}`);
      data.push(
        wins.map((xs) => (xs.length ? sum(xs) / xs.length : null)),
        wins.map((xs) => (xs.length ? Math.min(...xs) : null)),
        wins.map((xs) => (xs.length ? Math.max(...xs) : null)),
        outRows.map((r, i) => {
          const now = values[j][r];
          const then = lag[i] as number | null;
          return now === null || then === null ? null : now - then;
        }),
      );
    }
  });

  const idOf = new Map<number, string>();
  log.cases.forEach((c) => c.rows.forEach((r) => idOf.set(r, c.id)));
  const out = buildTable(
    [opts.entityColumn, opts.timeColumn, ...kept, ...names],
    [
      outRows.map((r) => idOf.get(r) as string),
      outRows.map((r) => formatTime(log.times[r], log.numericTimes)),
      ...keptIdx.map((c) => outRows.map((r) => table.data[c][r])),
      ...data,
    ],
  );
  const outcomeColumn = pickOutcome(table, kept, opts.question?.outcomeColumn);
  const labels = labelCounts(
    out.data[out.columns.indexOf(outcomeColumn)],
    table.data[table.columns.indexOf(outcomeColumn)],
    opts.question?.positiveValues,
  );
  return {
    table: out,
    outcomeColumn,
    entityColumn: opts.entityColumn,
    timeColumn: opts.timeColumn,
    asOf: String(formatTime(log.latest, log.numericTimes)),
    counts: {
      ...log.counts,
      duplicate_periods: duplicates,
      short_history: rows.length - outRows.length,
      cases: new Set(outRows.map((r) => idOf.get(r))).size,
      rows: outRows.length,
      ...labels,
    },
    features: names,
    kept,
  };
}

function sum(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s;
}
