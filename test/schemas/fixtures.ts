// Valid request bodies and small helpers shared by the schema tests.
import type * as v from 'valibot';
import { parseBody } from '../../host/schemas/index.ts';
import { ServiceError } from '../../host/errors.ts';

export type Body = Record<string, unknown>;

export const MODEL_REF = `mr1_${'0123456789abcdef'.repeat(2)}`;
export const DATASET_ID = `ds_${'a1'.repeat(13)}`;
export const TASK_ID = `tk_${'z9'.repeat(12)}`;

/** A minimal valid ask on a sample with one yesno question. */
export function ask(overrides: Body = {}): Body {
  return {
    data: { dataset_id: 'sample:churn' },
    entity_column: 'customer_id',
    subject_kind: 'org',
    questions: { q1: { type: 'yesno', outcome_column: 'churned' } },
    cases: { ids: ['c1', 'c2'] },
    ...overrides,
  };
}

/** An ask whose only question is `question` (named q1). */
export function askWith(question: Body, overrides: Body = {}): Body {
  return ask({ questions: { q1: question }, ...overrides });
}

export const QUESTIONS = {
  yesno: { type: 'yesno', outcome_column: 'churned', outcome_is_desirable: false, positive_values: ['yes'] },
  score: {
    type: 'score',
    outcome_column: 'churned',
    levels: ['low', 'mid', 'high'],
    cuts: [0.3, 0.7],
    refit_of: MODEL_REF,
  },
  choiceColumn: {
    type: 'choice',
    outcome_column: 'renewed',
    outcome_is_desirable: true,
    option_column: 'offer',
    options: ['discount', 'call', 'nothing'],
  },
  choiceOutcomes: {
    type: 'choice',
    outcome_is_desirable: true,
    option_outcomes: { email: 'clicked_email', sms: 'clicked_sms' },
  },
  rank: { type: 'rank', outcome_column: 'churned', top_k: 50 },
} as const;

export const WHEN = {
  all: [
    { column: 'event', op: '==', value: 'cancel' },
    {
      any: [
        { column: 'amount', op: '>=', value: 100 },
        { column: 'plan', op: 'in', value: ['gold', 'silver'] },
      ],
    },
  ],
};

/** One valid shape per kind (docs/reference/ask.md#shapes). */
export const SHAPES: Record<string, Body> = {
  table: { kind: 'table' },
  events: {
    kind: 'events',
    event_column: 'event',
    value_columns: ['amount'],
    label: { name: 'cancelled', when: WHEN },
    horizon_days: 60,
    lookback_days: [7, 30],
    as_of: '2024-06-30',
  },
  eventsLapsed: { kind: 'events', label: { lapsed: true } },
  series: { kind: 'series', value_columns: ['sales', 'visits'], windows: [4, 12] },
  panelTrend: { kind: 'panel', label: { trend_of: 'score', direction: 'up', alpha: 0.05 }, min_history: 3 },
  panelWindow: { kind: 'panel', label: { window_of: 'defaulted', periods: 2, agg: 'last' } },
  signals: {
    kind: 'signals',
    event_column: 'fault',
    signal_columns: ['temp', 'vibration'],
    event_start_column: 'fault_start',
    event_end_column: 'fault_end',
    windows: [3, 7, 30],
    snapshot_every: '6h',
    horizon: 7,
    min_history: 5,
    as_of: '2024-06-30T00:00:00Z',
  },
  traces: { kind: 'traces', agent_column: 'agent', task_column: 'task', tool_column: 'tool' },
};

/** A deep copy of `base` with the value at `path` replaced (undefined deletes it). */
export function withAt(base: Body, path: readonly (string | number)[], value: unknown): Body {
  const copy = structuredClone(base);
  let node: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path[path.length - 1];
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}

/** Runs parseBody: null when accepted, else the ServiceError (asserted to be invalid_request). */
export function refusal(schema: v.GenericSchema, body: unknown): ServiceError | null {
  try {
    parseBody(schema, body);
    return null;
  } catch (err) {
    if (!(err instanceof ServiceError) || err.code !== 'invalid_request') throw err;
    return err;
  }
}

/** `null` when accepted, else the `field` of the refusal (`'(none)'` when it names no field). */
export function fieldOf(schema: v.GenericSchema, body: unknown): string | null {
  const err = refusal(schema, body);
  return err === null ? null : (err.field ?? '(none)');
}

export const times = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));
