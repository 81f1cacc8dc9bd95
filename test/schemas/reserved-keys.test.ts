// Every map in a request keeps the keys constructor, prototype and __proto__ (valibot's record drops them),
// as ordinary own properties that never reach a prototype (docs/reference/ask.md#data rows, 2.3 question names, 2.4 cases).
import { describe, expect, it } from 'vitest';
import type * as v from 'valibot';
import { AskRequestSchema, parseBody } from '../../host/schemas/index.ts';
import { QUESTIONS, ask, fieldOf } from './fixtures.ts';
import { VerifyRequestSchema } from '../../host/operations/account/verify.schema.ts';
import { AddDatasetRequestSchema } from '../../host/operations/datasets/add-dataset.schema.ts';

const NAMES = ['constructor', 'prototype', '__proto__'] as const;
/** JSON text as a client sends it: JSON.parse makes `__proto__` an own key, as the body reader does. */
const wire = (body: unknown): unknown => JSON.parse(JSON.stringify(body));
/** An object with the three names as own keys (an object literal would set the prototype instead). */
const withNames = (value: (name: string) => unknown, extra: Record<string, unknown> = {}) =>
  ({ ...extra, ...Object.fromEntries(NAMES.map((n) => [n, value(n)])) }) as Record<string, unknown>;

function at(root: unknown, path: readonly (string | number)[]): Record<string, unknown> {
  let node = root as Record<string | number, unknown>;
  for (const key of path) node = Object.getOwnPropertyDescriptor(node, key)!.value as Record<string | number, unknown>;
  return node as Record<string, unknown>;
}

const cell = (n: string) => `v_${n}`;
/** [label, schema, body, path to the map in the body and in the output, expected value per name]. */
const maps: [string, v.GenericSchema, unknown, (string | number)[], (n: string) => unknown][] = [
  ['data.rows', AskRequestSchema, ask({ data: { rows: [withNames(cell, { id: 'a' })] } }), ['data', 'rows', 0], cell],
  ['cases.rows', AskRequestSchema, ask({ cases: { rows: [withNames(cell, { id: 'a' })] } }), ['cases', 'rows', 0], cell],
  [
    'data.fetch_headers',
    AskRequestSchema,
    ask({ data: { fetch_url: 'https://example.com/a.csv', fetch_headers: withNames(cell) } }),
    ['data', 'fetch_headers'],
    cell,
  ],
  ['questions', AskRequestSchema, ask({ questions: withNames(() => QUESTIONS.yesno) }), ['questions'], () => QUESTIONS.yesno],
  [
    'option_outcomes',
    AskRequestSchema,
    ask({ questions: { q1: { ...QUESTIONS.choiceOutcomes, option_outcomes: withNames(cell) } } }),
    ['questions', 'q1', 'option_outcomes'],
    cell,
  ],
  ['add-dataset rows', AddDatasetRequestSchema, { rows: [withNames(cell, { id: 'a' })] }, ['rows', 0], cell],
  [
    'verify signature',
    VerifyRequestSchema,
    { verdict: { verdict_id: 'x', kind: 'answer' }, signature: withNames(cell) },
    ['signature'],
    cell,
  ],
];

describe('maps keep constructor, prototype and __proto__', () => {
  it.each(maps)('%s', (_label, schema, body, path, expected) => {
    const input = wire(body);
    // the body really holds the keys as own properties, as after JSON.parse of the request
    for (const n of NAMES) expect(Object.hasOwn(at(input, path), n)).toBe(true);
    const out = at(parseBody(schema, input), path);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    for (const n of NAMES) {
      expect(Object.getOwnPropertyDescriptor(out, n)).toMatchObject({ value: expected(n), enumerable: true, writable: true });
    }
    expect(Object.keys(out)).toEqual(Object.keys(at(input, path)));
    expect(JSON.parse(JSON.stringify(out))).toEqual(at(input, path));
  });

  it('the question map with only constructor is not empty', () => {
    expect(fieldOf(AskRequestSchema, wire(ask({ questions: { constructor: QUESTIONS.rank } })))).toBeNull();
  });

  it('a question named __proto__ is validated like any other and errors name it', () => {
    const body = wire(ask({ questions: Object.fromEntries([['__proto__', { type: 'yesno' }]]) }));
    expect(fieldOf(AskRequestSchema, body)).toBe('questions.__proto__.outcome_column');
    const bad = wire(ask({ questions: Object.fromEntries([['__proto__', { ...QUESTIONS.score, cuts: [0.5] }]]) }));
    expect(fieldOf(AskRequestSchema, bad)).toBe('questions.__proto__.cuts');
  });

  it('a bad value under a reserved key names it', () => {
    const headers = wire(ask({ data: { fetch_url: 'https://example.com/a', fetch_headers: Object.fromEntries([['__proto__', 1]]) } }));
    expect(fieldOf(AskRequestSchema, headers)).toBe('data.fetch_headers.__proto__');
    const outcomes = wire(ask({ questions: { q1: { ...QUESTIONS.choiceOutcomes, option_outcomes: { constructor: '', b: 'y' } } } }));
    expect(fieldOf(AskRequestSchema, outcomes)).toBe('questions.q1.option_outcomes.constructor');
  });

  it('the min/max entry rules count the reserved keys', () => {
    const two = wire(
      ask({
        questions: {
          q1: {
            ...QUESTIONS.choiceOutcomes,
            option_outcomes: Object.fromEntries([
              ['__proto__', 'x'],
              ['prototype', 'y'],
            ]),
          },
        },
      }),
    );
    expect(fieldOf(AskRequestSchema, two)).toBeNull();
    const one = wire(
      ask({ questions: { q1: { ...QUESTIONS.choiceOutcomes, option_outcomes: Object.fromEntries([['__proto__', 'x']]) } } }),
    );
    expect(fieldOf(AskRequestSchema, one)).toBe('questions.q1.option_outcomes');
  });

  it('a row that is an array is still refused', () => {
    expect(fieldOf(AskRequestSchema, ask({ data: { rows: [['a']] } }))).toBe('data.rows.0');
  });
});
