// The streaming UTF-8 check gives TextDecoder's fatal verdict on the whole input, however it is chunked.
import { describe, expect, it } from 'vitest';
import { Utf8Check } from '../../host/table/utf8-check.ts';

function decoderSays(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

function checkSays(bytes: Uint8Array, cuts: number[]): boolean {
  const check = new Utf8Check();
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    if (!check.push(bytes.subarray(at, cut))) return false;
    at = cut;
  }
  return check.end();
}

describe('Utf8Check', () => {
  const named: Array<[string, number[]]> = [
    ['ascii', [0x61, 0x2c, 0x0a]],
    ['2, 3 and 4 byte characters', [...Buffer.from('é日😀x')]],
    ['a BOM', [0xef, 0xbb, 0xbf, 0x61]],
    ['a lone continuation byte', [0x61, 0x80]],
    ['a cut 3-byte character at the end', [0x61, 0xe6, 0x97]],
    ['an overlong slash', [0xc0, 0xaf]],
    ['an overlong 3-byte form', [0xe0, 0x80, 0xaf]],
    ['a surrogate', [0xed, 0xa0, 0x80]],
    ['past U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
    ['0xff', [0xff]],
    ['a lead byte then ascii', [0xe6, 0x61, 0x61]],
    ['five continuation bytes after a 4-byte lead', [0xf0, 0x9f, 0x98, 0x80, 0x80]],
  ];
  it.each(named)('%s: same verdict as TextDecoder at every cut', (_name, list) => {
    const bytes = Uint8Array.from(list);
    const expected = decoderSays(bytes);
    for (let a = 0; a <= bytes.length; a++) {
      for (let b = a; b <= bytes.length; b++) expect(checkSays(bytes, [a, b]), `cuts ${a},${b}`).toBe(expected);
    }
  });

  it('agrees with TextDecoder on random bytes in random chunks', () => {
    // Mostly valid text with stray, cut and malformed bytes mixed in, so both verdicts occur often.
    const pieces = [
      ...['a', 'é', '日', '😀', '\n'].map((t) => [...Buffer.from(t)]),
      [0x80],
      [0xc3],
      [0xe6, 0x97],
      [0xf0, 0x9f],
      [0xed, 0xa0, 0x80],
      [0xc0, 0x80],
      [0xff],
    ];
    let seed = 99;
    const rand = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
    const seen = { true: 0, false: 0 };
    for (let n = 0; n < 4000; n++) {
      const list: number[] = [];
      for (let i = 0, len = 1 + rand(12); i < len; i++) list.push(...pieces[rand(n % 3 === 0 ? pieces.length : 5)]);
      const bytes = Uint8Array.from(list);
      const cuts = Array.from({ length: rand(4) }, () => rand(bytes.length + 1)).sort((x, y) => x - y);
      const expected = decoderSays(bytes);
      seen[String(expected) as 'true' | 'false']++;
      expect(checkSays(bytes, cuts), `${Buffer.from(bytes).toString('hex')} cut at ${cuts}`).toBe(expected);
    }
    expect(Math.min(seen.true, seen.false)).toBeGreaterThan(500);
  });
});
