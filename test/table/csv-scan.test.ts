// The streaming upload check agrees with parseCsv (rows, header, errors) however the bytes are chunked.
import { describe, expect, it } from 'vitest';
import { CsvScanner } from '../../host/table/csv-scan.ts';
import { parseCsv } from '../../host/table/csv.ts';
import { ServiceError } from '../../host/errors.ts';

function viaParser(text: string): unknown {
  try {
    const t = parseCsv(text, { field: 'body' });
    return { columns: t.columns, rowCount: t.rowCount };
  } catch (err) {
    return { error: (err as ServiceError).message };
  }
}

function viaScanner(text: string, chunk: number): unknown {
  const bytes = Buffer.from(text, 'utf8');
  const s = new CsvScanner('body');
  try {
    for (let i = 0; i < bytes.length; i += chunk) s.push(bytes.subarray(i, i + chunk));
    return s.finish();
  } catch (err) {
    return { error: (err as ServiceError).message };
  }
}

const samples = [
  'a,b\n1,2\n3,4\n',
  'a,b\r\n1,2\r\n3,4',
  'a,b\r1,2\r3,4\r',
  '\ufeffa,b\n1,2\n',
  '\n\n  \t\na,b\n\n1,2\n   \n3,4\n\n',
  ' a , b \n 1,2\n',
  '"a","b"\n"1,5","x\ny"\n"q""q",2\n',
  '"a" ,b\n1,2\n',
  'a,b\n"1"x,2\n',
  'a,b\n"unterminated,2\n',
  'a,b\n1,2,3\n',
  'a,b\n1\n',
  'a,a\n1,2\n',
  'a,,b\n1,2,3\n',
  '',
  '   \n\n',
  'a,b\n1,\n',
  'a,b\n1,',
  'a,b\n,\n',
  'a\n\n\n',
  'a"b,c\n1,2\n',
  'a,b\n  "x",2\n',
  'h1,h2\n"multi\r\nline",2\r\n3,4\r\n',
  'naïve,日本\nü,語\n',
  '"a\nb",c\n1,2\n',
  'a,b\n1,2\n"3\n',
  // a semicolon header: every row is read with semicolons, a decimal comma stays inside its field
  'a;b;c\n1,5;x;2\n3;"y;z";4,25\n',
  '\ufeffa;b\r\n1;2\r\n',
  'a;b\n1;2;3\n',
  '"a,b";c\n1;2\n',
];

describe('CsvScanner', () => {
  it.each(samples.map((s) => [JSON.stringify(s), s]))('agrees with parseCsv on %s in any chunking', (_name, text) => {
    const expected = viaParser(text);
    for (const chunk of [1, 2, 3, 7, 1 << 16]) expect(viaScanner(text, chunk), `chunk ${chunk}`).toEqual(expected);
  });

  it('agrees with parseCsv on random CSV-ish text', () => {
    const alphabet = ['a', 'b', ',', ';', '"', '\n', '\r', ' ', '\t', 'é'];
    let seed = 12345;
    const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    for (let n = 0; n < 3000; n++) {
      const len = 1 + Math.floor(rand() * 30);
      let text = '';
      for (let i = 0; i < len; i++) text += alphabet[Math.floor(rand() * alphabet.length)];
      const expected = viaParser(text);
      expect(viaScanner(text, 1 + Math.floor(rand() * 5)), JSON.stringify(text)).toEqual(expected);
    }
  });

  it('reports row starts where the input can be cut: each part, after the header, parses to its own rows', () => {
    const valid = samples.filter((text) => !('error' in (viaParser(text) as object)));
    let seed = 777;
    const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const alphabet = ['a', 'b', ',', ';', '"', '\n', '\r', '\r\n', ' ', '\t', 'é'];
    while (valid.length < 400) {
      let text = '';
      for (let i = 0, len = 1 + Math.floor(rand() * 40); i < len; i++) text += alphabet[Math.floor(rand() * alphabet.length)];
      if (!('error' in (viaParser(text) as object))) valid.push(text);
    }
    let cuts = 0;
    for (const text of valid) {
      const bytes = Buffer.from(text, 'utf8');
      const whole = parseCsv(text, { field: 'body' });
      for (const chunk of [1, 3, 1 << 16]) {
        const starts: Array<[number, number]> = [];
        const s = new CsvScanner('body', { onRowStart: (at, rowsBefore) => starts.push([at, rowsBefore]) });
        for (let i = 0; i < bytes.length; i += chunk) s.push(bytes.subarray(i, i + chunk));
        s.finish();
        const header = Buffer.from(s.headerRow());
        expect(parseCsv(header.toString('utf8')).columns).toEqual(whole.columns);
        expect(starts.map(([, before]) => before)).toEqual(starts.map((_, k) => k)); // one report per data row, in order
        // Cut at every reported start: the first part as is, later ones behind the header row.
        const bounds = [0, ...starts.map(([at]) => at), bytes.length];
        const data: string[][] = whole.columns.map(() => []);
        for (let k = 0; k + 1 < bounds.length; k++) {
          const part = bytes.subarray(bounds[k], bounds[k + 1]);
          const t = parseCsv((k === 0 ? part : Buffer.concat([header, part])).toString('utf8'));
          expect(t.columns).toEqual(whole.columns);
          expect(t.rowCount, `${JSON.stringify(text)} part ${k}`).toBe(k === 0 ? 0 : 1);
          t.data.forEach((col, c) => data[c].push(...(col as string[])));
          cuts++;
        }
        expect(data, JSON.stringify(text)).toEqual(whole.data);
      }
    }
    expect(cuts).toBeGreaterThan(1000);
  });

  it('refuses a row longer than maxRowBytes, before the row has ended', () => {
    // A row's bytes run from its first (leading spaces included) to its line end: 6 each here.
    const ok = new CsvScanner('body', { maxRowBytes: 6 });
    ok.push(Buffer.from('id,x\nabcd,\r\n  ab,\n'));
    expect(ok.finish()).toEqual({ columns: ['id', 'x'], rowCount: 2 });

    const s = new CsvScanner('body', { maxRowBytes: 6 });
    s.push(Buffer.from('id,x\nab,c\n"abcde')); // still open: a quoted field
    expect(() => s.push(Buffer.from('\n\n'))).toThrow(/row starting on line 3 is longer than 6 bytes/);
    const late = new CsvScanner('body', { maxRowBytes: 6 });
    expect(() => late.push(Buffer.from('id,x\nab,c\nabcdef,g\n'))).toThrow(/line 3 is longer than 6 bytes/);
  });

  it('refuses bytes that are not UTF-8', () => {
    const s = new CsvScanner('body');
    expect(() => s.push(Buffer.from([0x61, 0x0a, 0xff, 0x0a]))).toThrow(/not UTF-8/);
    const cut = new CsvScanner('body');
    cut.push(Buffer.from([0x61, 0x0a, 0xc3])); // the first byte of é, never completed
    expect(() => cut.finish()).toThrow(/not UTF-8/);
  });
});
