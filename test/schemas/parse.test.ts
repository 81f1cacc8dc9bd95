// parseBody: one invalid_request error naming the most relevant field in a clear sentence (docs/reference/errors.md#problem).
import { describe, expect, it } from 'vitest';
import { AskRequestSchema, parseBody } from '../../host/schemas/index.ts';
import { ServiceError } from '../../host/errors.ts';
import { QUESTIONS, SHAPES, ask, askWith, refusal, withAt } from './fixtures.ts';
import { DescribeRequestSchema } from '../../host/operations/account/describe.schema.ts';

describe('parseBody', () => {
  it('throws a 422 invalid_request ServiceError with field and a detail that starts with it', () => {
    const err = refusal(AskRequestSchema, ask({ entity_column: '' }));
    expect(err).toBeInstanceOf(ServiceError);
    expect(err?.status).toBe(422);
    expect(err?.field).toBe('entity_column');
    expect(err?.message).toBe('entity_column: must have at least 1 character, got 0');
  });

  it('returns the typed body when valid', () => {
    const out = parseBody(AskRequestSchema, ask());
    expect(out.questions.q1.type).toBe('yesno');
  });

  it.each([[[]], [null], ['{}'], [42]])('refuses a body that is not a JSON object (%j) without a field', (body) => {
    const err = refusal(AskRequestSchema, body);
    expect(err?.field).toBeUndefined();
    expect(err?.message).toMatch(/^body: must be a JSON object/);
  });

  it('reports the first issue in document order', () => {
    const err = refusal(AskRequestSchema, ask({ data: { csv: '' }, entity_column: '' }));
    expect(err?.field).toBe('data.csv');
  });

  it('reports an unknown property before any other issue, wherever each is', () => {
    const { data: _data, ...noData } = ask({ zz: 1 });
    expect(refusal(AskRequestSchema, noData)?.message).toBe('zz: is not an allowed property');
    const { data, ...misspelt } = ask();
    expect(refusal(AskRequestSchema, { ...misspelt, datta: data })?.field).toBe('datta');
    const nested = ask({ data: { rows: [] }, questions: { q1: { ...QUESTIONS.yesno, weight: 2 } } });
    expect(refusal(AskRequestSchema, nested)?.field).toBe('questions.q1.weight');
    const crossField = askWith({ type: 'score', outcome_column: 'y', cuts: [0.5], bins: 3 });
    expect(refusal(AskRequestSchema, crossField)?.field).toBe('questions.q1.bins');
  });

  it('among several unknown properties, reports the first the schema meets', () => {
    const body = ask({ zz: 1, data: { dataset_id: 'sample:x', format: 'csv' } });
    expect(refusal(AskRequestSchema, body)?.field).toBe('data.format');
    // the same whatever order the caller wrote the keys in
    const { zz, ...rest } = body;
    expect(refusal(AskRequestSchema, { zz, ...rest })?.field).toBe('data.format');
  });

  it('says a required property is required', () => {
    expect(refusal(AskRequestSchema, ask({ entity_column: undefined }))?.message).toBe('entity_column: is required');
    const choice = { type: 'choice', outcome_column: 'y', option_column: 'o', options: ['a', 'b'] };
    expect(refusal(AskRequestSchema, askWith(choice))?.message).toBe('questions.q1.outcome_is_desirable: is required on a choice question');
  });

  it('lists the allowed values of an enum', () => {
    expect(refusal(AskRequestSchema, ask({ subject_kind: 'robot' }))?.message).toBe(
      'subject_kind: must be one of "person", "org", "object", "event", "other", got "robot"',
    );
    expect(refusal(AskRequestSchema, askWith({ ...QUESTIONS.yesno, type: 'number' }))?.message).toBe(
      'questions.q1.type: must be one of "yesno", "score", "choice", "rank", got "number"',
    );
  });

  it('names a bad question name as the map key', () => {
    const err = refusal(AskRequestSchema, ask({ questions: { 'will churn?': QUESTIONS.yesno } }));
    expect(err?.field).toBe('questions.will churn?');
    expect(err?.message).toMatch(/must match the pattern \^\[A-Za-z0-9_-\]\{1,64\}\$/);
  });

  it('points inside a union at the failing item, not at "invalid union"', () => {
    const when = { column: 'plan', op: 'in', value: ['gold', { x: 1 }] };
    const body = withAt(ask({ shape: SHAPES.events, time_column: 'ts' }), ['shape', 'label', 'when'], when);
    const err = refusal(AskRequestSchema, body);
    expect(err?.field).toBe('shape.label.when.value.1');
    expect(err?.message).toBe('shape.label.when.value.1: must be a string, number or boolean');
  });

  it('keeps the union message for fixed choices such as windows', () => {
    const body = ask({ shape: { ...SHAPES.series, windows: [3, 7] }, time_column: 'ts' });
    expect(refusal(AskRequestSchema, body)?.message).toBe('shape.windows: must be one of [3,6], [7,30], [4,12]');
  });

  it('names the label form expected for the kind', () => {
    const body = ask({ shape: { kind: 'events', label: { trend_of: 'x' } }, time_column: 'ts' });
    expect(refusal(AskRequestSchema, body)?.message).toBe('shape.label: an events label is {lapsed: true} or {name, when}');
    const panel = ask({ shape: { kind: 'panel', label: { lapsed: true } }, time_column: 'ts' });
    expect(refusal(AskRequestSchema, panel)?.field).toBe('shape.label');
  });

  it('refuses a when expression nested 100,000 deep at its 17th level, without exhausting the stack', () => {
    let when: unknown = { column: 'a', op: '==', value: 1 };
    for (let i = 0; i < 100_000; i++) when = { all: [when] };
    const body = withAt(ask({ shape: SHAPES.events, time_column: 'ts' }), ['shape', 'label', 'when'], when);
    const err = refusal(AskRequestSchema, body);
    const field = `shape.label.when${'.all.0'.repeat(16)}`;
    expect(err?.field).toBe(field);
    expect(err?.message).toBe(`${field}: is an all/any nested 17 levels deep; a when expression allows at most 16 levels of all/any`);
  });

  it('says what a dataset_id must be when it is neither a stored id nor sample:<name>', () => {
    expect(refusal(AskRequestSchema, ask({ data: { dataset_id: 'ds_x' } }))?.message).toBe(
      'data.dataset_id: must be a stored dataset id (ds_ followed by 20 to 40 of 0-9 a-z) or sample:<name>, got "ds_x"',
    );
  });

  it('refuses any property on describe', () => {
    expect(refusal(DescribeRequestSchema, { a: 1 })?.message).toBe('a: is not an allowed property');
  });
});
