// docs/reference/ask.md#request, docs/reference/limits.md#limits limits, each at its edge (accepted) and one past it (refused naming the exact field).
import { describe, expect, it } from 'vitest';
import type * as v from 'valibot';
import { AskRequestSchema } from '../../host/schemas/index.ts';
import { DATASET_ID, MODEL_REF, QUESTIONS, SHAPES, TASK_ID, ask, askWith, fieldOf, times, withAt, type Body } from './fixtures.ts';
import { AddDatasetRequestSchema } from '../../host/operations/datasets/add-dataset.schema.ts';
import { DeleteDatasetRequestSchema } from '../../host/operations/datasets/delete-dataset.schema.ts';
import { PreflightRequestSchema } from '../../host/operations/datasets/preflight.schema.ts';
import { DriftRequestSchema } from '../../host/operations/models/drift.schema.ts';
import { AttestRequestSchema } from '../../host/operations/outcomes/attest.schema.ts';
import { EvidenceRequestSchema } from '../../host/operations/outcomes/evidence.schema.ts';
import { ReportOutcomesRequestSchema } from '../../host/operations/outcomes/report-outcomes.schema.ts';
import { PollRequestSchema } from '../../host/operations/tasks/poll.schema.ts';

type Path = readonly (string | number)[];
/** [label, schema, base body, path to set, value, expected field or null when accepted]. */
type Row = [string, v.GenericSchema, Body, Path, unknown, string | null];

const rows = (n: number) => times(n, (i) => ({ id: `c${i}`, x: i }));
const str = (n: number, ch = 'a') => ch.repeat(n);
const score = askWith({ type: 'score', outcome_column: 'y' });
const choice = askWith({ ...QUESTIONS.choiceColumn });
const outcomes = askWith({ ...QUESTIONS.choiceOutcomes });
const rank = askWith({ type: 'rank', outcome_column: 'y' });
const shaped = (shape: Body) => ask({ shape, time_column: 'ts' });
const events = shaped(SHAPES.events);
const signals = shaped(SHAPES.signals);
const series = shaped(SHAPES.series);
const panel = shaped(SHAPES.panelTrend);
const panelWindow = shaped(SHAPES.panelWindow);
const traces = shaped(SHAPES.traces);
const leaf = (extra: Body = {}) => ({ column: 'a', op: '==', value: 1, ...extra });
const named = (when: unknown) => withAt(events, ['shape', 'label', 'when'], when);
const A = AskRequestSchema;
/** `levels` all/any objects nested one inside the next (alternating, outermost `all`) around a leaf. */
const nest = (levels: number): Body => {
  let node: Body = leaf();
  for (let i = levels - 1; i >= 0; i--) node = { [i % 2 === 0 ? 'all' : 'any']: [node] };
  return node;
};
/** The path inside nest(n) of its node `steps` levels below the outermost: `.all.0.any.0...`. */
const nestedPath = (steps: number) => times(steps, (i) => `.${i % 2 === 0 ? 'all' : 'any'}.0`).join('');

const askRows: Row[] = [
  ['data.rows 1', A, ask(), ['data'], { rows: rows(1) }, null],
  ['data.rows 0', A, ask(), ['data'], { rows: [] }, 'data.rows'],
  ['data.rows 10000', A, ask(), ['data'], { rows: rows(10_000) }, null],
  ['data.rows 10001', A, ask(), ['data'], { rows: rows(10_001) }, 'data.rows'],
  ['data.rows item array', A, ask(), ['data'], { rows: [[1, 2]] }, 'data.rows.0'],
  ['data.csv 1 char', A, ask(), ['data'], { csv: 'a' }, null],
  ['data.csv empty', A, ask(), ['data'], { csv: '' }, 'data.csv'],
  ['data.csv 8,000,000', A, ask(), ['data'], { csv: str(8_000_000) }, null],
  ['data.csv 8,000,001', A, ask(), ['data'], { csv: str(8_000_001) }, 'data.csv'],
  ['data.dataset_id neither ds_ nor sample:', A, ask(), ['data', 'dataset_id'], 'x', 'data.dataset_id'],
  ['data.dataset_id ds_ too short', A, ask(), ['data', 'dataset_id'], 'ds_x', 'data.dataset_id'],
  ['data.dataset_id ds_ 20 chars', A, ask(), ['data', 'dataset_id'], `ds_${str(20, 'z')}`, null],
  ['data.dataset_id ds_ 19 chars', A, ask(), ['data', 'dataset_id'], `ds_${str(19, 'z')}`, 'data.dataset_id'],
  ['data.dataset_id ds_ 40 chars', A, ask(), ['data', 'dataset_id'], `ds_${str(40, '9')}`, null],
  ['data.dataset_id ds_ 41 chars', A, ask(), ['data', 'dataset_id'], `ds_${str(41, '9')}`, 'data.dataset_id'],
  ['data.dataset_id ds_ upper case', A, ask(), ['data', 'dataset_id'], `ds_${str(26, 'A')}`, 'data.dataset_id'],
  ['data.dataset_id sample:x', A, ask(), ['data', 'dataset_id'], 'sample:x', null],
  ['data.dataset_id sample: without a name', A, ask(), ['data', 'dataset_id'], 'sample:', 'data.dataset_id'],
  ['data.dataset_id empty', A, ask(), ['data', 'dataset_id'], '', 'data.dataset_id'],
  ['data.fetch_url uri', A, ask(), ['data'], { fetch_url: 'https://example.com/t.csv' }, null],
  ['data.fetch_url not a uri', A, ask(), ['data'], { fetch_url: 'example dot com' }, 'data.fetch_url'],
  ['data.fetch_headers strings', A, ask(), ['data'], { fetch_url: 'https://e.com/a', fetch_headers: { a: 'b' } }, null],
  ['data.fetch_headers number', A, ask(), ['data'], { fetch_url: 'https://e.com/a', fetch_headers: { a: 1 } }, 'data.fetch_headers.a'],
  ['entity_column empty', A, ask(), ['entity_column'], '', 'entity_column'],
  ['subject_kind other', A, ask(), ['subject_kind'], 'other', null],
  ['subject_kind robot', A, ask(), ['subject_kind'], 'robot', 'subject_kind'],
  ['time_column empty', A, ask(), ['time_column'], '', 'time_column'],
  ['band not boolean', A, ask(), ['band'], 'yes', 'band'],
  ['idempotency_key 1', A, ask(), ['idempotency_key'], 'k', null],
  ['idempotency_key empty', A, ask(), ['idempotency_key'], '', 'idempotency_key'],
  ['idempotency_key 128', A, ask(), ['idempotency_key'], str(128), null],
  ['idempotency_key 129', A, ask(), ['idempotency_key'], str(129), 'idempotency_key'],
  ['cases.ids 1', A, ask(), ['cases', 'ids'], ['a'], null],
  ['cases.ids 0', A, ask(), ['cases', 'ids'], [], 'cases.ids'],
  ['cases.ids 10000', A, ask(), ['cases', 'ids'], times(10_000, (i) => `c${i}`), null],
  ['cases.ids 10001', A, ask(), ['cases', 'ids'], times(10_001, (i) => `c${i}`), 'cases.ids'],
  ['cases.ids empty id', A, ask(), ['cases', 'ids'], ['a', 'b', 'c', ''], 'cases.ids.3'],
  ['cases.rows 10000', A, ask(), ['cases'], { rows: rows(10_000) }, null],
  ['cases.rows 0', A, ask(), ['cases'], { rows: [] }, 'cases.rows'],
  ['cases.rows 10001', A, ask(), ['cases'], { rows: rows(10_001) }, 'cases.rows'],
  ['question name 64', A, ask(), ['questions'], { [str(64)]: QUESTIONS.yesno }, null],
  ['question name 65', A, ask(), ['questions'], { [str(65)]: QUESTIONS.yesno }, `questions.${str(65)}`],
  ['question name with space', A, ask(), ['questions'], { 'a b': QUESTIONS.yesno }, 'questions.a b'],
  ['question name empty', A, ask(), ['questions'], { '': QUESTIONS.yesno }, 'questions.'],
  ['question name with _ and -', A, ask(), ['questions'], { 'Q_1-b': QUESTIONS.yesno }, null],
  ['questions empty map', A, ask(), ['questions'], {}, 'questions'],
  ['question type unknown', A, ask(), ['questions', 'q1', 'type'], 'number', 'questions.q1.type'],
  ['outcome_column empty', A, ask(), ['questions', 'q1', 'outcome_column'], '', 'questions.q1.outcome_column'],
  ['positive_values 1', A, ask(), ['questions', 'q1', 'positive_values'], ['y'], null],
  ['positive_values 0', A, ask(), ['questions', 'q1', 'positive_values'], [], 'questions.q1.positive_values'],
  ['outcome_is_desirable string', A, ask(), ['questions', 'q1', 'outcome_is_desirable'], 'yes', 'questions.q1.outcome_is_desirable'],
  ['refit_of ok', A, ask(), ['questions', 'q1', 'refit_of'], MODEL_REF, null],
  ['refit_of 31 hex', A, ask(), ['questions', 'q1', 'refit_of'], MODEL_REF.slice(0, -1), 'questions.q1.refit_of'],
  ['refit_of upper hex', A, ask(), ['questions', 'q1', 'refit_of'], MODEL_REF.toUpperCase(), 'questions.q1.refit_of'],
];

const questionRows: Row[] = [
  ['levels 2 + cuts 1', A, score, ['questions', 'q1'], { type: 'score', outcome_column: 'y', levels: ['a', 'b'], cuts: [0.5] }, null],
  ['levels 1', A, score, ['questions', 'q1', 'levels'], ['a'], 'questions.q1.levels'],
  [
    'levels 10 + cuts 9',
    A,
    score,
    ['questions', 'q1'],
    { type: 'score', outcome_column: 'y', levels: times(10, (i) => `l${i}`), cuts: times(9, (i) => (i + 1) / 10) },
    null,
  ],
  ['levels 11', A, score, ['questions', 'q1', 'levels'], times(11, (i) => `l${i}`), 'questions.q1.levels'],
  ['level empty string', A, score, ['questions', 'q1', 'levels'], ['', 'b', 'c', 'd'], 'questions.q1.levels.0'],
  ['cuts 0 items', A, score, ['questions', 'q1', 'cuts'], [], 'questions.q1.cuts'],
  ['cuts 10 items', A, score, ['questions', 'q1', 'cuts'], times(10, (i) => (i + 1) / 11), 'questions.q1.cuts'],
  ['cut just above 0', A, score, ['questions', 'q1', 'cuts'], [0.0001, 0.5, 0.9999], null],
  ['cut 0', A, score, ['questions', 'q1', 'cuts'], [0, 0.5, 0.75], 'questions.q1.cuts.0'],
  ['cut 1', A, score, ['questions', 'q1', 'cuts'], [0.25, 0.5, 1], 'questions.q1.cuts.2'],
  ['cut not a number', A, score, ['questions', 'q1', 'cuts'], [0.25, '0.5', 0.75], 'questions.q1.cuts.1'],
  ['options 2', A, choice, ['questions', 'q1', 'options'], ['a', 'b'], null],
  ['options 1', A, choice, ['questions', 'q1', 'options'], ['a'], 'questions.q1.options'],
  ['options 255', A, choice, ['questions', 'q1', 'options'], times(255, (i) => `o${i}`), null],
  ['options 256', A, choice, ['questions', 'q1', 'options'], times(256, (i) => `o${i}`), 'questions.q1.options'],
  ['option_column empty', A, choice, ['questions', 'q1', 'option_column'], '', 'questions.q1.option_column'],
  ['option_outcomes 2', A, outcomes, ['questions', 'q1', 'option_outcomes'], { a: 'x', b: 'y' }, null],
  ['option_outcomes 1', A, outcomes, ['questions', 'q1', 'option_outcomes'], { a: 'x' }, 'questions.q1.option_outcomes'],
  [
    'option_outcomes 32',
    A,
    outcomes,
    ['questions', 'q1', 'option_outcomes'],
    Object.fromEntries(times(32, (i) => [`o${i}`, `y${i}`])),
    null,
  ],
  [
    'option_outcomes 33',
    A,
    outcomes,
    ['questions', 'q1', 'option_outcomes'],
    Object.fromEntries(times(33, (i) => [`o${i}`, `y${i}`])),
    'questions.q1.option_outcomes',
  ],
  [
    'option_outcomes empty column',
    A,
    outcomes,
    ['questions', 'q1', 'option_outcomes'],
    { a: 'x', b: '' },
    'questions.q1.option_outcomes.b',
  ],
  ['top_k 1', A, rank, ['questions', 'q1', 'top_k'], 1, null],
  ['top_k 0', A, rank, ['questions', 'q1', 'top_k'], 0, 'questions.q1.top_k'],
  ['top_k 1000', A, rank, ['questions', 'q1', 'top_k'], 1000, null],
  ['top_k 1001', A, rank, ['questions', 'q1', 'top_k'], 1001, 'questions.q1.top_k'],
  ['top_k 2.5', A, rank, ['questions', 'q1', 'top_k'], 2.5, 'questions.q1.top_k'],
];

const shapeRows: Row[] = [
  ['event_column 200', A, events, ['shape', 'event_column'], str(200), null],
  ['event_column 201', A, events, ['shape', 'event_column'], str(201), 'shape.event_column'],
  ['event_column empty', A, events, ['shape', 'event_column'], '', 'shape.event_column'],
  ['value_columns 24', A, series, ['shape', 'value_columns'], times(24, (i) => `v${i}`), null],
  ['value_columns 25', A, series, ['shape', 'value_columns'], times(25, (i) => `v${i}`), 'shape.value_columns'],
  ['value_columns 0', A, series, ['shape', 'value_columns'], [], 'shape.value_columns'],
  ['value_columns name 201', A, series, ['shape', 'value_columns'], [str(201)], 'shape.value_columns.0'],
  ['signal_columns 24', A, signals, ['shape', 'signal_columns'], times(24, (i) => `s${i}`), null],
  ['signal_columns 25', A, signals, ['shape', 'signal_columns'], times(25, (i) => `s${i}`), 'shape.signal_columns'],
  ['signal_columns 0', A, signals, ['shape', 'signal_columns'], [], 'shape.signal_columns'],
  ['agent_column 201', A, traces, ['shape', 'agent_column'], str(201), 'shape.agent_column'],
  ['event_end_column empty', A, signals, ['shape', 'event_end_column'], '', 'shape.event_end_column'],
  ['horizon_days 90', A, events, ['shape', 'horizon_days'], 90, null],
  ['horizon_days 45', A, events, ['shape', 'horizon_days'], 45, 'shape.horizon_days'],
  ['lookback_days [30,90]', A, events, ['shape', 'lookback_days'], [30, 90], null],
  ['lookback_days [90,365]', A, events, ['shape', 'lookback_days'], [90, 365], null],
  ['lookback_days [30,60]', A, events, ['shape', 'lookback_days'], [30, 60], 'shape.lookback_days'],
  ['lookback_days [30,90,1]', A, events, ['shape', 'lookback_days'], [30, 90, 1], 'shape.lookback_days'],
  ['series windows [3,6]', A, series, ['shape', 'windows'], [3, 6], null],
  ['series windows [7,30]', A, series, ['shape', 'windows'], [7, 30], null],
  ['series windows signals form', A, series, ['shape', 'windows'], [1, 3, 7], 'shape.windows'],
  ['signals windows [1,7,30]', A, signals, ['shape', 'windows'], [1, 7, 30], null],
  ['signals windows series form', A, signals, ['shape', 'windows'], [3, 6], 'shape.windows'],
  ['snapshot_every 1w', A, signals, ['shape', 'snapshot_every'], '1w', null],
  ['snapshot_every 2h', A, signals, ['shape', 'snapshot_every'], '2h', 'shape.snapshot_every'],
  ['horizon 30', A, signals, ['shape', 'horizon'], 30, null],
  ['horizon 14', A, signals, ['shape', 'horizon'], 14, 'shape.horizon'],
  ['signals min_history 10', A, signals, ['shape', 'min_history'], 10, null],
  ['signals min_history 2', A, signals, ['shape', 'min_history'], 2, 'shape.min_history'],
  ['panel min_history 8', A, panel, ['shape', 'min_history'], 8, null],
  ['panel min_history 10', A, panel, ['shape', 'min_history'], 10, 'shape.min_history'],
  ['as_of 4 chars', A, events, ['shape', 'as_of'], '2024', null],
  ['as_of 3 chars', A, events, ['shape', 'as_of'], '202', 'shape.as_of'],
  ['as_of 40 chars', A, signals, ['shape', 'as_of'], `2024-01-01T00:00:00.${'0'.repeat(20)}`, null],
  ['as_of 41 chars', A, signals, ['shape', 'as_of'], `2024-01-01T00:00:00.${'0'.repeat(21)}`, 'shape.as_of'],
  ['label name 40', A, events, ['shape', 'label', 'name'], str(40), null],
  ['label name 41', A, events, ['shape', 'label', 'name'], str(41), 'shape.label.name'],
  ['label name snake', A, events, ['shape', 'label', 'name'], 'churn_30d', null],
  ['label name upper', A, events, ['shape', 'label', 'name'], 'Churn', 'shape.label.name'],
  ['label name leading _', A, events, ['shape', 'label', 'name'], '_churn', 'shape.label.name'],
  ['label name double _', A, events, ['shape', 'label', 'name'], 'a__b', 'shape.label.name'],
  ['label name trailing _', A, events, ['shape', 'label', 'name'], 'a_', 'shape.label.name'],
  ['label name leading digit', A, events, ['shape', 'label', 'name'], '1a', 'shape.label.name'],
  ['lapsed false', A, shaped(SHAPES.eventsLapsed), ['shape', 'label', 'lapsed'], false, 'shape.label.lapsed'],
  ['trend alpha 0.1', A, panel, ['shape', 'label', 'alpha'], 0.1, null],
  ['trend alpha 0.2', A, panel, ['shape', 'label', 'alpha'], 0.2, 'shape.label.alpha'],
  ['trend direction sideways', A, panel, ['shape', 'label', 'direction'], 'sideways', 'shape.label.direction'],
  ['trend_of 201', A, panel, ['shape', 'label', 'trend_of'], str(201), 'shape.label.trend_of'],
  ['window periods 4', A, panelWindow, ['shape', 'label', 'periods'], 4, null],
  ['window periods 5', A, panelWindow, ['shape', 'label', 'periods'], 5, 'shape.label.periods'],
  ['window agg any', A, panelWindow, ['shape', 'label', 'agg'], 'any', null],
  ['window agg sum', A, panelWindow, ['shape', 'label', 'agg'], 'sum', 'shape.label.agg'],
  ['when all 1', A, named({ all: [leaf()] }), [], undefined, null],
  ['when all 0', A, named({ all: [] }), [], undefined, 'shape.label.when.all'],
  ['when all 16', A, named({ all: times(16, () => leaf()) }), [], undefined, null],
  ['when all 17', A, named({ all: times(17, () => leaf()) }), [], undefined, 'shape.label.when.all'],
  ['when any 16', A, named({ any: times(16, () => leaf()) }), [], undefined, null],
  ['when any 17', A, named({ any: times(17, () => leaf()) }), [], undefined, 'shape.label.when.any'],
  ['when any 0', A, named({ any: [] }), [], undefined, 'shape.label.when.any'],
  ['when nested op', A, named({ any: [leaf(), leaf(), leaf({ op: '~=' })] }), [], undefined, 'shape.label.when.any.2.op'],
  [
    'when deep nested',
    A,
    named({ all: [{ any: [leaf(), { all: [leaf({ column: '' })] }] }] }),
    [],
    undefined,
    'shape.label.when.all.0.any.1.all.0.column',
  ],
  ['when nesting 16 levels', A, named(nest(16)), [], undefined, null],
  ['when nesting 17 levels', A, named(nest(17)), [], undefined, `shape.label.when${nestedPath(16)}`],
  [
    'when nesting 17 levels in item 2',
    A,
    named({ any: [leaf(), nest(15), nest(16)] }),
    [],
    undefined,
    `shape.label.when.any.2${nestedPath(15)}`,
  ],
  ['when column 200', A, named(leaf({ column: str(200) })), [], undefined, null],
  ['when column 201', A, named(leaf({ column: str(201) })), [], undefined, 'shape.label.when.column'],
  ['when value array', A, named(leaf({ op: 'in', value: [1, 'a', true] })), [], undefined, null],
  ['when value empty array', A, named(leaf({ op: 'in', value: [] })), [], undefined, 'shape.label.when.value'],
  ['when value array of objects', A, named(leaf({ op: 'in', value: ['a', {}] })), [], undefined, 'shape.label.when.value.1'],
  ['when value null', A, named(leaf({ value: null })), [], undefined, 'shape.label.when.value'],
  ['when leaf missing value', A, named({ column: 'a', op: '==' }), [], undefined, 'shape.label.when.value'],
  ['when neither form', A, named({ none: 1 }), [], undefined, 'shape.label.when'],
  ['when not an object', A, named('event == 1'), [], undefined, 'shape.label.when'],
];
for (const op of ['==', '!=', '<', '<=', '>', '>=', 'in']) {
  shapeRows.push([`when op ${op}`, A, named(leaf({ op })), [], undefined, null]);
}

const otherRows: Row[] = [
  ['add dataset_id 20 chars', AddDatasetRequestSchema, { csv: 'a' }, ['dataset_id'], `ds_${str(20, 'z')}`, null],
  ['add dataset_id 19 chars', AddDatasetRequestSchema, { csv: 'a' }, ['dataset_id'], `ds_${str(19, 'z')}`, 'dataset_id'],
  ['add dataset_id 40 chars', AddDatasetRequestSchema, { csv: 'a' }, ['dataset_id'], `ds_${str(40, '0')}`, null],
  ['add dataset_id 41 chars', AddDatasetRequestSchema, { csv: 'a' }, ['dataset_id'], `ds_${str(41, '0')}`, 'dataset_id'],
  ['add dataset_id upper', AddDatasetRequestSchema, { csv: 'a' }, ['dataset_id'], `ds_${str(20, 'Z')}`, 'dataset_id'],
  ['add rows 10000', AddDatasetRequestSchema, {}, ['rows'], rows(10_000), null],
  ['add rows 10001', AddDatasetRequestSchema, {}, ['rows'], rows(10_001), 'rows'],
  ['add rows 0', AddDatasetRequestSchema, {}, ['rows'], [], 'rows'],
  ['add csv empty', AddDatasetRequestSchema, {}, ['csv'], '', 'csv'],
  ['add csv 8,000,001', AddDatasetRequestSchema, {}, ['csv'], str(8_000_001), 'csv'],
  ['add upload false', AddDatasetRequestSchema, {}, ['upload'], false, 'upload'],
  ['add filename 120', AddDatasetRequestSchema, { upload: true }, ['filename'], `${str(116)}.csv`, null],
  ['add filename 121', AddDatasetRequestSchema, { upload: true }, ['filename'], `${str(117)}.csv`, 'filename'],
  ['add filename with space', AddDatasetRequestSchema, { upload: true }, ['filename'], 'my file.csv', 'filename'],
  ['delete dataset_id ok', DeleteDatasetRequestSchema, {}, ['dataset_id'], DATASET_ID, null],
  ['delete sample id', DeleteDatasetRequestSchema, {}, ['dataset_id'], 'sample:churn', 'dataset_id'],
  ['poll task_id 20', PollRequestSchema, {}, ['task_id'], `tk_${str(20, '7')}`, null],
  ['poll task_id 19', PollRequestSchema, {}, ['task_id'], `tk_${str(19, '7')}`, 'task_id'],
  ['poll task_id 40', PollRequestSchema, {}, ['task_id'], `tk_${str(40, 'q')}`, null],
  ['poll task_id 41', PollRequestSchema, {}, ['task_id'], `tk_${str(41, 'q')}`, 'task_id'],
  ['poll task_id missing', PollRequestSchema, { task_id: TASK_ID }, ['task_id'], undefined, 'task_id'],
  ['preflight dataset_id empty', PreflightRequestSchema, {}, ['dataset_id'], '', 'dataset_id'],
  ['preflight dataset_id ds_x', PreflightRequestSchema, {}, ['dataset_id'], 'ds_x', 'dataset_id'],
  ['preflight dataset_id stored', PreflightRequestSchema, {}, ['dataset_id'], DATASET_ID, null],
  ['preflight dataset_id sample', PreflightRequestSchema, {}, ['dataset_id'], 'sample:saas_churn', null],
  ['preflight dataset_id sample:', PreflightRequestSchema, {}, ['dataset_id'], 'sample:', 'dataset_id'],
  ['preflight outcome_column empty', PreflightRequestSchema, { dataset_id: 'sample:x' }, ['outcome_column'], '', 'outcome_column'],
  ['drift model_ref ok', DriftRequestSchema, {}, ['model_ref'], MODEL_REF, null],
  ['drift model_ref mr2', DriftRequestSchema, {}, ['model_ref'], MODEL_REF.replace('mr1_', 'mr2_'), 'model_ref'],
  ['evidence model_ref short', EvidenceRequestSchema, {}, ['model_ref'], 'mr1_abc', 'model_ref'],
  ['attest event_id 128', AttestRequestSchema, attest(), ['event_id'], str(128), null],
  ['attest event_id 129', AttestRequestSchema, attest(), ['event_id'], str(129), 'event_id'],
  ['attest lever_token empty', AttestRequestSchema, attest(), ['lever_token'], '', 'lever_token'],
  ['attest post_value object', AttestRequestSchema, attest(), ['post_value'], {}, 'post_value'],
];

function outcome(i: number) {
  return { entity_id: `c${i}`, outcome: i % 2, observed_at: '2024-06-01', event_id: `e${i}` };
}
function attest(): Body {
  return { model_ref: MODEL_REF, entity_id: 'c1', lever_token: 'tok', post_value: 10, acted_at: '2024-06-01' };
}
const report = { model_ref: MODEL_REF, outcomes: [outcome(0)] };
const R = ReportOutcomesRequestSchema;
otherRows.push(
  ['outcomes 1', R, report, ['outcomes'], [outcome(1)], null],
  ['outcomes 0', R, report, ['outcomes'], [], 'outcomes'],
  ['outcomes 10000', R, report, ['outcomes'], times(10_000, outcome), null],
  ['outcomes 10001', R, report, ['outcomes'], times(10_001, outcome), 'outcomes'],
  ['outcome event_id 128', R, report, ['outcomes', 0, 'event_id'], str(128), null],
  ['outcome event_id 129', R, report, ['outcomes', 0, 'event_id'], str(129), 'outcomes.0.event_id'],
  ['outcome entity_id empty', R, report, ['outcomes', 0, 'entity_id'], '', 'outcomes.0.entity_id'],
  ['outcome observed_at empty', R, report, ['outcomes', 0, 'observed_at'], '', 'outcomes.0.observed_at'],
  ['outcome true', R, report, ['outcomes', 0, 'outcome'], true, null],
  ['outcome "yes"', R, report, ['outcomes', 0, 'outcome'], 'yes', null],
  ['outcome 0.5', R, report, ['outcomes', 0, 'outcome'], 0.5, 'outcomes.0.outcome'],
  ['outcome null', R, report, ['outcomes', 0, 'outcome'], null, 'outcomes.0.outcome'],
  ['report model_ref missing', R, report, ['model_ref'], undefined, 'model_ref'],
);

function build(base: Body, path: Path, value: unknown): Body {
  return path.length === 0 ? base : withAt(base, path, value);
}

describe.each([
  ['ask', askRows],
  ['question', questionRows],
  ['shape', shapeRows],
  ['other operations', otherRows],
] as const)('%s limits', (_area, table) => {
  it.each(table)('%s', (_label, schema, base, path, value, field) => {
    expect(fieldOf(schema, build(base, path, value))).toBe(field);
  });
});
