// docs/reference/ask.md#shapes `panel`: periods per case collapsed to one row, the outcome read from a trend or a final window.
import { ServiceError } from '../../errors.ts';
import type { Shape } from '../../schemas/shape.ts';
import { SHAPE_DEFAULTS } from '../../schemas/shape.ts';
import type { Cell, RawTable } from '../types.ts';
import { cellText, inferColumn, isMissing, parseNumber } from '../typing.ts';
import { rollupColumns, type Agg } from './frame.ts';
import { NameBook } from './names.ts';
import { emptyShape, yesValues } from './outcome.ts';
import { buildTable, dedupePeriods, formatTime, numericColumn, readLog, shapeColumn, type CaseRows, type Log } from './read.ts';
import { Z_ONE_SIDED, mannKendallZ, slope } from './stats.ts';
import type { ShapeOptions, ShapedRecord } from './types.ts';

export type PanelShape = Extract<Shape, { kind: 'panel' }>;

/** Periods a case needs when `min_history` is not given. */
export const PANEL_MIN_HISTORY = 3;

type Summary =
  { kind: 'numeric'; values: (number | null)[] } | { kind: 'yesno'; values: Float64Array } | { kind: 'category'; cells: Cell[] };

/**
 * `trend_of`: the outcome `{col}_trend_{down|up}` is 1 when the Mann-Kendall test over the case's
 * non-missing values (in period order) finds a trend in that direction at `alpha` (one-sided); the
 * features summarise the other columns over the same periods, and the traced column itself gives no
 * feature (its own aggregates would restate the outcome). `window_of`: the outcome
 * `{col}_{agg}_next_{k}p` is `agg` of the yes/no column over the case's last k periods; the features
 * summarise every other column and the past of that column over the periods before them. A case
 * needs `min_history` periods (default 3; a window also needs one period before it).
 */
export function shapePanel(table: RawTable, shape: PanelShape, opts: ShapeOptions): ShapedRecord {
  const label = shape.label;
  const minHistory = shape.min_history ?? PANEL_MIN_HISTORY;
  const trend = 'trend_of' in label;
  const labelName = trend ? label.trend_of : label.window_of;
  const labelField = trend ? 'shape.label.trend_of' : 'shape.label.window_of';
  const labelIdx = shapeColumn(table, labelName, labelField);
  const trendValues = trend ? numericColumn(table, labelIdx, labelField) : null;
  const windowValues = trend ? null : yesValues(table.data[labelIdx]);
  if (!trend && !windowValues) {
    throw new ServiceError(
      'shape_invalid',
      `Column ${JSON.stringify(labelName)} must be yes/no (0/1, true/false, yes/no) to be read as a window.`,
      {
        field: labelField,
      },
    );
  }
  const log = readLog(table, opts.entityColumn, opts.timeColumn, 'order');
  const duplicates = dedupePeriods(log);
  const k = trend ? 0 : ((label as { periods?: number }).periods ?? SHAPE_DEFAULTS.window_periods);
  const agg = trend ? 'max' : ((label as { agg?: string }).agg ?? SHAPE_DEFAULTS.window_agg);
  const direction = trend ? ((label as { direction?: 'down' | 'up' }).direction ?? SHAPE_DEFAULTS.trend_direction) : 'down';
  const alpha = trend ? ((label as { alpha?: number }).alpha ?? SHAPE_DEFAULTS.trend_alpha) : 0.1;
  const outcomeName = trend ? `${labelName}_trend_${direction}` : `${labelName}_${agg}_next_${k}p`;

  // Cases, their feature periods and outcomes.
  const cases: { c: CaseRows; periods: number[]; y: number | null }[] = [];
  let short = 0;
  for (const c of log.cases) {
    if (trendValues) {
      const xs = c.rows.map((r) => trendValues[r]).filter((x): x is number => x !== null);
      if (xs.length < minHistory) short++;
      else {
        const z = mannKendallZ(xs);
        const crit = Z_ONE_SIDED[alpha];
        cases.push({ c, periods: c.rows, y: (direction === 'down' ? z <= -crit : z >= crit) ? 1 : 0 });
      }
    } else {
      const n = c.rows.length;
      if (n < Math.max(minHistory, k + 1)) short++;
      else cases.push({ c, periods: c.rows.slice(0, n - k), y: windowOutcome(c.rows.slice(n - k), windowValues as Float64Array, agg) });
    }
  }
  if (cases.length === 0)
    emptyShape('panel', `no case has the ${Math.max(minHistory, k + 1)} periods it needs (${log.cases.length} cases read).`);

  const skip = new Set([log.entityIdx, log.timeIdx, ...(trend ? [labelIdx] : [])]);
  const sources = table.columns.map((_, c) => c).filter((c) => !skip.has(c));
  const summaries = sources.map((c) => summarise(table, c, log));
  const book = new NameBook([opts.entityColumn, outcomeName]);
  const names = [book.add('period_count')];
  sources.forEach((c, i) => {
    const col = table.columns[c];
    const kind = summaries[i].kind;
    if (kind === 'numeric') for (const s of NUMERIC_STATS) names.push(book.add(`${col}_${s}`));
    else if (kind === 'yesno') names.push(book.add(`${col}_share`), book.add(`${col}_last`));
    else names.push(book.add(`${col}_last`));
  });

  const rowsOf = (list: { c: CaseRows; periods: number[] }[], y: (i: number) => Cell) =>
    buildTable(
      [opts.entityColumn, ...names, outcomeName],
      [
        list.map((x) => x.c.id),
        ...featureColumns(
          list.map((x) => x.periods),
          summaries,
        ),
        list.map((_, i) => y(i)),
      ],
    );
  const out = rowsOf(cases, (i) => cases[i].y);
  const current = trend
    ? undefined
    : rowsOf(
        cases.map((x) => ({ c: x.c, periods: x.c.rows })),
        () => null,
      );
  let labeled = 0;
  let positives = 0;
  for (const x of cases) if (x.y !== null) (labeled++, (positives += x.y));
  return {
    table: out,
    outcomeColumn: outcomeName,
    entityColumn: opts.entityColumn,
    asOf: String(formatTime(log.latest, log.numericTimes)),
    counts: {
      ...log.counts,
      duplicate_periods: duplicates,
      short_history: short,
      cases: cases.length,
      rows: cases.length,
      labeled,
      positives,
    },
    features: names,
    kept: [],
    ...(current ? { current } : {}),
  };
}

const NUMERIC_STATS = ['mean', 'min', 'max', 'last', 'change', 'slope'] as const;

/** docs/reference/ask.md#shapes window `agg` over the label periods' non-missing values; null when all are blank. */
function windowOutcome(rows: number[], values: Float64Array, agg: string): number | null {
  const xs = rows.map((r) => values[r]).filter((x) => !Number.isNaN(x));
  if (xs.length === 0) return null;
  if (agg === 'min') return xs.every((x) => x === 1) ? 1 : 0;
  if (agg === 'last') return xs[xs.length - 1];
  return xs.some((x) => x === 1) ? 1 : 0; // max, any
}

/** How a column is summarised: yes/no first (share and last), then numbers, else the last category. */
function summarise(table: RawTable, c: number, log: Log): Summary {
  const rows = log.cases.flatMap((x) => x.rows);
  const cells = table.data[c];
  const used = rows.map((r) => cells[r]);
  const yes = yesValues(used);
  if (yes) return { kind: 'yesno', values: yesValues(cells) as Float64Array };
  if (inferColumn(used).kind === 'numeric') return { kind: 'numeric', values: cells.map((x) => (isMissing(x) ? null : parseNumber(x))) };
  return { kind: 'category', cells };
}

/** Feature columns for each case's periods: period_count, then each source column's summaries. */
function featureColumns(periods: number[][], summaries: Summary[]): Cell[][] {
  const out: Cell[][] = [periods.map((p) => p.length)];
  // Sum, count, min and max per case and numeric source through one arquero rollup.
  const numeric = summaries.flatMap((s, i) => (s.kind === 'numeric' ? [i] : []));
  const group: number[] = [];
  const rows: number[] = [];
  periods.forEach((p, i) => p.forEach((r) => (group.push(i), rows.push(r))));
  const columns = numeric.map((i) => rows.map((r) => (summaries[i] as { values: (number | null)[] }).values[r]));
  const aggs = numeric.flatMap((_, j) => (['sum', 'valid', 'min', 'max'] as Agg[]).map((a) => [a, j] as const));
  const stats = rollupColumns(group, columns, aggs);
  const stat = (c: number, j: number, k: number) => stats.get(c)?.[4 * j + k] ?? null;
  summaries.forEach((s, i) => {
    if (s.kind === 'numeric') {
      const j = numeric.indexOf(i);
      const seq = periods.map((p) => p.map((r) => s.values[r]));
      const present = seq.map((xs) => xs.filter((x): x is number => x !== null));
      out.push(periods.map((_, c) => ((stat(c, j, 1) ?? 0) > 0 ? (stat(c, j, 0) as number) / (stat(c, j, 1) as number) : null)));
      out.push(periods.map((_, c) => stat(c, j, 2)));
      out.push(periods.map((_, c) => stat(c, j, 3)));
      out.push(present.map((xs) => (xs.length ? xs[xs.length - 1] : null)));
      out.push(present.map((xs) => (xs.length ? xs[xs.length - 1] - xs[0] : null)));
      out.push(seq.map((xs) => slope(xs)));
    } else if (s.kind === 'yesno') {
      const seq = periods.map((p) => p.map((r) => s.values[r]).filter((x) => !Number.isNaN(x)));
      out.push(seq.map((xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null)));
      out.push(seq.map((xs) => (xs.length ? xs[xs.length - 1] : null)));
    } else {
      out.push(
        periods.map((p) => {
          let last: string | null = null;
          for (const r of p) last = cellText(s.cells[r]) ?? last;
          return last;
        }),
      );
    }
  });
  return out;
}
