// docs/reference/errors.md shape_invalid / shape_empty: every path names the field at fault (docs/reference/errors.md#problem).
import { describe, expect, it } from 'vitest';
import { col, day, errorOf, q, shapeOf, table } from './helpers.ts';

const EVENTS = table([
  { id: 'a', at: day(0), event: 'visit', amount: 5, note: 'x' },
  { id: 'a', at: day(40), event: 'buy', amount: 7, note: 'y' },
  { id: 'b', at: day(10), event: 'visit', amount: null, note: 'x' },
]);
const SERIES = table(Array.from({ length: 8 }, (_, i) => ({ id: 'a', at: day(7 * i), v: i, w: 'text', y: i % 2 })));
const PANEL = table(
  Array.from({ length: 6 }, (_, i) => ({ id: i < 3 ? 'a' : 'b', at: day(30 * (i % 3)), u: i, plan: 'pro', flag: 'maybe' })),
);
const SIGNALS = table([
  ...Array.from({ length: 8 }, (_, i) => ({ id: 'a', at: day(i), s: i, bad: i === 3 ? 'hot' : '1', kind: null, from: null, to: null })),
  { id: 'a', at: day(5), s: null, bad: null, kind: 'fault', from: day(5), to: 'soon' },
]);
const TRACES = table([
  { id: 'r1', at: day(0), agent: 'A', ok: 'yes', score: 'high' },
  { id: 'r2', at: day(1), agent: 'B', ok: 'no', score: 'low' },
]);
const opts = { entityColumn: 'id', timeColumn: 'at' };
const signals = {
  kind: 'signals',
  signal_columns: ['s'],
  event_column: 'kind',
  event_start_column: 'from',
  windows: [1, 3, 7],
  snapshot_every: '1d',
  horizon: 1,
};

type Case = [string, ReturnType<typeof table>, Record<string, unknown>, Record<string, unknown>, string, string];
const CASES: Case[] = [
  // events
  [
    'events: event_column missing',
    EVENTS,
    { kind: 'events', event_column: 'type', label: { lapsed: true } },
    opts,
    'shape_invalid',
    'shape.event_column',
  ],
  [
    'events: second value column missing',
    EVENTS,
    { kind: 'events', value_columns: ['amount', 'price'], label: { lapsed: true } },
    opts,
    'shape_invalid',
    'shape.value_columns.1',
  ],
  [
    'events: value column not numeric',
    EVENTS,
    { kind: 'events', value_columns: ['note'], label: { lapsed: true } },
    opts,
    'shape_invalid',
    'shape.value_columns.0',
  ],
  [
    'events: when column missing',
    EVENTS,
    {
      kind: 'events',
      label: {
        name: 'x',
        when: {
          all: [
            { column: 'event', op: '==', value: 'buy' },
            { column: 'cost', op: '>', value: 1 },
          ],
        },
      },
    },
    opts,
    'shape_invalid',
    'shape.label.when.all.1.column',
  ],
  [
    'events: order operator on a list',
    EVENTS,
    { kind: 'events', label: { name: 'x', when: { column: 'amount', op: '>', value: [1] } } },
    opts,
    'shape_invalid',
    'shape.label.when.value',
  ],
  [
    'events: as_of unreadable',
    EVENTS,
    { kind: 'events', label: { lapsed: true }, as_of: 'last tuesday' },
    opts,
    'shape_invalid',
    'shape.as_of',
  ],
  [
    'events: as_of a bare number beside ISO times',
    EVENTS,
    { kind: 'events', label: { lapsed: true }, as_of: '2024' },
    opts,
    'shape_invalid',
    'shape.as_of',
  ],
  [
    'events: time column missing',
    EVENTS,
    { kind: 'events', label: { lapsed: true } },
    { ...opts, timeColumn: 'when' },
    'shape_invalid',
    'time_column',
  ],
  [
    'events: time column not given',
    EVENTS,
    { kind: 'events', label: { lapsed: true } },
    { ...opts, timeColumn: '' },
    'shape_invalid',
    'time_column',
  ],
  [
    'events: times unreadable',
    EVENTS,
    { kind: 'events', label: { lapsed: true } },
    { ...opts, timeColumn: 'note' },
    'shape_invalid',
    'time_column',
  ],
  [
    'events: entity column missing',
    EVENTS,
    { kind: 'events', label: { lapsed: true } },
    { ...opts, entityColumn: 'who' },
    'shape_invalid',
    'entity_column',
  ],
  ['events: as_of before every event', EVENTS, { kind: 'events', label: { lapsed: true }, as_of: day(20) }, opts, 'shape_empty', 'shape'],
  // series
  [
    'series: value column missing',
    SERIES,
    { kind: 'series', value_columns: ['v', 'sales'], windows: [3, 6] },
    opts,
    'shape_invalid',
    'shape.value_columns.1',
  ],
  [
    'series: value column not numeric',
    SERIES,
    { kind: 'series', value_columns: ['w'], windows: [3, 6] },
    opts,
    'shape_invalid',
    'shape.value_columns.0',
  ],
  [
    'series: value column is the outcome',
    SERIES,
    { kind: 'series', value_columns: ['v', 'y'], windows: [3, 6] },
    { ...opts, question: q('y') },
    'shape_invalid',
    'shape.value_columns.1',
  ],
  ['series: no full window', SERIES, { kind: 'series', value_columns: ['v'], windows: [4, 12] }, opts, 'shape_empty', 'shape'],
  [
    'series: times unreadable',
    SERIES,
    { kind: 'series', value_columns: ['v'], windows: [3, 6] },
    { ...opts, timeColumn: 'w' },
    'shape_invalid',
    'time_column',
  ],
  // panel
  ['panel: trend column missing', PANEL, { kind: 'panel', label: { trend_of: 'usage' } }, opts, 'shape_invalid', 'shape.label.trend_of'],
  ['panel: trend column not numeric', PANEL, { kind: 'panel', label: { trend_of: 'plan' } }, opts, 'shape_invalid', 'shape.label.trend_of'],
  [
    'panel: window column missing',
    PANEL,
    { kind: 'panel', label: { window_of: 'churned' } },
    opts,
    'shape_invalid',
    'shape.label.window_of',
  ],
  [
    'panel: window column not yes/no',
    PANEL,
    { kind: 'panel', label: { window_of: 'flag' } },
    opts,
    'shape_invalid',
    'shape.label.window_of',
  ],
  ['panel: too little history', PANEL, { kind: 'panel', label: { trend_of: 'u' }, min_history: 5 }, opts, 'shape_empty', 'shape'],
  // signals
  [
    'signals: signal column missing',
    SIGNALS,
    { ...signals, signal_columns: ['s', 'rpm'] },
    opts,
    'shape_invalid',
    'shape.signal_columns.1',
  ],
  ['signals: signal column not numeric', SIGNALS, { ...signals, signal_columns: ['bad'] }, opts, 'shape_invalid', 'shape.signal_columns.0'],
  ['signals: event column missing', SIGNALS, { ...signals, event_column: 'type' }, opts, 'shape_invalid', 'shape.event_column'],
  [
    'signals: no way to tell intervals',
    SIGNALS,
    { ...signals, event_column: undefined, event_start_column: undefined },
    opts,
    'shape_invalid',
    'shape.event_column',
  ],
  [
    'signals: start column missing',
    SIGNALS,
    { ...signals, event_start_column: 'begin' },
    opts,
    'shape_invalid',
    'shape.event_start_column',
  ],
  ['signals: end column missing', SIGNALS, { ...signals, event_end_column: 'finish' }, opts, 'shape_invalid', 'shape.event_end_column'],
  ['signals: end times unreadable', SIGNALS, { ...signals, event_end_column: 'to' }, opts, 'shape_invalid', 'shape.event_end_column'],
  ['signals: as_of unreadable', SIGNALS, { ...signals, as_of: '2024-13-01' }, opts, 'shape_invalid', 'shape.as_of'],
  ['signals: too few readings', SIGNALS, { ...signals, min_history: 10 }, opts, 'shape_empty', 'shape'],
  // traces
  ['traces: agent column missing', TRACES, { kind: 'traces', agent_column: 'bot' }, opts, 'shape_invalid', 'shape.agent_column'],
  ['traces: task column missing', TRACES, { kind: 'traces', task_column: 'job' }, opts, 'shape_invalid', 'shape.task_column'],
  ['traces: tool column missing', TRACES, { kind: 'traces', tool_column: 'api' }, opts, 'shape_invalid', 'shape.tool_column'],
  [
    'traces: outcome column unknown',
    TRACES,
    { kind: 'traces', agent_column: 'agent' },
    { ...opts, question: q('failed') },
    'invalid_request',
    'questions.q.outcome_column',
  ],
  [
    'traces: outcome not yes/no',
    TRACES,
    { kind: 'traces', agent_column: 'agent' },
    { ...opts, question: q('score') },
    'positive_values_required',
    'questions.q.positive_values',
  ],
  [
    'traces: no run has a time',
    TRACES,
    { kind: 'traces', agent_column: 'agent' },
    { ...opts, timeColumn: 'nothing' },
    'shape_invalid',
    'time_column',
  ],
];

describe('shape errors name the field at fault', () => {
  it.each(CASES)('%s', (_, t, shape, o, code, field) => {
    const e = errorOf(() => shapeOf(t, shape, o as typeof opts));
    expect(e.code).toBe(code);
    expect(e.field).toBe(field);
    expect(e.message.length).toBeGreaterThan(10);
  });

  it('quotes an unreadable time, the same one whatever the row order', () => {
    const t = table([
      { id: 'a', at: 'soon' },
      { id: 'a', at: '2024-02-30' },
      { id: 'b', at: '2024-01-01' },
    ]);
    const e1 = errorOf(() => shapeOf(t, { kind: 'events', label: { lapsed: true } }, opts));
    const e2 = errorOf(() =>
      shapeOf({ ...t, data: t.data.map((c) => c.slice().reverse()) }, { kind: 'events', label: { lapsed: true } }, opts),
    );
    expect(e1.message).toContain('"2024-02-30"');
    expect(e2.message).toBe(e1.message);
  });

  it('gives shape_empty when every row lacks an entity or a time', () => {
    const t = table([
      { id: '', at: day(1) },
      { id: 'a', at: null },
    ]);
    const e = errorOf(() => shapeOf(t, { kind: 'traces' }, { ...opts, question: q('id', ['a']) }));
    expect([e.code, e.field]).toEqual(['shape_empty', 'shape']);
  });

  it('returns a table unchanged for kind table', () => {
    const rec = shapeOf(EVENTS, { kind: 'table' }, { ...opts, question: q('note') });
    expect(rec.table).toBe(EVENTS);
    expect(rec.asOf).toBe(`${day(40)}T00:00:00.000Z`);
    expect(col(rec.table, 'id')).toHaveLength(3);
  });
});
