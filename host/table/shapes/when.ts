// docs/reference/ask.md#shapes `when` expressions as plain JS predicates over a row (no string is ever compiled).
import { ServiceError } from '../../errors.ts';
import type { WhenExpression, WhenLeaf } from '../../schemas/shape.ts';
import type { Cell, RawTable } from '../types.ts';
import { parseTime } from '../select.ts';
import { cellText, compareCodePoints, isMissing, parseNumber } from '../typing.ts';
import { shapeColumn } from './read.ts';

export type RowTest = (row: number) => boolean;
type Scalar = string | number | boolean;

const TRUE_WORDS = new Set(['true', 'yes', 'y', 't', '1']);
const FALSE_WORDS = new Set(['false', 'no', 'n', 'f', '0']);

/**
 * Builds the predicate of a `when` expression over the rows of `table`; `field` is the expression's
 * dotted path (e.g. `shape.label.when`), so a fault names `shape.label.when.any.1.column`.
 * Meaning: `all` needs every item, `any` one of them. A leaf on a blank cell is false, whatever the
 * operator (so `!=` does not match blanks). Equality: numbers compare as numbers (`5` matches `5.0`),
 * booleans match true/false, yes/no, y/n, t/f, 1/0 in any case, strings match the trimmed text exactly.
 * `in` (or `==` with an array) matches any listed value; `!=` with an array matches none of them.
 * Order operators take a number or a string: both sides numbers compare as numbers, both times
 * (ISO 8601) as times, otherwise text by code point.
 */
export function compileWhen(expr: WhenExpression, table: RawTable, field: string): RowTest {
  if ('all' in expr) {
    const parts = expr.all.map((e, i) => compileWhen(e, table, `${field}.all.${i}`));
    return (r) => parts.every((p) => p(r));
  }
  if ('any' in expr) {
    const parts = expr.any.map((e, i) => compileWhen(e, table, `${field}.any.${i}`));
    return (r) => parts.some((p) => p(r));
  }
  return compileLeaf(expr, table, field);
}

function compileLeaf(leaf: WhenLeaf, table: RawTable, field: string): RowTest {
  const cells = table.data[shapeColumn(table, leaf.column, `${field}.column`)];
  const values: Scalar[] = Array.isArray(leaf.value) ? leaf.value : [leaf.value];
  const op = leaf.op;
  if (op === '==' || op === '!=' || op === 'in') {
    const tests = values.map(equalityTest);
    const match = (cell: Cell) => tests.some((t) => t(cell));
    return op === '!=' ? (r) => !isMissing(cells[r]) && !match(cells[r]) : (r) => !isMissing(cells[r]) && match(cells[r]);
  }
  if (Array.isArray(leaf.value) || typeof leaf.value === 'boolean') {
    throw new ServiceError('shape_invalid', `Operator ${op} needs one number or string to compare with.`, { field: `${field}.value` });
  }
  const compare = orderTest(leaf.value);
  const ok =
    op === '<' ? (c: number) => c < 0 : op === '<=' ? (c: number) => c <= 0 : op === '>' ? (c: number) => c > 0 : (c: number) => c >= 0;
  return (r) => {
    const cell = cells[r];
    if (isMissing(cell)) return false;
    const c = compare(cell);
    return c !== null && ok(c);
  };
}

function equalityTest(value: Scalar): (cell: Cell) => boolean {
  if (typeof value === 'boolean') {
    return (cell) => {
      if (typeof cell === 'boolean') return cell === value;
      const t = (cellText(cell) ?? '').toLowerCase();
      return value ? TRUE_WORDS.has(t) : FALSE_WORDS.has(t);
    };
  }
  const asNumber = parseNumber(value);
  const text = typeof value === 'string' ? value.trim() : String(value);
  return (cell) => {
    if (asNumber !== null) {
      const x = parseNumber(cell);
      if (x !== null) return x === asNumber;
    }
    return cellText(cell) === text;
  };
}

/** Sign of (cell - value), or null when the two cannot be compared. */
function orderTest(value: string | number): (cell: Cell) => number | null {
  const asNumber = parseNumber(value);
  const asTime = typeof value === 'string' && asNumber === null ? parseTime(value) : null;
  const text = String(value).trim();
  return (cell) => {
    if (asNumber !== null) {
      const x = parseNumber(cell);
      if (x !== null) return x - asNumber;
      if (typeof value === 'number') return null;
    }
    if (asTime !== null && typeof cell === 'string') {
      const t = parseTime(cell);
      if (t !== null) return t - asTime;
    }
    return compareCodePoints(cellText(cell) as string, text);
  };
}
