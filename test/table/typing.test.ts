// Column typing, encodings and yes/no detection (host/table/typing.ts; docs/design/engine.md#step-3).
import { describe, expect, it } from 'vitest';
import {
  cellText,
  compareCodePoints,
  encodeCategorical,
  encodeNumeric,
  inferColumn,
  isMissing,
  parseNumber,
  yesNoMeaning,
} from '../../host/table/typing.ts';

describe('isMissing', () => {
  const cases: Array<[unknown, boolean]> = [
    [null, true],
    [undefined, true],
    ['', true],
    ['   ', true],
    ['NA', true],
    [' N/A ', true],
    ['n/a', true],
    ['#N/A', true],
    ['NaN', true],
    ['nan', true],
    ['null', true],
    ['NULL', true],
    [NaN, true],
    [Infinity, true],
    [-Infinity, true],
    [0, false],
    [false, false],
    ['0', false],
    ['none', false],
    ['Na', false],
    ['x', false],
  ];
  it.each(cases)('%j is missing: %s', (cell, expected) => {
    expect(isMissing(cell)).toBe(expected);
  });
});

describe('parseNumber', () => {
  const cases: Array<[unknown, number | null]> = [
    ['12', 12],
    ['-3.5', -3.5],
    ['+2', 2],
    ['1e3', 1000],
    ['2.5E-2', 0.025],
    [' 4 ', 4],
    ['.5', 0.5],
    ['5.', 5],
    ['007', 7],
    ['-0', 0],
    [-0, 0],
    [3.25, 3.25],
    ['0x10', null],
    ['1,000', null],
    ['Infinity', null],
    ['-Infinity', null],
    ['1e999', null],
    ['NaN', null],
    ['', null],
    ['.', null],
    ['1e', null],
    ['e5', null],
    ['1 2', null],
    ['--1', null],
    ['1.2.3', null],
    [true, null],
    [null, null],
    [Infinity, null],
    [NaN, null],
  ];
  it.each(cases)('%j parses as %j', (cell, expected) => {
    const x = parseNumber(cell);
    expect(x).toBe(expected);
    if (x === 0) expect(Object.is(x, -0)).toBe(false);
  });
});

describe('inferColumn', () => {
  const cases: Array<[string, unknown[], { kind: string; missing: number; distinct: number }]> = [
    ['numbers and numeric strings', ['1', 2, ' 3.5 ', '2.0'], { kind: 'numeric', missing: 0, distinct: 3 }],
    ['numeric with missing', ['1', '', 'NA', null, '1'], { kind: 'numeric', missing: 3, distinct: 1 }],
    ['one word makes it categorical', ['1', '2', 'x'], { kind: 'categorical', missing: 0, distinct: 3 }],
    ['booleans are categorical', [true, false, true, null], { kind: 'categorical', missing: 1, distinct: 2 }],
    ['yes/no strings are categorical', ['yes', 'no', ' yes'], { kind: 'categorical', missing: 0, distinct: 2 }],
    ['all missing is empty', ['', null, 'NaN'], { kind: 'empty', missing: 3, distinct: 0 }],
    ['no rows is empty', [], { kind: 'empty', missing: 0, distinct: 0 }],
    ['hex is categorical', ['0x10', '16'], { kind: 'categorical', missing: 0, distinct: 2 }],
  ];
  it.each(cases)('%s', (_name, cells, expected) => {
    expect(inferColumn(cells)).toEqual(expected);
  });
});

describe('encoders', () => {
  it('encodeNumeric gives NaN for missing values and 0 for -0', () => {
    const out = encodeNumeric(['1.5', '', null, -0, 'NA', '2e1']);
    expect(Array.from(out)).toEqual([1.5, NaN, NaN, 0, NaN, 20]);
    expect(Object.is(out[3], -0)).toBe(false);
  });

  it('encodeCategorical sorts the dictionary and codes -1 for missing', () => {
    const { codes, dictionary } = encodeCategorical(['b', ' a', null, 'c', 'a', '', true, 3]);
    expect(dictionary).toEqual(['3', 'a', 'b', 'c', 'true']);
    expect(Array.from(codes)).toEqual([2, 1, -1, 3, 1, -1, 4, 0]);
  });

  it('encodeCategorical gives the same dictionary and codes per value whatever the row order', () => {
    const cells = ['pro', 'basic', 'team', 'basic', '', 'Pro', 'énterprise', 'zeta', '😀', '\uFFFD'];
    const a = encodeCategorical(cells);
    const reversed = encodeCategorical([...cells].reverse());
    const shuffled = [3, 7, 0, 9, 1, 5, 2, 8, 4, 6].map((i) => cells[i]);
    const b = encodeCategorical(shuffled);
    expect(reversed.dictionary).toEqual(a.dictionary);
    expect(b.dictionary).toEqual(a.dictionary);
    expect(a.dictionary).toEqual(['Pro', 'basic', 'pro', 'team', 'zeta', 'énterprise', '\uFFFD', '😀']);
    shuffled.forEach((v, r) => expect(b.codes[r]).toBe(a.codes[cells.indexOf(v)]));
  });

  it('compareCodePoints puts supplementary characters after U+FFFD, unlike UTF-16 order', () => {
    expect(compareCodePoints('😀', '\uFFFD')).toBeGreaterThan(0);
    expect('😀' < '\uFFFD').toBe(true);
    expect(compareCodePoints('ab', 'abc')).toBeLessThan(0);
    expect(compareCodePoints('b', 'b')).toBe(0);
  });

  it('cellText canonicalises numbers and booleans', () => {
    expect([cellText(-0), cellText(1.5), cellText(false), cellText(' x '), cellText('NA')]).toEqual(['0', '1.5', 'false', 'x', null]);
  });
});

describe('yesNoMeaning', () => {
  const cases: Array<[unknown[], string | null, string[]?]> = [
    [['0', '1'], '1'],
    [[1, 0], '1'],
    [['1.0', '0.0'], '1.0'],
    [['No', 'Yes'], 'Yes'],
    [['yes', 'no'], 'yes'],
    [['Yes', 'yes', 'No', 'NO'], 'Yes', ['Yes', 'yes']],
    [['TRUE', 'FALSE'], 'TRUE'],
    [[true, false], 'true'],
    [['Y', 'n'], 'Y'],
    [['t', 'F'], 't'],
    [[' yes ', 'no', '', null, 'NA'], 'yes'],
    [['yes'], null],
    [['yes', 'no', 'maybe'], null],
    [['yes', '0'], null],
    [['true', 'no'], null],
    [['2', '1'], null],
    [['a', 'b'], null],
    [[], null],
  ];
  it.each(cases)('%j means yes: %j', (values, positive, all) => {
    const m = yesNoMeaning(values);
    if (positive === null) expect(m).toBeNull();
    else {
      expect(m?.positive).toBe(positive);
      if (all) expect(m?.positiveValues).toEqual(all);
    }
  });

  it('lists the no spellings too', () => {
    expect(yesNoMeaning(['No', 'no', 'Yes'])).toEqual({ positive: 'Yes', positiveValues: ['Yes'], negativeValues: ['No', 'no'] });
  });
});
