// host/schemas/common.ts RowsSchema: its fast path for well-formed rows gives what valibot's own run of the
// readable schema (RowsByValibot) gives, and anything else is still valibot's problem naming the field.
import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { RowsByValibot, RowsSchema } from '../../host/schemas/common.ts';
import { AskRequestSchema, parseBody } from '../../host/schemas/index.ts';
import { ServiceError } from '../../host/errors.ts';

const row = (i: number) => ({ id: `c${i}`, x: i / 7, plan: i % 2 ? 'pro' : null, ok: true, nested: { a: [1] } });
const inputs: [string, unknown][] = [
  ['one row', [row(1)]],
  ['10,000 rows', Array.from({ length: 10_000 }, (_, i) => row(i))],
  ['a __proto__ and a constructor column', JSON.parse('[{"__proto__":{"a":1},"constructor":2,"10":3,"b":4}]')],
  ['an empty row', [{}]],
  ['no rows', []],
  ['10,001 rows', Array.from({ length: 10_001 }, (_, i) => row(i))],
  ['an array row', [row(1), [1, 2]]],
  ['a null row', [row(1), row(2), null]],
  ['a string row', ['a,b']],
  ['an object, not an array', { 0: row(1) }],
  ['null', null],
];

describe('RowsSchema', () => {
  it.each(inputs)('%s: the same result as valibot over the readable schema', (_name, input) => {
    const fast = v.safeParse(RowsSchema, input);
    const slow = v.safeParse(RowsByValibot, input);
    expect(fast.success).toBe(slow.success);
    if (slow.success) {
      expect(fast.output).toEqual(slow.output);
      // own keys in the same order, __proto__ included, and fresh objects (the caller's rows are not handed on)
      expect((fast.output as object[]).map((r) => Object.keys(r))).toEqual((slow.output as object[]).map((r) => Object.keys(r)));
      expect((fast.output as object[]).map((r) => Object.getPrototypeOf(r))).toEqual(
        (slow.output as object[]).map((r) => Object.getPrototypeOf(r)),
      );
      if ((input as object[]).length > 0) expect((fast.output as object[])[0]).not.toBe((input as object[])[0]);
    } else {
      expect(fast.issues).toEqual(slow.issues);
    }
  });

  it('a bad row in an ask is still a problem naming its field', () => {
    const ask = {
      entity_column: 'id',
      subject_kind: 'other',
      questions: { q: { type: 'yesno', model_ref: 'mr1_8c6b4ef57d39c73f3cb8ff10ee44f4b9' } },
      cases: { rows: [row(1), row(2), [3]] },
    };
    let err: unknown;
    try {
      parseBody(AskRequestSchema, ask);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).field).toBe('cases.rows.2');
  });
});
