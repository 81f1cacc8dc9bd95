// The streaming upload check agrees with parseCsv (rows, header, errors) however the bytes are chunked.
import { describe, expect, it } from 'vitest';
import { CsvScanner } from '../../host/operations/datasets/csv-scan.ts';
import { parseCsv } from '../../host/table/csv.ts';
import { ServiceError } from '../../host/http/problem.ts';

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
];

describe('CsvScanner', () => {
  it.each(samples.map((s) => [JSON.stringify(s), s]))('agrees with parseCsv on %s in any chunking', (_name, text) => {
    const expected = viaParser(text);
    for (const chunk of [1, 2, 3, 7, 1 << 16]) expect(viaScanner(text, chunk), `chunk ${chunk}`).toEqual(expected);
  });

  it('agrees with parseCsv on random CSV-ish text', () => {
    const alphabet = ['a', 'b', ',', '"', '\n', '\r', ' ', '\t', 'é'];
    let seed = 12345;
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    for (let n = 0; n < 3000; n++) {
      const len = 1 + Math.floor(rand() * 30);
      let text = '';
      for (let i = 0; i < len; i++) text += alphabet[Math.floor(rand() * alphabet.length)];
      const expected = viaParser(text);
      expect(viaScanner(text, 1 + Math.floor(rand() * 5)), JSON.stringify(text)).toEqual(expected);
    }
  });

  it('refuses bytes that are not UTF-8', () => {
    const s = new CsvScanner('body');
    expect(() => s.push(Buffer.from([0x61, 0x0a, 0xff, 0x0a]))).toThrow(/not UTF-8/);
    const cut = new CsvScanner('body');
    cut.push(Buffer.from([0x61, 0x0a, 0xc3])); // the first byte of é, never completed
    expect(() => cut.finish()).toThrow(/not UTF-8/);
  });
});
