// Cross-field request rules (docs/reference/ask.md#data, docs/reference/ask.md rules 3-5, 4.2): each refusal names the field at fault.
import { describe, expect, it } from 'vitest';
import type * as v from 'valibot';
import { AskRequestSchema } from '../../host/schemas/index.ts';
import { QUESTIONS, SHAPES, ask, askWith, fieldOf, refusal, type Body } from './fixtures.ts';
import { AddDatasetRequestSchema } from '../../host/operations/datasets/add-dataset.schema.ts';

const A = AskRequestSchema;
const D = AddDatasetRequestSchema;
const score = (extra: Body) => askWith({ type: 'score', outcome_column: 'y', ...extra });
const choice = (extra: Body) => askWith({ type: 'choice', outcome_column: 'y', outcome_is_desirable: true, ...extra });
const noCases = (questions: Body) => ask({ questions, cases: undefined });
const url = 'https://example.com/t.csv';

/** [rule, schema, body, expected field or null when accepted]. */
const rules: [string, v.GenericSchema, unknown, string | null][] = [
  // docs/reference/ask.md#data: exactly one source; fetch_headers only with fetch_url.
  ['data with no source', A, ask({ data: {} }), 'data'],
  ['data with dataset_id and rows', A, ask({ data: { dataset_id: 'sample:x', rows: [{ a: 1 }] } }), 'data.rows'],
  ['data with csv and fetch_url', A, ask({ data: { csv: 'a', fetch_url: url } }), 'data.fetch_url'],
  ['data with only fetch_headers', A, ask({ data: { fetch_headers: { a: 'b' } } }), 'data'],
  ['data fetch_headers without fetch_url', A, ask({ data: { csv: 'a', fetch_headers: { a: 'b' } } }), 'data.fetch_headers'],
  ['data fetch_headers with fetch_url', A, ask({ data: { fetch_url: url, fetch_headers: { a: 'b' } } }), null],
  // docs/reference/ask.md#cases: exactly one of ids / rows.
  ['cases with neither', A, ask({ cases: {} }), 'cases'],
  ['cases with both', A, ask({ cases: { ids: ['a'], rows: [{ a: 1 }] } }), 'cases.rows'],
  ['cases with rows', A, ask({ cases: { rows: [{ customer_id: 'n1', plan: 'gold' }] } }), null],
  // docs/reference/ask.md#cases: cases required for yesno, score, choice; rank may rank the whole record.
  ['yesno without cases', A, noCases({ q1: QUESTIONS.yesno }), 'cases'],
  ['score without cases', A, noCases({ q1: QUESTIONS.score }), 'cases'],
  ['choice without cases', A, noCases({ q1: QUESTIONS.choiceColumn }), 'cases'],
  ['rank without cases', A, noCases({ r: QUESTIONS.rank }), null],
  ['rank and yesno without cases', A, noCases({ r: QUESTIONS.rank, y: QUESTIONS.yesno }), 'cases'],
  ['rank with cases', A, askWith(QUESTIONS.rank), null],
  // docs/reference/ask.md#questions: choice needs outcome_is_desirable.
  [
    'choice without outcome_is_desirable',
    A,
    askWith({ type: 'choice', outcome_column: 'y', option_column: 'o', options: ['a', 'b'] }),
    'questions.q1.outcome_is_desirable',
  ],
  ['yesno without outcome_is_desirable', A, askWith({ type: 'yesno', outcome_column: 'y' }), null],
  // docs/reference/ask.md#questions: option_column with options, or option_outcomes, not both.
  ['choice option_column without options', A, choice({ option_column: 'o' }), 'questions.q1.options'],
  ['choice options without option_column', A, choice({ options: ['a', 'b'] }), 'questions.q1.option_column'],
  ['choice with neither form', A, choice({}), 'questions.q1.option_column'],
  [
    'choice with both forms',
    A,
    choice({ option_column: 'o', options: ['a', 'b'], option_outcomes: { a: 'x', b: 'y' } }),
    'questions.q1.option_outcomes',
  ],
  [
    'choice option_outcomes and option_column',
    A,
    choice({ option_column: 'o', option_outcomes: { a: 'x', b: 'y' } }),
    'questions.q1.option_outcomes',
  ],
  // docs/reference/ask.md#questions: outcome_column required except choice with option_outcomes.
  ['choice option_outcomes without outcome_column', A, askWith(QUESTIONS.choiceOutcomes), null],
  [
    'choice option_column without outcome_column',
    A,
    askWith({ type: 'choice', outcome_is_desirable: true, option_column: 'o', options: ['a', 'b'] }),
    'questions.q1.outcome_column',
  ],
  ['yesno without outcome_column', A, askWith({ type: 'yesno' }), 'questions.q1.outcome_column'],
  ['score without outcome_column', A, askWith({ type: 'score' }), 'questions.q1.outcome_column'],
  ['rank without outcome_column', A, askWith({ type: 'rank' }), 'questions.q1.outcome_column'],
  // docs/reference/ask.md#questions: cuts one fewer than levels, ascending; defaults levels 4 / cuts 3.
  ['levels 3 with cuts 2', A, score({ levels: ['a', 'b', 'c'], cuts: [0.3, 0.6] }), null],
  ['levels 3 with cuts 3', A, score({ levels: ['a', 'b', 'c'], cuts: [0.2, 0.4, 0.6] }), 'questions.q1.cuts'],
  ['levels 3 with cuts 1', A, score({ levels: ['a', 'b', 'c'], cuts: [0.5] }), 'questions.q1.cuts'],
  ['levels 4 alone (default cuts 3)', A, score({ levels: ['a', 'b', 'c', 'd'] }), null],
  ['levels 5 alone', A, score({ levels: ['a', 'b', 'c', 'd', 'e'] }), 'questions.q1.levels'],
  ['levels 2 alone', A, score({ levels: ['a', 'b'] }), 'questions.q1.levels'],
  ['cuts 3 alone (default levels 4)', A, score({ cuts: [0.1, 0.2, 0.9] }), null],
  ['cuts 2 alone', A, score({ cuts: [0.1, 0.2] }), 'questions.q1.cuts'],
  ['cuts 4 alone', A, score({ cuts: [0.1, 0.2, 0.3, 0.4] }), 'questions.q1.cuts'],
  ['cuts equal neighbours', A, score({ cuts: [0.25, 0.25, 0.75] }), 'questions.q1.cuts'],
  ['cuts descending', A, score({ cuts: [0.75, 0.5, 0.25] }), 'questions.q1.cuts'],
  ['score with no levels or cuts', A, score({}), null],
  // docs/reference/ask.md#request: person needs acknowledge_decision_support true.
  ['person without acknowledgement', A, ask({ subject_kind: 'person' }), 'acknowledge_decision_support'],
  [
    'person with acknowledgement false',
    A,
    ask({ subject_kind: 'person', acknowledge_decision_support: false }),
    'acknowledge_decision_support',
  ],
  ['person with acknowledgement true', A, ask({ subject_kind: 'person', acknowledge_decision_support: true }), null],
  ['org without acknowledgement', A, ask({ subject_kind: 'org' }), null],
  // docs/reference/ask.md#request: time_column with every shape except table.
  ['table shape without time_column', A, ask({ shape: SHAPES.table }), null],
  // docs/reference/datasets.md#add-dataset: exactly one of rows, csv, fetch_url, upload; fetch_headers only with fetch_url.
  ['add-dataset with nothing', D, {}, '(none)'],
  ['add-dataset with only dataset_id', D, { dataset_id: `ds_${'a'.repeat(26)}` }, '(none)'],
  ['add-dataset rows and csv', D, { rows: [{ a: 1 }], csv: 'a' }, 'csv'],
  ['add-dataset csv and upload', D, { csv: 'a', upload: true }, 'upload'],
  ['add-dataset fetch_headers without fetch_url', D, { csv: 'a', fetch_headers: { a: 'b' } }, 'fetch_headers'],
  ['add-dataset append rows', D, { dataset_id: `ds_${'a'.repeat(26)}`, rows: [{ a: 1 }] }, null],
];
for (const [kind, shape] of Object.entries(SHAPES)) {
  if (kind === 'table') continue;
  rules.push([`${kind} shape without time_column`, A, ask({ shape }), 'time_column']);
  rules.push([`${kind} shape with time_column`, A, ask({ shape, time_column: 'ts' }), null]);
}

describe('cross-field rules', () => {
  it.each(rules)('%s', (_rule, schema, body, field) => {
    expect(fieldOf(schema, body)).toBe(field);
  });

  it('explains a cuts/levels mismatch with the counts', () => {
    const err = refusal(A, score({ levels: ['a', 'b', 'c', 'd'], cuts: [0.2, 0.5] }));
    expect(err?.message).toBe('questions.q1.cuts: must have exactly one fewer item than levels (4 levels need 3, got 2)');
  });

  it('checks a lone levels against the default cuts', () => {
    expect(refusal(A, score({ levels: ['a', 'b'] }))?.message).toMatch(/^questions\.q1\.levels: .*default cuts/);
  });

  it('names the first non-rank question when cases are missing', () => {
    const err = refusal(A, noCases({ r: QUESTIONS.rank, pick: QUESTIONS.choiceColumn }));
    expect(err?.message).toMatch(/^cases: is required: question pick is a choice question/);
  });
});
