// docs/reference/ask.md#shapes `when` grammar: every leaf operator, nesting, blanks, and faults named by their path.
import { describe, expect, it } from 'vitest';
import { compileWhen } from '../../../host/table/shapes/when.ts';
import type { WhenExpression } from '../../../host/schemas/shape.ts';
import { errorOf, table } from './helpers.ts';

const T = table([
  { kind: 'purchase', amount: 120, flag: 'yes', at: '2024-03-01T10:00:00Z', code: 'b' },
  { kind: 'refund', amount: '80.0', flag: 'No', at: '2024-03-02', code: 'a' },
  { kind: 'visit', amount: null, flag: true, at: '2024-02-29T23:00:00-02:00', code: 'c' },
  { kind: ' visit ', amount: 'n/a', flag: '', at: null, code: 'B' },
]);
const hits = (expr: unknown) => [0, 1, 2, 3].filter(compileWhen(expr as WhenExpression, T, 'shape.label.when'));

describe('when leaves', () => {
  it('== and != compare trimmed text, and never match a blank cell', () => {
    expect(hits({ column: 'kind', op: '==', value: 'visit' })).toEqual([2, 3]);
    expect(hits({ column: 'amount', op: '!=', value: 120 })).toEqual([1]); // null and 'n/a' are blank: not even !=
  });

  it('compares numbers as numbers, whatever their spelling', () => {
    expect(hits({ column: 'amount', op: '==', value: 80 })).toEqual([1]);
    expect(hits({ column: 'amount', op: '>', value: '100' })).toEqual([0]);
    expect(hits({ column: 'amount', op: '<=', value: 80 })).toEqual([1]);
    expect(hits({ column: 'amount', op: '>=', value: 80 })).toEqual([0, 1]);
    expect(hits({ column: 'amount', op: '<', value: 200 })).toEqual([0, 1]);
  });

  it('matches booleans against true/false, yes/no, 1/0 in any case', () => {
    expect(hits({ column: 'flag', op: '==', value: true })).toEqual([0, 2]);
    expect(hits({ column: 'flag', op: '==', value: false })).toEqual([1]);
  });

  it('compares ISO times as times (zones honoured) and other text by code point', () => {
    expect(hits({ column: 'at', op: '>=', value: '2024-03-01' })).toEqual([0, 1, 2]); // 23:00-02:00 is 01:00Z on 1 March
    expect(hits({ column: 'at', op: '<', value: '2024-03-01T06:00:00+04:00' })).toEqual([2]);
    expect(hits({ column: 'code', op: '<', value: 'b' })).toEqual([1, 3]); // 'B' sorts before 'b'
  });

  it('in (and == with a list) matches any listed value; != with a list matches none of them', () => {
    expect(hits({ column: 'kind', op: 'in', value: ['refund', 'purchase'] })).toEqual([0, 1]);
    expect(hits({ column: 'kind', op: '==', value: ['refund', 'purchase'] })).toEqual([0, 1]);
    expect(hits({ column: 'kind', op: '!=', value: ['refund', 'purchase'] })).toEqual([2, 3]);
    expect(hits({ column: 'amount', op: 'in', value: 120 })).toEqual([0]);
  });
});

describe('when nesting', () => {
  it('all needs every item, any one of them, to any depth', () => {
    expect(
      hits({
        all: [
          { column: 'amount', op: '>', value: 50 },
          { column: 'flag', op: '==', value: false },
        ],
      }),
    ).toEqual([1]);
    expect(
      hits({
        any: [
          { column: 'kind', op: '==', value: 'visit' },
          { all: [{ column: 'code', op: '==', value: 'b' }, { any: [{ column: 'flag', op: '==', value: true }] }] },
        ],
      }),
    ).toEqual([0, 2, 3]);
  });
});

describe('when faults', () => {
  it('names a missing column by its full path', () => {
    const e = errorOf(() => hits({ any: [{ column: 'kind', op: '==', value: 'x' }, { all: [{ column: 'nope', op: '==', value: 1 }] }] }));
    expect(e.code).toBe('shape_invalid');
    expect(e.field).toBe('shape.label.when.any.1.all.0.column');
  });

  it('refuses an order operator on a list or a boolean, naming the value', () => {
    expect(errorOf(() => hits({ column: 'amount', op: '<', value: [1, 2] })).field).toBe('shape.label.when.value');
    expect(errorOf(() => hits({ all: [{ column: 'flag', op: '>=', value: true }] })).field).toBe('shape.label.when.all.0.value');
  });
});
