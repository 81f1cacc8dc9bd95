// The feature columns each docs/reference/ask.md#shapes shape builds, by name pattern, for svc_describe (docs/reference/journeys.md#describe "svc_describe").

export interface FeaturePattern {
  /** Column name pattern: `{...}` parts are filled from the shape or the data. */
  name: string;
  meaning: string;
}

/**
 * Per kind: the columns the shape read adds, then its outcome column. `{L}` is each lookback_days
 * value, `{H}` horizon_days, `{w}` each window, `{v}` a value column, `{s}` a signal column, `{c}` a
 * column of the record, `{span}` a number of snapshots as a time span (3 x 1d = `3d`, 3 x 6h = `18h`).
 * Each kind also says how it reads time_column (host/table/shapes/read.ts `TimeUse`) and how a name
 * that is already taken is told apart (host/table/shapes/names.ts `NameBook`).
 */
const TAKEN: FeaturePattern = {
  name: '{name}_{n}',
  meaning:
    'A name above that is already taken gets _2, then _3, ... (the first one free): taken by another column of the ' +
    'output (the entity, time or outcome column, a column kept as given) or by a name made before it. Names are made ' +
    'in the order listed here, columns in the order the shape gives them, event types in code point order: an event ' +
    'type named event gives event_count_30d_2; of Page View and page_view, page_view comes later and gives page_view_count_30d_2.',
};
const INSTANT_TIME =
  'time_column must hold ISO 8601 dates or times: 2024-03-15, 20240315 (the basic form, also as a number), ' +
  '2024-03-15T12:00:00Z, with or without a zone (read as UTC without one). Windows are measured in days and hours, ' +
  'so plain numbers (2024, 1710460800000) are refused.';
const ORDER_TIME =
  'time_column only orders the rows: ISO 8601 dates or times (2024-03-15, 20240315, 2024-03-15T12:00:00Z), or ' +
  'plain numbers (period 1, 2, 3 or 202401), not both in one column.';

export const SHAPE_FEATURES: Readonly<
  Record<'table' | 'events' | 'series' | 'panel' | 'signals' | 'traces' | 'snapshots', readonly FeaturePattern[]>
> = {
  table: [{ name: '{c}', meaning: 'Every column as it is: the record is already one row per case.' }],
  events: [
    {
      name: 'event_count_{L}d',
      meaning:
        'Events in the L days up to the reading time, nothing after it: the cutoff (as_of minus horizon_days) for the ' +
        'cases the model learns from, as_of itself for the cases it scores (their outcome window has not happened yet). ' +
        INSTANT_TIME,
    },
    { name: '{v}_sum_{L}d', meaning: 'Sum of value column v over those events (0 when none).' },
    { name: '{v}_avg_{L}d', meaning: 'Average of value column v over those events (blank when none).' },
    {
      name: '{type}_count_{L}d',
      meaning:
        'Events of one event_column value (lower case, other characters as _) in the L days; the 20 most frequent types before the cutoff.',
    },
    {
      name: 'days_since_last_event',
      meaning: "Days from the case's last event to the reading time (the cutoff, or as_of for scored cases).",
    },
    { name: 'days_since_first_event', meaning: "Days from the case's first event to the reading time (its tenure in the log)." },
    TAKEN,
    {
      name: 'lapsed_{H}d',
      meaning: 'Outcome of {lapsed: true}: 1 when the case has no event in the H days after the cutoff (the last H days up to as_of).',
    },
    { name: '{name}_next_{H}d', meaning: 'Outcome of {name, when}: 1 when any event in the H days after the cutoff matches when.' },
  ],
  series: [
    { name: '{v}_last', meaning: "Value column v at the row's own period." },
    { name: '{v}_mean_{w}p', meaning: "Mean of v over the row's period and the w-1 before it (values known at that period)." },
    { name: '{v}_min_{w}p', meaning: 'Smallest v over the same w periods.' },
    { name: '{v}_max_{w}p', meaning: 'Largest v over the same w periods.' },
    { name: '{v}_change_{w}p', meaning: "v at the row's period minus v w-1 periods earlier." },
    {
      name: '{c}',
      meaning:
        "Every other column as given, including the row's own outcome column (e.g. stockout_next_week); the time " +
        'written as ISO 8601 in UTC, or as the number it was. ' +
        ORDER_TIME,
    },
    TAKEN,
  ],
  panel: [
    { name: 'period_count', meaning: 'Periods the features were read from. ' + ORDER_TIME },
    {
      name: '{c}_mean',
      meaning: 'Numeric column c: mean over the feature periods (all periods for a trend, those before the window otherwise).',
    },
    { name: '{c}_min', meaning: 'Numeric c: smallest value over the feature periods.' },
    { name: '{c}_max', meaning: 'Numeric c: largest value over the feature periods.' },
    { name: '{c}_last', meaning: 'c in the last feature period with a value (numbers, yes/no as 1/0, categories as text).' },
    { name: '{c}_change', meaning: 'Numeric c: last minus first value over the feature periods.' },
    { name: '{c}_slope', meaning: 'Numeric c: least-squares change per period over the feature periods.' },
    { name: '{c}_share', meaning: 'Yes/no c: share of feature periods that say yes.' },
    TAKEN,
    {
      name: '{col}_trend_{down|up}',
      meaning: 'Outcome of trend_of: 1 when a one-sided Mann-Kendall test at alpha finds that trend; col itself gives no feature.',
    },
    {
      name: '{col}_{agg}_next_{k}p',
      meaning: 'Outcome of window_of: agg (max/any: any yes, min: all yes, last) of col over the last k periods.',
    },
  ],
  signals: [
    { name: '{s}_last', meaning: 'Latest reading of signal s at or before the snapshot. ' + INSTANT_TIME },
    { name: '{s}_mean_{span}', meaning: 'Mean of s over the readings in the window that ends at the snapshot.' },
    { name: '{s}_min_{span}', meaning: 'Smallest reading of s in that window.' },
    { name: '{s}_max_{span}', meaning: 'Largest reading of s in that window.' },
    {
      name: '{s}_mean_{span1}_minus_{span2}',
      meaning: 'Mean over the shortest window minus mean over the longest: a recent rise or fall.',
    },
    { name: 'reading_count_{span}', meaning: 'Readings in the longest window.' },
    { name: 'event_count_prior', meaning: 'Event intervals that started at or before the snapshot.' },
    { name: 'days_since_last_event', meaning: 'Days since the latest such start (blank when none).' },
    { name: 'in_event', meaning: '1 when an interval has started and not yet ended at the snapshot.' },
    TAKEN,
    {
      name: 'event_next_{span}',
      meaning: 'Outcome: 1 when an interval starts within horizon snapshots after the snapshot; blank when that window passes as_of.',
    },
  ],
  traces: [
    {
      name: '{role}_prior_runs',
      meaning:
        'Runs with an outcome of the same agent, task, tool or agent_task pair at an earlier time (never the run itself, ' +
        'a later run, or another run at the same time, whatever the run ids). ' +
        ORDER_TIME,
    },
    { name: '{role}_prior_rate', meaning: 'Share of those earlier runs whose outcome was yes (e.g. failed); blank when none.' },
    {
      name: '{role}_recent_rate',
      meaning: 'The same share over the latest 20 of them; runs that share a time are taken or left together, so it may be over more.',
    },
    {
      name: '{c}',
      meaning:
        'Every column of the run as given, including the outcome column and what the run itself recorded (its duration, ' +
        'its tokens, ...): these describe the run, not its past. The time is written as ISO 8601 in UTC, or as the number it was.',
    },
    TAKEN,
  ],
  snapshots: [
    {
      name: 'event_count_{L}d',
      meaning:
        'Grid form (docs/reference/map.md#snapshots): one reading per case every snapshot_every, back from as_of (so the last reading of a ' +
        'running case is at as_of: its open case). Events in the L days up to the reading, nothing after it. ' +
        INSTANT_TIME,
    },
    { name: '{v}_sum_{L}d', meaning: 'Sum of value column v over those events (0 when none).' },
    { name: '{v}_avg_{L}d', meaning: 'Average of value column v over those events (blank when none).' },
    { name: '{type}_count_{L}d', meaning: 'Events of one event_column value in the L days; the 20 most frequent types up to as_of.' },
    { name: 'days_since_last_event', meaning: "Days from the case's last event to the reading." },
    { name: 'days_since_first_event', meaning: "Days from the case's first event to the reading." },
    TAKEN,
    {
      name: 'lapsed_{H}d',
      meaning:
        'Outcome of {lapsed: true}: 1 when the case has no event in the H days after the reading; blank until those days have passed by as_of.',
    },
    { name: '{name}_next_{H}d', meaning: 'Outcome of {name, when}: 1 when an event in the H days after the reading matches when.' },
    {
      name: '{column}_next_{H}d',
      meaning:
        "Outcome of outcome_time_column: 1 when the case's outcome time falls in the H days after the reading; readings at or after it are dropped.",
    },
  ],
};
