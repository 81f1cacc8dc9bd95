// "No other properties" (docs/reference/ask.md#data, docs/reference/datasets.md#add-dataset): an unknown property at any level is refused by name.
import { describe, expect, it } from 'vitest';
import type * as v from 'valibot';
import { AskRequestSchema } from '../../host/schemas/index.ts';
import { DATASET_ID, MODEL_REF, QUESTIONS, SHAPES, TASK_ID, ask, askWith, refusal, withAt, type Body } from './fixtures.ts';
import { DescribeRequestSchema } from '../../host/operations/account/describe.schema.ts';
import { VerifyRequestSchema } from '../../host/operations/account/verify.schema.ts';
import { AddDatasetRequestSchema } from '../../host/operations/datasets/add-dataset.schema.ts';
import { DeleteDatasetRequestSchema } from '../../host/operations/datasets/delete-dataset.schema.ts';
import { PreflightRequestSchema } from '../../host/operations/datasets/preflight.schema.ts';
import { DriftRequestSchema } from '../../host/operations/models/drift.schema.ts';
import { AttestRequestSchema } from '../../host/operations/outcomes/attest.schema.ts';
import { EvidenceRequestSchema } from '../../host/operations/outcomes/evidence.schema.ts';
import { ReportOutcomesRequestSchema } from '../../host/operations/outcomes/report-outcomes.schema.ts';
import { PollRequestSchema } from '../../host/operations/tasks/poll.schema.ts';

const shaped = (shape: Body) => ask({ shape, time_column: 'ts' });
const events = shaped(SHAPES.events);
const leafWhen = (when: unknown) => withAt(events, ['shape', 'label', 'when'], when);
const leaf = { column: 'a', op: '==', value: 1 };
const outcome = { entity_id: 'c1', outcome: 1, observed_at: '2024-06-01' };
const verdict = { verdict_id: '01J', kind: 'answer' };
const attest = { model_ref: MODEL_REF, entity_id: 'c1', lever_token: 't', post_value: 'x', acted_at: '2024-06-01' };

/** [label, schema, body, expected field]. */
const cases: [string, v.GenericSchema, unknown, string][] = [
  ['ask top level', AskRequestSchema, ask({ extra: 1 }), 'extra'],
  ['data', AskRequestSchema, ask({ data: { dataset_id: 'sample:x', format: 'csv' } }), 'data.format'],
  ['cases', AskRequestSchema, ask({ cases: { ids: ['a'], limit: 3 } }), 'cases.limit'],
  ['yesno question', AskRequestSchema, askWith({ ...QUESTIONS.yesno, weight: 2 }), 'questions.q1.weight'],
  ['score question', AskRequestSchema, askWith({ ...QUESTIONS.score, bins: 3 }), 'questions.q1.bins'],
  ['choice question', AskRequestSchema, askWith({ ...QUESTIONS.choiceColumn, best: 'a' }), 'questions.q1.best'],
  ['rank question', AskRequestSchema, askWith({ ...QUESTIONS.rank, order: 'desc' }), 'questions.q1.order'],
  ['levels on yesno', AskRequestSchema, askWith({ ...QUESTIONS.yesno, levels: ['a', 'b'] }), 'questions.q1.levels'],
  ['cuts on rank', AskRequestSchema, askWith({ ...QUESTIONS.rank, cuts: [0.5] }), 'questions.q1.cuts'],
  ['options on yesno', AskRequestSchema, askWith({ ...QUESTIONS.yesno, options: ['a', 'b'] }), 'questions.q1.options'],
  [
    'option_column on score',
    AskRequestSchema,
    askWith({ type: 'score', outcome_column: 'y', option_column: 'o' }),
    'questions.q1.option_column',
  ],
  [
    'option_outcomes on rank',
    AskRequestSchema,
    askWith({ ...QUESTIONS.rank, option_outcomes: { a: 'x', b: 'y' } }),
    'questions.q1.option_outcomes',
  ],
  ['top_k on yesno', AskRequestSchema, askWith({ ...QUESTIONS.yesno, top_k: 5 }), 'questions.q1.top_k'],
  ['top_k on choice', AskRequestSchema, askWith({ ...QUESTIONS.choiceColumn, top_k: 5 }), 'questions.q1.top_k'],
  ['table shape', AskRequestSchema, shaped({ kind: 'table', entity: 'x' }), 'shape.entity'],
  ['label on table', AskRequestSchema, shaped({ kind: 'table', label: { lapsed: true } }), 'shape.label'],
  ['events shape', AskRequestSchema, shaped({ ...SHAPES.events, extra: 1 }), 'shape.extra'],
  ['windows on events', AskRequestSchema, shaped({ ...SHAPES.events, windows: [3, 6] }), 'shape.windows'],
  ['horizon_days on series', AskRequestSchema, shaped({ ...SHAPES.series, horizon_days: 30 }), 'shape.horizon_days'],
  ['as_of on panel', AskRequestSchema, shaped({ ...SHAPES.panelTrend, as_of: '2024-01-01' }), 'shape.as_of'],
  ['event_column on traces', AskRequestSchema, shaped({ ...SHAPES.traces, event_column: 'e' }), 'shape.event_column'],
  ['value_columns on signals', AskRequestSchema, shaped({ ...SHAPES.signals, value_columns: ['v'] }), 'shape.value_columns'],
  ['lapsed label', AskRequestSchema, shaped({ kind: 'events', label: { lapsed: true, days: 3 } }), 'shape.label.days'],
  ['lapsed label with name', AskRequestSchema, shaped({ kind: 'events', label: { lapsed: true, name: 'x' } }), 'shape.label.name'],
  ['named label', AskRequestSchema, withAt(events, ['shape', 'label', 'extra'], 1), 'shape.label.extra'],
  ['trend label', AskRequestSchema, shaped({ kind: 'panel', label: { trend_of: 's', extra: 1 } }), 'shape.label.extra'],
  ['window label', AskRequestSchema, shaped({ kind: 'panel', label: { window_of: 'w', trend_of: 's' } }), 'shape.label.window_of'],
  ['when leaf', AskRequestSchema, leafWhen({ ...leaf, negate: true }), 'shape.label.when.negate'],
  ['when all', AskRequestSchema, leafWhen({ all: [leaf], not: [leaf] }), 'shape.label.when.not'],
  ['when any with leaf fields', AskRequestSchema, leafWhen({ any: [leaf], column: 'a' }), 'shape.label.when.column'],
  ['when nested leaf', AskRequestSchema, leafWhen({ all: [leaf, { any: [{ ...leaf, x: 1 }] }] }), 'shape.label.when.all.1.any.0.x'],
  ['add-dataset', AddDatasetRequestSchema, { csv: 'a', format: 'csv' }, 'format'],
  ['poll', PollRequestSchema, { task_id: TASK_ID, wait: true }, 'wait'],
  ['preflight', PreflightRequestSchema, { dataset_id: 'sample:x', deep: true }, 'deep'],
  ['report-outcomes', ReportOutcomesRequestSchema, { model_ref: MODEL_REF, outcomes: [outcome], dry_run: true }, 'dry_run'],
  [
    'outcome item',
    ReportOutcomesRequestSchema,
    { model_ref: MODEL_REF, outcomes: [outcome, { ...outcome, note: 'x' }] },
    'outcomes.1.note',
  ],
  ['drift', DriftRequestSchema, { model_ref: MODEL_REF, since: 'x' }, 'since'],
  ['verify', VerifyRequestSchema, { verdict, signature: {}, strict: true }, 'strict'],
  ['describe', DescribeRequestSchema, { verbose: true }, 'verbose'],
  ['delete-dataset', DeleteDatasetRequestSchema, { dataset_id: DATASET_ID, force: true }, 'force'],
  ['attest', AttestRequestSchema, { ...attest, note: 'x' }, 'note'],
  ['evidence', EvidenceRequestSchema, { model_ref: MODEL_REF, group: 'a' }, 'group'],
];

describe('unknown properties', () => {
  it.each(cases)('%s: refused naming the property', (_label, schema, body, field) => {
    const err = refusal(schema, body);
    expect(err?.field).toBe(field);
    expect(err?.message).toMatch(/is not an allowed property/);
  });

  it('the verdict itself allows further properties (docs/reference/verdicts.md)', () => {
    expect(refusal(VerifyRequestSchema, { verdict: { ...verdict, cases: [], extra: 1 }, signature: { kid: 'k' } })).toBeNull();
  });

  it('says which question type refused the property', () => {
    const err = refusal(AskRequestSchema, askWith({ ...QUESTIONS.yesno, levels: ['a', 'b'] }));
    expect(err?.message).toBe('questions.q1.levels: is not an allowed property on a yesno question');
  });

  it('says which shape kind refused the property', () => {
    const err = refusal(AskRequestSchema, shaped({ ...SHAPES.series, horizon_days: 30 }));
    expect(err?.message).toBe('shape.horizon_days: is not an allowed property with shape kind series');
  });
});
