// docs/reference/ask.md#shapes: the `shape` object of an ask — record kinds, their fields, label forms and `when` expressions.
import * as v from 'valibot';
import { CsvSchema, FetchHeadersSchema, FetchUrlSchema, LIMITS, RecordIdSchema, RowsSchema, exactlyOneSource, maxChars } from './common.ts';

/** docs/reference/ask.md#shapes/8: a column name inside a shape, 1 to 200 characters. */
export const ColumnNameSchema = v.pipe(v.string(), v.minLength(1), maxChars(LIMITS.columnNameMax));
/** docs/reference/ask.md#shapes/8: value_columns / signal_columns, 1 to 24 column names. */
const ColumnListSchema = v.pipe(v.array(ColumnNameSchema), v.minLength(1), v.maxLength(LIMITS.shapeColumnsMax));
/** docs/reference/ask.md#shapes: as_of, an ISO 8601 time of 4 to 40 characters (parsed by the shape reader). */
const AsOfSchema = v.pipe(v.string(), v.minLength(4), maxChars(40));

/** Fixed tuples (docs/reference/ask.md#shapes windows / lookback_days): one of the listed arrays, exactly. */
function oneOfTuples<const T extends readonly (readonly number[])[]>(tuples: T) {
  const text = tuples.map((t) => `[${t.join(',')}]`).join(', ');
  const options = tuples.map((t) => v.strictTuple(t.map((n) => v.literal(n)))) as unknown as {
    [K in keyof T]: v.GenericSchema<T[K]>;
  };
  return v.union(options, `must be one of ${text}`);
}

// --- when expressions (docs/reference/ask.md#shapes) ---------------------------------------------------------------

export const WHEN_OPS = ['==', '!=', '<', '<=', '>', '>=', 'in'] as const;
const ScalarSchema = v.union([v.string(), v.number(), v.boolean()], 'must be a string, number or boolean');
const WhenValueSchema = v.union(
  [v.string(), v.number(), v.boolean(), v.pipe(v.array(ScalarSchema), v.minLength(1))],
  'must be a string, number, boolean or a non-empty array of those',
);
const WhenLeafSchema = v.strictObject({ column: ColumnNameSchema, op: v.picklist(WHEN_OPS), value: WhenValueSchema });
export type WhenLeaf = v.InferOutput<typeof WhenLeafSchema>;
/** Recursive, so written once by hand (valibot cannot infer recursive types). */
export type WhenExpression = WhenLeaf | { all: WhenExpression[] } | { any: WhenExpression[] };

const NOT_A_WHEN = 'must be {column, op, value}, {all: [...]} or {any: [...]}';
/**
 * docs/reference/ask.md#shapes `when`, checked in two steps: first its nesting (at most LIMITS.whenDepthMax levels of
 * all/any, refused at the first node past it), then its forms. The depth check comes first so that
 * validating a deep expression never recurses further than the limit. JSON Schema generators call the
 * getter with undefined and get the full union (the depth limit is stated by describe).
 */
export const WhenSchema: v.GenericSchema<WhenExpression> = v.lazy((input) => {
  if (input === undefined) return WhenFormsSchema;
  const path = tooDeep(input, 1);
  return path ? depthRefusal(path) : WhenNodeSchema;
});
/**
 * One node: dispatches on the keys present so an error names the real culprit (`...when.any.2.op`)
 * rather than "invalid union".
 */
const WhenNodeSchema: v.GenericSchema<WhenExpression> = v.lazy((input) => {
  if (input === undefined) return WhenFormsSchema;
  if (!isObject(input)) return v.never(NOT_A_WHEN);
  if ('all' in input) return WhenAllSchema;
  if ('any' in input) return WhenAnySchema;
  if ('column' in input || 'op' in input || 'value' in input) return WhenLeafSchema;
  return v.never(NOT_A_WHEN);
});
const WhenListSchema = v.pipe(v.array(WhenNodeSchema), v.minLength(1), v.maxLength(LIMITS.whenItemsMax));
const WhenAllSchema = v.strictObject({ all: WhenListSchema });
const WhenAnySchema = v.strictObject({ any: WhenListSchema });
const WhenFormsSchema = v.union([WhenLeafSchema, WhenAllSchema, WhenAnySchema], NOT_A_WHEN);

/**
 * The path (relative to the expression) of the first all/any in document order that sits `level`s
 * deep past LIMITS.whenDepthMax, or undefined. Nodes are read the way WhenNodeSchema dispatches them
 * ('all' before 'any'); the walk stops one level past the limit, so its own recursion is bounded.
 */
function tooDeep(node: unknown, level: number): v.IssuePathItem[] | undefined {
  if (!isObject(node)) return undefined;
  const key = 'all' in node ? 'all' : 'any' in node ? 'any' : undefined;
  if (key === undefined) return undefined;
  if (level > LIMITS.whenDepthMax) return [];
  const list = node[key];
  if (!Array.isArray(list)) return undefined;
  for (let i = 0; i < list.length; i++) {
    const below = tooDeep(list[i], level + 1);
    if (below) {
      const inNode: v.ObjectPathItem = { type: 'object', origin: 'value', input: node, key, value: list };
      const inList: v.ArrayPathItem = { type: 'array', origin: 'value', input: list, key: i, value: list[i] };
      return [inNode, inList, ...below];
    }
  }
  return undefined;
}

/** Refuses the whole expression with one issue at `path`, the first node nested too deeply. */
function depthRefusal(path: v.IssuePathItem[]) {
  const max = LIMITS.whenDepthMax;
  const message = `is an all/any nested ${max + 1} levels deep; a when expression allows at most ${max} levels of all/any`;
  return v.pipe(
    v.unknown(),
    v.rawCheck(({ addIssue }) => addIssue({ message, path: path as [v.IssuePathItem, ...v.IssuePathItem[]] })),
  ) as unknown as v.GenericSchema<WhenExpression>;
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

// --- label forms (docs/reference/ask.md#shapes) ---------------------------------------------------------------------

export const LABEL_NAME_PATTERN = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;
const LapsedLabelSchema = v.strictObject({ lapsed: v.literal(true) });
const NamedLabelSchema = v.strictObject({
  name: v.pipe(v.string(), maxChars(40), v.regex(LABEL_NAME_PATTERN)),
  when: WhenSchema,
});
const TrendLabelSchema = v.strictObject({
  trend_of: ColumnNameSchema,
  direction: v.optional(v.picklist(['down', 'up'])),
  alpha: v.optional(v.picklist([0.05, 0.1])),
});
const WindowLabelSchema = v.strictObject({
  window_of: ColumnNameSchema,
  periods: v.optional(v.picklist([1, 2, 3, 4])),
  agg: v.optional(v.picklist(['max', 'min', 'last', 'any'])),
});

const NOT_AN_EVENTS_LABEL = 'an events label is {lapsed: true} or {name, when}';
const EventsLabelForms = v.union([LapsedLabelSchema, NamedLabelSchema], NOT_AN_EVENTS_LABEL);
/** Events label: `{lapsed: true}` or `{name, when}`, picked by the keys present. */
export const EventsLabelSchema = v.lazy((input) => {
  if (input === undefined) return EventsLabelForms;
  if (isObject(input) && 'lapsed' in input) return LapsedLabelSchema;
  if (isObject(input) && ('name' in input || 'when' in input)) return NamedLabelSchema;
  return v.never(NOT_AN_EVENTS_LABEL);
});

const NOT_A_PANEL_LABEL = 'a panel label is {trend_of, direction?, alpha?} or {window_of, periods?, agg?}';
const PanelLabelForms = v.union([TrendLabelSchema, WindowLabelSchema], NOT_A_PANEL_LABEL);
/** Panel label: `{trend_of, ...}` or `{window_of, ...}`, picked by the keys present. */
export const PanelLabelSchema = v.lazy((input) => {
  if (input === undefined) return PanelLabelForms;
  if (isObject(input) && 'trend_of' in input) return TrendLabelSchema;
  if (isObject(input) && 'window_of' in input) return WindowLabelSchema;
  return v.never(NOT_A_PANEL_LABEL);
});

// --- shape kinds (docs/reference/ask.md#shapes): one strict object per kind, chosen by `kind` --------------------------

const TableShapeSchema = v.strictObject({ kind: v.literal('table') });
const EventsShapeSchema = v.strictObject({
  kind: v.literal('events'),
  event_column: v.optional(ColumnNameSchema),
  value_columns: v.optional(ColumnListSchema),
  label: EventsLabelSchema,
  horizon_days: v.optional(v.picklist([30, 60, 90])),
  lookback_days: v.optional(
    oneOfTuples([
      [30, 90],
      [7, 30],
      [90, 365],
    ]),
  ),
  as_of: v.optional(AsOfSchema),
});
const SeriesShapeSchema = v.strictObject({
  kind: v.literal('series'),
  value_columns: ColumnListSchema,
  windows: oneOfTuples([
    [3, 6],
    [7, 30],
    [4, 12],
  ]),
});
const PanelShapeSchema = v.strictObject({
  kind: v.literal('panel'),
  label: PanelLabelSchema,
  min_history: v.optional(v.picklist([2, 3, 5, 8])),
});
const SignalsShapeSchema = v.strictObject({
  kind: v.literal('signals'),
  event_column: v.optional(ColumnNameSchema),
  signal_columns: ColumnListSchema,
  event_start_column: v.optional(ColumnNameSchema),
  event_end_column: v.optional(ColumnNameSchema),
  windows: oneOfTuples([
    [1, 3, 7],
    [3, 7, 30],
    [1, 7, 30],
  ]),
  snapshot_every: v.picklist(['1h', '6h', '1d', '1w']),
  horizon: v.picklist([1, 3, 7, 30]),
  min_history: v.optional(v.picklist([3, 5, 10])),
  as_of: v.optional(AsOfSchema),
});
/** docs/reference/map.md#snapshots `horizon` of a snapshots grid: {value: 1/7/30/60/90, unit: "days"}. */
export const GridHorizonSchema = v.strictObject({ value: v.picklist([1, 7, 30, 60, 90]), unit: v.literal('days') });
/** docs/reference/map.md#snapshots table form: the snapshot table's source (as a record's, rows up to 10,000). */
const SnapshotSourceSchema = v.pipe(
  v.strictObject({
    dataset_id: v.optional(RecordIdSchema),
    rows: v.optional(RowsSchema),
    csv: v.optional(CsvSchema),
    fetch_url: v.optional(FetchUrlSchema),
    fetch_headers: v.optional(FetchHeadersSchema),
  }),
  exactlyOneSource(['dataset_id', 'rows', 'csv', 'fetch_url']),
);
/**
 * docs/reference/map.md#snapshots `snapshots`. Grid form: a row per case per `snapshot_every`, outcome = event within `horizon`
 * after it (snapshot_every, horizon and exactly one of label / outcome_time_column). Table form (`snapshots`
 * given): the log read at the moments of a snapshot table, whose own columns carry the outcome. Which
 * fields each form takes is checked by the reader, which names the field at fault.
 */
const SnapshotsShapeSchema = v.strictObject({
  kind: v.literal('snapshots'),
  snapshot_every: v.optional(v.picklist(['1d', '1w', '4w'])),
  horizon: v.optional(GridHorizonSchema),
  label: v.optional(EventsLabelSchema),
  outcome_time_column: v.optional(ColumnNameSchema),
  lookbacks_days: v.optional(
    oneOfTuples([
      [30, 90],
      [7, 30],
      [90, 365],
    ]),
  ),
  terminal: v.optional(v.boolean()),
  snapshots: v.optional(SnapshotSourceSchema),
  snapshot_id_column: v.optional(ColumnNameSchema),
  snapshot_time_column: v.optional(ColumnNameSchema),
  lookback_days: v.optional(
    oneOfTuples([
      [30, 90],
      [7, 30],
      [90, 365],
    ]),
  ),
  event_column: v.optional(ColumnNameSchema),
  value_columns: v.optional(ColumnListSchema),
  as_of: v.optional(AsOfSchema),
});
const TracesShapeSchema = v.strictObject({
  kind: v.literal('traces'),
  agent_column: v.optional(ColumnNameSchema),
  task_column: v.optional(ColumnNameSchema),
  tool_column: v.optional(ColumnNameSchema),
});

export const SHAPE_KINDS = ['table', 'events', 'series', 'panel', 'signals', 'traces', 'snapshots'] as const;
/** docs/reference/ask.md#shapes: `kind` picks the allowed fields; a field of another kind is refused as unknown. */
export const ShapeSchema = v.variant('kind', [
  TableShapeSchema,
  EventsShapeSchema,
  SeriesShapeSchema,
  PanelShapeSchema,
  SignalsShapeSchema,
  TracesShapeSchema,
  SnapshotsShapeSchema,
]);

export type Shape = v.InferOutput<typeof ShapeSchema>;
export type ShapeKind = Shape['kind'];
export type EventsLabel = v.InferOutput<typeof EventsLabelSchema>;
export type PanelLabel = v.InferOutput<typeof PanelLabelSchema>;
/** docs/reference/ask.md#shapes defaults the engine applies when a field is absent. */
export const SHAPE_DEFAULTS = {
  horizon_days: 30,
  lookback_days: [30, 90],
  signals_min_history: 3,
  trend_direction: 'down',
  trend_alpha: 0.1,
  window_periods: 1,
  window_agg: 'max',
} as const;
