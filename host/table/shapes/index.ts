// docs/reference/ask.md#shapes record shapes: the one entry that turns a log into one table of cases (docs/design/architecture.md#data-flow-2).
import type { Shape } from '../../schemas/shape.ts';
import { parseIso8601, timeReaderFor } from '../select.ts';
import type { RawTable } from '../types.ts';
import { shapeEvents } from './events.ts';
import { shapePanel } from './panel.ts';
import { formatTime } from './read.ts';
import { shapeSeries } from './series.ts';
import { shapeSignals } from './signals.ts';
import { shapeTraces } from './traces.ts';
import { shapeSnapshots } from './snapshots.ts';
import type { ShapeOptions, ShapedRecord } from './types.ts';

export type { QuestionOutcome, ShapeOptions, ShapedRecord } from './types.ts';
export { SHAPE_FEATURES, type FeaturePattern } from './features.ts';

/**
 * Reads `table` through `shape`. `table` comes back unchanged; every other kind reads the record as
 * a log (events and signals as of their `as_of`; series, panel and traces whole) and builds one row
 * per case (events, panel), per case and period (series),
 * per case and snapshot (signals) or per run (traces), with the same output for the same rows in any
 * order. Errors: `shape_invalid` naming the field at fault (`shape.value_columns.1`, `time_column`,
 * `shape.as_of`, ...), `shape_empty` (field `shape`) when the read leaves no usable row.
 */
export function applyShape(table: RawTable, shape: Shape, opts: ShapeOptions): ShapedRecord {
  switch (shape.kind) {
    case 'table':
      return asTable(table, opts);
    case 'events':
      return shapeEvents(table, shape, opts);
    case 'series':
      return shapeSeries(table, shape, opts);
    case 'panel':
      return shapePanel(table, shape, opts);
    case 'signals':
      return shapeSignals(table, shape, opts);
    case 'traces':
      return shapeTraces(table, shape, opts);
    case 'snapshots':
      return shapeSnapshots(table, shape, opts);
  }
}

/** docs/reference/ask.md#shapes `table`: the record is already one row per case. */
function asTable(table: RawTable, opts: ShapeOptions): ShapedRecord {
  const tc = opts.timeColumn ? table.columns.indexOf(opts.timeColumn) : -1;
  let latest = NaN;
  let numeric = true;
  if (tc >= 0) {
    const { read, allIso } = timeReaderFor(table.data[tc]);
    for (const cell of table.data[tc]) {
      const t = read(cell);
      if (t === null) continue;
      if (!(t <= latest)) latest = t;
      if (parseIso8601(cell, allIso ? 'any' : 'extended') !== null) numeric = false; // 20240315 in a date column is a date, written back as one
    }
  }
  return {
    table,
    outcomeColumn: opts.question?.outcomeColumn ?? '',
    entityColumn: opts.entityColumn,
    ...(tc >= 0 ? { timeColumn: opts.timeColumn } : {}),
    asOf: Number.isNaN(latest) ? '' : String(formatTime(latest, numeric)),
    counts: { input_rows: table.rowCount, rows: table.rowCount },
    features: [],
    kept: table.columns.filter((c) => c !== opts.entityColumn),
  };
}
