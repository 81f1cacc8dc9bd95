// parseCsv: RFC 4180 edge cases and errors (host/table/csv.ts; docs/reference/ask.md#data, docs/reference/errors.md#problem).
import { describe, expect, it } from 'vitest';
import { canonicalNumber, parseCsv, scanCanonicalNumber } from '../../host/table/csv.ts';
import { cellText, parseNumber } from '../../host/table/typing.ts';
import { ServiceError } from '../../host/errors.ts';

/** Row-major view for readable expectations. */
function rowsOf(text: string): { columns: string[]; rows: unknown[][] } {
  const t = parseCsv(text);
  const rows = Array.from({ length: t.rowCount }, (_, r) => t.data.map((col) => col[r]));
  return { columns: t.columns, rows };
}

function errorOf(fn: () => unknown): ServiceError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
  throw new Error('expected a ServiceError');
}

describe('parseCsv reads valid CSV', () => {
  const cases: Array<[string, string, string[], string[][]]> = [
    [
      'plain rows',
      'a,b\n1,2\n3,4',
      ['a', 'b'],
      [
        ['1', '2'],
        ['3', '4'],
      ],
    ],
    ['a trailing LF adds no row', 'a,b\n1,2\n', ['a', 'b'], [['1', '2']]],
    [
      'CRLF line ends',
      'a,b\r\n1,2\r\n3,4\r\n',
      ['a', 'b'],
      [
        ['1', '2'],
        ['3', '4'],
      ],
    ],
    ['a lone CR ends a line', 'a,b\r1,2\r', ['a', 'b'], [['1', '2']]],
    ['a leading BOM is dropped', '\uFEFFa,b\n1,2', ['a', 'b'], [['1', '2']]],
    [
      'blank lines are skipped',
      '\n\na,b\n\n1,2\r\n\r\n  \n3,4\n\n',
      ['a', 'b'],
      [
        ['1', '2'],
        ['3', '4'],
      ],
    ],
    ['header names are trimmed', ' a , b\t\n1,2', ['a', 'b'], [['1', '2']]],
    ['values keep their spaces', 'a,b\n 1 , x ', ['a', 'b'], [[' 1 ', ' x ']]],
    ['quoted fields hold commas', 'a,b\n"1,5",x', ['a', 'b'], [['1,5', 'x']]],
    ['doubled quotes are one quote', 'a\n"say ""hi"""', ['a'], [['say "hi"']]],
    ['quoted fields hold LF and CRLF', 'a,b\n"l1\nl2","x\r\ny"\n', ['a', 'b'], [['l1\nl2', 'x\r\ny']]],
    ['an empty quoted field', 'a,b\n"",x', ['a', 'b'], [['', 'x']]],
    [
      'empty fields, including the last',
      'a,b,c\n,,\n1,,',
      ['a', 'b', 'c'],
      [
        ['', '', ''],
        ['1', '', ''],
      ],
    ],
    ['a quoted header name', '"a,1",b\n1,2', ['a,1', 'b'], [['1', '2']]],
    ['spaces after a closing quote', 'a,b\n"1"  ,2', ['a', 'b'], [['1', '2']]],
    ['a quote inside an unquoted field is kept', 'a\n5" pipe', ['a'], [['5" pipe']]],
    ['a header without rows', 'a,b\n', ['a', 'b'], []],
    ['the last quoted field at end of text', 'a,b\n1,"2"', ['a', 'b'], [['1', '2']]],
  ];
  it.each(cases)('%s', (_name, text, columns, rows) => {
    expect(rowsOf(text)).toEqual({ columns, rows });
  });
});

describe('parseCsv refuses malformed CSV with invalid_request', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['empty text', '', /no header/],
    ['only blank lines', '\n\r\n  \n', /no header/],
    ['a duplicate header name', 'a,b,a\n1,2,3', /"a".*columns 1 and 3/],
    ['a duplicate after trimming', 'a, a\n1,2', /"a"/],
    ['an empty header name', 'a,,c\n1,2,3', /column 2 has no name/],
    ['a short row, naming its line', 'a,b\n1,2\n\n3\n', /Line 4 has 1 field; the header has 2/],
    ['a long row, naming its line', 'a,b\r\n1,2,3', /Line 2 has 3 fields/],
    ['line numbers count lines inside quotes', 'a,b\n"x\ny",1\n2\n', /Line 4 has 1 field/],
    ['an unterminated quote', 'a,b\n1,"2\n3,4\n', /line 2 is never closed/],
    ['text after a closing quote', 'a,b\n"1"x,2', /after a closing quote/],
  ];
  it.each(cases)('%s', (_name, text, detail) => {
    const err = errorOf(() => parseCsv(text));
    expect(err.code).toBe('invalid_request');
    expect(err.field).toBe('data.csv');
    expect(err.message).toMatch(detail);
  });

  it('names the field given in the options', () => {
    expect(errorOf(() => parseCsv('a,a\n', { field: 'csv' })).field).toBe('csv');
  });
});

describe('parseCsv keeps a column of decimal numbers as numbers', () => {
  it('reads a column of numbers written as JavaScript writes them, one with a fraction, as those numbers', () => {
    const t = parseCsv('id,a,b,c,d,e\nx,1.5,3,1.5,NA,-0.25\ny,2,4,"2",0.25,1.10\nz,,5,x,7,3\n');
    expect(t.data[0]).toEqual(['x', 'y', 'z']); // text
    expect(t.data[1]).toEqual([1.5, 2, '']); // numbers; a missing value stays as written
    expect(t.data[2]).toEqual(['3', '4', '5']); // whole numbers alone stay text (ids, dates written 20240315)
    expect(t.data[3]).toEqual(['1.5', '2', 'x']); // a quoted field or a word: the whole column is text
    expect(t.data[4]).toEqual(['NA', 0.25, 7]);
    expect(t.data[5]).toEqual(['-0.25', '1.10', '3']); // 1.10 is not how 1.1 is written: text
  });

  it('reads every cell exactly as its text would be read', () => {
    const fields = ['0', '-1.5', '0.000001', '123456789012.345', '7', '', 'NaN', '1e3', '-0', '0.10', '00.5', '+2.5', ' 3.5'];
    for (const f of fields) {
      const t = parseCsv(`a,b\n${f},0.5\n1.25,0.5\n`);
      expect(cellText(t.data[0][0])).toBe(cellText(f));
      expect(parseNumber(t.data[0][0])).toBe(parseNumber(f));
    }
  });

  it('a semicolon-separated file keeps its decimal commas as text', () => {
    expect(parseCsv('a;b\n1,5;2.5\n').data).toEqual([['1.5'], ['2.5']]);
  });

  it('canonicalNumber takes exactly the fields String(Number(field)) gives back, as Number(field)', () => {
    let seed = 12345;
    const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
    const make = [
      () => String(Math.round((rand() - 0.5) * 10 ** (rand() * 12) * 1000) / 1000),
      () => (rand() * 10 ** (rand() * 20 - 8)).toPrecision(1 + Math.floor(rand() * 17)),
      () => String((rand() - 0.5) * 10 ** (rand() * 30 - 10)),
      () => String(Math.floor(rand() * 1e17)),
    ];
    const wrong: string[] = [];
    for (let k = 0; k < 40_000; k++) {
      const s = make[k % make.length]();
      const x = canonicalNumber(s, 0, s.length);
      const digits = s.replace(/[-.]/g, '').length;
      const canonical = String(Number(s)) === s && digits <= 15 && !(Math.abs(Number(s)) < 1e-6 && Number(s) !== 0);
      if (Number.isNaN(x) ? canonical : String(x) !== s || x !== Number(s)) wrong.push(s);
    }
    expect(wrong).toEqual([]);
    for (const s of ['-0', '00', '0.0', '1.', '.5', '-', '', '1e3', '+1', '0.0000001', '1234567890123456', '1.10', ' 1'])
      expect(canonicalNumber(s, 0, s.length), s).toBeNaN();
  });

  it('scanCanonicalNumber reads a field as canonicalNumber does, in the pass that finds its end', () => {
    let seed = 777;
    const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
    const fields = [
      '-0',
      '00',
      '0.0',
      '1.',
      '.5',
      '-',
      '',
      '1e3',
      '+1',
      '0.0000001',
      '1234567890123456',
      '1.10',
      ' 1',
      '1 ',
      '1"2',
      '-1.5x',
    ];
    for (let k = 0; k < 5_000; k++) fields.push(String(Math.round((rand() - 0.5) * 10 ** (rand() * 12) * 1000) / 1000));
    for (const field of fields) {
      for (const [before, after] of [
        ['', ''],
        ['a,', ',b'],
        ['x;', '\r\n'],
        ['', '\n1'],
        ['', '\r'],
      ]) {
        const text = before + field + after;
        const x = scanCanonicalNumber(text, before.length, text.length, before.endsWith(';') ? 59 : 44);
        const want = canonicalNumber(field, 0, field.length);
        expect(Object.is(x, want) || (Number.isNaN(x) && Number.isNaN(want)), JSON.stringify(text)).toBe(true);
      }
    }
  });
});

describe('parseCsv at the size limit', () => {
  it('parses an 8,000,000-character CSV of about 100k rows x 10 columns', () => {
    const header = Array.from({ length: 10 }, (_, c) => `col${c}`).join(',');
    const lines = [header];
    let size = header.length + 1;
    for (let r = 0; size < 8_000_000; r++) {
      const cells = Array.from({ length: 10 }, (_, c) => (c === 3 ? `"t ${r}, ""q"""` : String((r * 7919 + c * 104729) % 1000003)));
      const line = cells.join(',');
      lines.push(line);
      size += line.length + 1;
    }
    const text = `${lines.join('\n')}\n`;
    expect(text.length).toBeGreaterThanOrEqual(8_000_000);
    const t = parseCsv(text);
    expect(t.columns).toHaveLength(10);
    expect(t.rowCount).toBe(lines.length - 1);
    expect(t.rowCount).toBeGreaterThan(90_000);
    expect(t.data[3][5]).toBe('t 5, "q"');
    expect(t.data.every((col) => col.length === t.rowCount)).toBe(true);
  });
});

describe('parseCsv reads a semicolon-separated export', () => {
  it('reads semicolons when the header has them and no comma, decimal commas as decimal points', () => {
    expect(rowsOf('id;spend;plan;churned\nc1;12,5;"a;b";yes\nc2;-3,75;pro,x;no\nc3;7;basic;no\n')).toEqual({
      columns: ['id', 'spend', 'plan', 'churned'],
      rows: [
        ['c1', '12.5', 'a;b', 'yes'],
        ['c2', '-3.75', 'pro,x', 'no'],
        ['c3', '7', 'basic', 'no'],
      ],
    });
  });

  it('keeps commas as the separator when the header has any comma, even beside semicolons', () => {
    expect(rowsOf('a;x,b\n1;2,3\n')).toEqual({ columns: ['a;x', 'b'], rows: [['1;2', '3']] });
    expect(errorOf(() => parseCsv('"a";b\n1;2\n')).message).toMatch(/after a closing quote/); // a quoted header stays comma-read
  });

  it('counts fields by semicolons, so a short row is named as before', () => {
    expect(errorOf(() => parseCsv('a;b;c\n1;2\n')).message).toMatch(/Line 2 has 2 fields; the header has 3/);
  });

  it('still refuses a tab-separated file with the comma fix', () => {
    expect(errorOf(() => parseCsv('a\tb\tc\n1\t2\t3\n')).message).toMatch(/tab-separated/);
  });
});
