// docs/reference/ask.md#shapes `signals`: sensor readings and event intervals read as snapshots of each case up to as_of.
import { ServiceError } from '../../errors.ts';
import type { Shape } from '../../schemas/shape.ts';
import { SHAPE_DEFAULTS } from '../../schemas/shape.ts';
import type { Cell, RawTable } from '../types.ts';
import { isMissing } from '../typing.ts';
import { NameBook, spanName } from './names.ts';
import { emptyShape } from './outcome.ts';
import { DAY, HOUR, buildTable, formatTime, numericColumn, parseAsOf, readLog, readTimes, shapeColumn } from './read.ts';
import type { ShapeOptions, ShapedRecord } from './types.ts';

export type SignalsShape = Extract<Shape, { kind: 'signals' }>;
type Every = SignalsShape['snapshot_every'];

const EVERY_MS: Record<Every, number> = { '1h': HOUR, '6h': 6 * HOUR, '1d': DAY, '1w': 7 * DAY };
/** Snapshot grids are aligned to UTC: hours and days on the epoch, weeks on Mondays (1970-01-05). */
const GRID_ORIGIN: Record<Every, number> = { '1h': 0, '6h': 0, '1d': 0, '1w': 4 * DAY };

interface Interval {
  start: number;
  end: number;
}

/**
 * A row with an `event_column` value (or, without event_column, an `event_start_column` value) is an
 * event interval from `event_start_column` (default its time) to `event_end_column` (default its
 * start); every other row is a reading. Each case gets a snapshot at every grid point of
 * `snapshot_every` from its first reading up to as_of; a snapshot at s sees only readings at or before
 * s and intervals that started at or before s, and needs `min_history` readings by then. Window w
 * covers the readings in (s - w snapshots, s]. Outcome `event_next_{span}` is 1 when an interval
 * starts in (s, s + horizon snapshots], blank when that window reaches past as_of (not yet known).
 * Nothing after as_of is read, and an interval's end counts only once it has passed.
 */
export function shapeSignals(table: RawTable, shape: SignalsShape, opts: ShapeOptions): ShapedRecord {
  const signalNames = shape.signal_columns;
  const signalIdx = signalNames.map((name, i) => shapeColumn(table, name, `shape.signal_columns.${i}`));
  const eventIdx = shape.event_column === undefined ? -1 : shapeColumn(table, shape.event_column, 'shape.event_column');
  const startIdx = shape.event_start_column === undefined ? -1 : shapeColumn(table, shape.event_start_column, 'shape.event_start_column');
  const endIdx = shape.event_end_column === undefined ? -1 : shapeColumn(table, shape.event_end_column, 'shape.event_end_column');
  if (eventIdx < 0 && startIdx < 0) {
    throw new ServiceError('shape_invalid', 'Signals need event_column (or event_start_column) to tell event intervals from readings.', {
      field: 'shape.event_column',
    });
  }
  const marker = eventIdx >= 0 ? eventIdx : startIdx;
  const starts = startIdx >= 0 ? readTimes(table, startIdx, 'shape.event_start_column', 'instant').times : null;
  const ends = endIdx >= 0 ? readTimes(table, endIdx, 'shape.event_end_column', 'instant').times : null;
  const values = signalIdx.map((c, i) => numericColumn(table, c, `shape.signal_columns.${i}`));
  let given: number | null = null;
  const log = readLog(table, opts.entityColumn, opts.timeColumn, 'instant', (latest) => (given = parseAsOf(shape.as_of)) ?? latest);
  const asOf = given ?? log.latest;
  const every = shape.snapshot_every;
  const step = EVERY_MS[every];
  const windows = shape.windows;
  const minHistory = shape.min_history ?? SHAPE_DEFAULTS.signals_min_history;
  const horizon = shape.horizon;

  const outcomeName = `event_next_${spanName(horizon, every)}`;
  const book = new NameBook([opts.entityColumn, opts.timeColumn, outcomeName]);
  const names: string[] = [];
  const wMin = Math.min(...windows);
  const wMax = Math.max(...windows);
  signalNames.forEach((c) => {
    names.push(book.add(`${c}_last`));
    for (const w of windows) for (const s of ['mean', 'min', 'max']) names.push(book.add(`${c}_${s}_${spanName(w, every)}`));
    names.push(book.add(`${c}_mean_${spanName(wMin, every)}_minus_${spanName(wMax, every)}`));
  });
  names.push(
    book.add(`reading_count_${spanName(wMax, every)}`),
    book.add('event_count_prior'),
    book.add('days_since_last_event'),
    book.add('in_event'),
  );

  const ids: string[] = [];
  const snapTimes: number[] = [];
  const cols: Cell[][] = names.map(() => []);
  const ys: Cell[] = [];
  let readingsTotal = 0;
  let intervalsTotal = 0;
  let eventsAfter = 0;
  let short = 0;
  for (const c of log.cases) {
    const readings: number[] = [];
    const intervals: Interval[] = [];
    for (const r of c.rows) {
      if (isMissing(table.data[marker][r])) readings.push(r);
      else {
        const start = starts && !Number.isNaN(starts[r]) ? starts[r] : log.times[r];
        const end = ends && !Number.isNaN(ends[r]) ? ends[r] : start;
        if (start > asOf) eventsAfter++;
        else intervals.push({ start, end });
      }
    }
    readingsTotal += readings.length;
    intervalsTotal += intervals.length;
    if (readings.length === 0) continue;
    intervals.sort((a, b) => a.start - b.start || a.end - b.end);
    const rt = readings.map((r) => log.times[r]);
    const origin = GRID_ORIGIN[every];
    const first = origin + Math.ceil((rt[0] - origin) / step) * step;
    let hi = 0;
    for (let s = first; s <= asOf; s += step) {
      while (hi < rt.length && rt[hi] <= s) hi++;
      if (hi < minHistory) {
        short++;
        continue;
      }
      ids.push(c.id);
      snapTimes.push(s);
      let k = 0;
      const put = (x: Cell) => cols[k++].push(x);
      values.forEach((v) => {
        let last: number | null = null;
        for (let i = hi - 1; i >= 0 && last === null; i--) last = v[readings[i]];
        put(last);
        const means: (number | null)[] = [];
        for (const w of windows) {
          const st = windowStats(v, readings, rt, s - w * step, hi);
          means[w] = st.mean;
          (put(st.mean), put(st.min), put(st.max));
        }
        const a = means[wMin];
        const b = means[wMax];
        put(a === null || b === null ? null : a - b);
      });
      let lo = hi;
      while (lo > 0 && rt[lo - 1] > s - wMax * step) lo--;
      put(hi - lo);
      let prior = 0;
      let lastStart = NaN;
      let inEvent = 0;
      let next = 0;
      for (const iv of intervals) {
        if (iv.start <= s) {
          prior++;
          lastStart = iv.start;
          if (iv.end > s) inEvent = 1;
        } else if (iv.start <= s + horizon * step) next = 1;
      }
      put(prior);
      put(Number.isNaN(lastStart) ? null : (s - lastStart) / DAY);
      put(inEvent);
      ys.push(s + horizon * step > asOf ? null : next);
    }
  }
  if (ids.length === 0) {
    emptyShape('signals', `no snapshot up to as_of has ${minHistory} readings (${readingsTotal} readings in ${log.cases.length} cases).`);
  }
  const out = buildTable(
    [opts.entityColumn, opts.timeColumn, ...names, outcomeName],
    [ids, snapTimes.map((s) => formatTime(s, log.numericTimes)), ...cols, ys],
  );
  const labeled = ys.filter((y) => y !== null).length;
  return {
    table: out,
    outcomeColumn: outcomeName,
    entityColumn: opts.entityColumn,
    timeColumn: opts.timeColumn,
    asOf: String(formatTime(asOf, log.numericTimes)),
    counts: {
      ...log.counts,
      readings: readingsTotal,
      intervals: intervalsTotal,
      intervals_after_as_of: eventsAfter,
      short_history: short,
      cases: new Set(ids).size,
      rows: ids.length,
      labeled,
      positives: ys.filter((y) => y === 1).length,
    },
    features: names,
    kept: [],
  };
}

/** Mean, min and max of the non-missing values of readings[lo..hi) with time > from. */
function windowStats(v: (number | null)[], readings: number[], rt: number[], from: number, hi: number) {
  let n = 0;
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (let i = hi - 1; i >= 0 && rt[i] > from; i--) {
    const x = v[readings[i]];
    if (x === null) continue;
    n++;
    sum += x;
    if (x < min) min = x;
    if (x > max) max = x;
  }
  return n === 0 ? { mean: null, min: null, max: null } : { mean: sum / n, min, max };
}
