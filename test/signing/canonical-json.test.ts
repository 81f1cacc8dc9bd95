// Canonical JSON cases checked against what Python's json.dumps(sort_keys, ensure_ascii) + repr(float) writes (docs/reference/verdicts.md).
import { describe, it, expect } from 'vitest';
import { canonicalJson } from '../../host/signing/canonical-json.ts';

const numbers: [number, string][] = [
  [0, '0'],
  [-0, '0'],
  [3, '3'],
  [-7, '-7'],
  [100.0, '100'],
  [9999999999999998, '9999999999999998'],
  [0.1, '0.1'],
  [0.5, '0.5'],
  [-2.5, '-2.5'],
  [0.1 + 0.2, '0.30000000000000004'],
  [1 / 3, '0.3333333333333333'],
  [1234.5678, '1234.5678'],
  [1e15 + 0.5, '1000000000000000.5'],
  [0.0001, '0.0001'],
  [0.00012345, '0.00012345'],
  [1e-5, '1e-05'],
  [2.5e-5, '2.5e-05'],
  [1.5e-7, '1.5e-07'],
  [-1e-7, '-1e-07'],
  [2 ** -20, '9.5367431640625e-07'],
  [5e-324, '5e-324'],
  [1e16, '1e+16'],
  [1e21, '1e+21'],
  [123456789012345680000, '1.2345678901234568e+20'],
  [-1.2345e20, '-1.2345e+20'],
  [1e100, '1e+100'],
  [1.7976931348623157e308, '1.7976931348623157e+308'],
];

const strings: [string, string][] = [
  ['plain', '"plain"'],
  ['a"b\\c/d', '"a\\"b\\\\c/d"'],
  ['\b\f\n\r\t', '"\\b\\f\\n\\r\\t"'],
  ['\u0001\u001f', '"\\u0001\\u001f"'],
  ['\u007f', '"\\u007f"'],
  ['é', '"\\u00e9"'],
  ['\u2028', '"\\u2028"'],
  ['\uffff', '"\\uffff"'],
  ['😀', '"\\ud83d\\ude00"'],
];

const structures: [string, unknown, string][] = [
  ['null and booleans', [null, true, false], '[null,true,false]'],
  ['empty containers', { a: [], b: {} }, '{"a":[],"b":{}}'],
  ['keys sorted', { b: 1, a: 2, '': 3 }, '{"":3,"a":2,"b":1}'],
  ['prefix sorts first', { ab: 1, a: 2 }, '{"a":2,"ab":1}'],
  ['non-ASCII keys after ASCII', { é: 1, z: 2 }, '{"z":2,"\\u00e9":1}'],
  // UTF-16 code units would put U+1F600 (D83D DE00) before U+FFFF; code points put it after.
  ['astral keys sorted by code point', { '😀': 2, '\uffff': 1 }, '{"\\uffff":1,"\\ud83d\\ude00":2}'],
  ['nested and sorted at every level', { z: [1, { y: null, x: true }], a: false }, '{"a":false,"z":[1,{"x":true,"y":null}]}'],
  ['undefined properties omitted', { a: undefined, b: 1 }, '{"b":1}'],
  ['a __proto__ key is a key like any other', JSON.parse('{"z":1,"__proto__":{"b":2,"a":1}}'), '{"__proto__":{"a":1,"b":2},"z":1}'],
  [
    'repeated (non-cyclic) references allowed',
    (() => {
      const s = { k: 1 };
      return [s, s];
    })(),
    '[{"k":1},{"k":1}]',
  ],
];

const cyclic: Record<string, unknown> = {};
cyclic.self = cyclic;

const rejects: [string, unknown][] = [
  ['NaN', NaN],
  ['Infinity', Infinity],
  ['-Infinity in an object', { x: -Infinity }],
  ['undefined at top level', undefined],
  ['undefined in an array', [1, undefined]],
  ['a function', () => 1],
  ['a function property', { f: () => 1 }],
  ['a bigint', 1n],
  ['a symbol', Symbol('s')],
  ['a Date', new Date(0)],
  ['a Map', new Map()],
  ['a cycle', cyclic],
];

describe('canonicalJson', () => {
  it.each(numbers)('writes the number %s as %s', (x, out) => {
    expect(canonicalJson(x)).toBe(out);
  });

  it.each(strings)('escapes the string %j as %s', (s, out) => {
    expect(canonicalJson(s)).toBe(out);
  });

  it.each(structures)('%s', (_name, value, out) => {
    expect(canonicalJson(value)).toBe(out);
  });

  it.each(rejects)('throws on %s', (_name, value) => {
    expect(() => canonicalJson(value)).toThrow(TypeError);
  });

  it('writes only printable ASCII', () => {
    const out = canonicalJson({ ключ: ['значение', '\u0000', '𝄞', 0.25] });
    expect(out).toMatch(/^[\x20-\x7e]*$/);
    expect(JSON.parse(out)).toEqual({ ключ: ['значение', '\u0000', '𝄞', 0.25] });
  });

  it('round-trips every number to the same double', () => {
    for (const [x] of numbers) expect(Number(canonicalJson(x))).toBe(x === 0 ? 0 : x);
  });
});

describe('canonicalJson fast path', () => {
  it('writes exactly what the reference writer writes, for seeded random documents', async () => {
    const { canonicalJsonReference } = await import('../../host/signing/canonical-json.ts');
    let seed = 12345;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const leaf = (): unknown => {
      const k = Math.floor(rnd() * 7);
      if (k === 0) return Math.floor(rnd() * 1e6) - 5e5;
      if (k === 1) return rnd() * 10 ** (Math.floor(rnd() * 30) - 12) * (rnd() < 0.5 ? -1 : 1);
      if (k === 2) return ['plain', 'é', 'tab\there', 'quote"', 'del\u007f', '😀', ''][Math.floor(rnd() * 7)];
      if (k === 3) return rnd() < 0.5;
      if (k === 4) return null;
      if (k === 5) return Math.round(rnd() * 1e6) / 1e6;
      return 0;
    };
    const build = (depth: number): unknown => {
      if (depth > 3 || rnd() < 0.3) return leaf();
      if (rnd() < 0.4) return Array.from({ length: Math.floor(rnd() * 4) }, () => build(depth + 1));
      const o: Record<string, unknown> = {};
      const names = ['b', 'a', 'p', 'entity_id', 'Z', 'é', '10', 'reasons'];
      for (let i = 0; i < 4; i++) o[names[Math.floor(rnd() * names.length)]] = build(depth + 1);
      return o;
    };
    for (let i = 0; i < 3000; i++) {
      const doc = build(0);
      expect(canonicalJson(doc)).toBe(canonicalJsonReference(doc));
    }
  });

  it('writes exactly what the reference writer writes for documents built in canonical key order (the straight path)', async () => {
    const { canonicalJsonReference, compareCodePoints } = await import('../../host/signing/canonical-json.ts');
    let seed = 777;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const texts = ['plain', 'é', 'tab\there', 'nul\u0000', 'del\u007f', '😀', 'lone \ud800', 'line\u2028sep', '\uffff', ''];
    const leaf = (): unknown => {
      const k = Math.floor(rnd() * 5);
      if (k === 0) return Math.round(rnd() * 1e6) / 1e3;
      if (k === 1) return rnd() * 10 ** (Math.floor(rnd() * 30) - 12);
      if (k === 2) return texts[Math.floor(rnd() * texts.length)];
      if (k === 3) return rnd() < 0.5;
      return null;
    };
    const keys = ['a', 'b', 'p', 'entity_id', 'Z', 'é', '2', '10', '9', '😀', '\uffff', 'lone\udc00'];
    const build = (depth: number): unknown => {
      if (depth > 3 || rnd() < 0.3) return leaf();
      if (rnd() < 0.3) return Array.from({ length: Math.floor(rnd() * 4) }, () => build(depth + 1));
      const chosen = [...new Set(Array.from({ length: 4 }, () => keys[Math.floor(rnd() * keys.length)]))].sort(compareCodePoints);
      const o: Record<string, unknown> = {};
      for (const k of chosen) o[k] = build(depth + 1);
      return o;
    };
    let plainAscii = 0;
    for (let i = 0; i < 3000; i++) {
      const doc = build(0);
      const ref = canonicalJsonReference(doc);
      expect(canonicalJson(doc)).toBe(ref);
      if (ref === JSON.stringify(doc)) plainAscii++;
    }
    expect(plainAscii).toBeGreaterThan(300); // the straight path was taken often
  });
});

describe('canonicalJsonShared', () => {
  it('writes what canonicalJson writes, for documents that share frozen and unfrozen parts', async () => {
    const { canonicalJsonShared } = await import('../../host/signing/canonical-json.ts');
    let seed = 99;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const leaf = () => [1e-7, 0.5, 'é', 'plain', null, true, -3, '😀'][Math.floor(rnd() * 8)];
    let pool: object[] = [];
    const build = (depth: number): unknown => {
      if (depth >= 2 && pool.length > 0 && rnd() < 0.3) return pool[Math.floor(rnd() * pool.length)]; // a shared part
      if (depth > 3 || rnd() < 0.3) return leaf();
      const o: Record<string, unknown> = {};
      for (const k of ['z', 'a', 'é', '10', 'm'].slice(0, 1 + Math.floor(rnd() * 4))) o[k] = build(depth + 1);
      const part = rnd() < 0.5 ? [o, build(depth + 1)] : o;
      if (rnd() < 0.6) Object.freeze(part);
      pool.push(part);
      return part;
    };
    for (let i = 0; i < 2000; i++) {
      if (i % 20 === 0) pool = []; // parts shared within a few documents, never piling up
      const doc = build(0);
      expect(canonicalJsonShared(doc)).toBe(canonicalJson(doc));
    }
  });

  it('never reuses the text of a part that can still change', async () => {
    const { canonicalJsonShared } = await import('../../host/signing/canonical-json.ts');
    const inner = { x: 1 };
    const outer = Object.freeze({ inner }); // frozen, but holds an unfrozen object
    const open = { y: 1 };
    expect(canonicalJsonShared([outer, open])).toBe('[{"inner":{"x":1}},{"y":1}]');
    inner.x = 2;
    open.y = 2;
    expect(canonicalJsonShared([outer, open])).toBe('[{"inner":{"x":2}},{"y":2}]');
    const sealed = Object.freeze({ r: Object.freeze({ t: 'a' }) });
    expect(canonicalJsonShared([sealed, sealed])).toBe('[{"r":{"t":"a"}},{"r":{"t":"a"}}]');
    expect(() => canonicalJsonShared([NaN])).toThrow(TypeError);
  });
});

describe('canonicalSharedListJson', () => {
  it('writes exactly what the reference writer writes, for lists of cases whose reasons share parts', async () => {
    const { canonicalSharedListJson, canonicalJsonReference } = await import('../../host/signing/canonical-json.ts');
    let seed = 4242;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const leaf = () =>
      [1e-7, 0.5, 0.1 + 0.2, 1e16, -0, 'é', 'plain', 'tab\there', 'del\u007f', '😀', 'lone \ud800', null, true, -3][Math.floor(rnd() * 14)];
    const keys = ['z', 'a', 'é', '10', '2', 'm', '😀', '\uffff', 'entity_id', 'p', '__proto__', 'a"b'];
    const object = (depth: number): Record<string, unknown> => {
      const o: Record<string, unknown> = {};
      const chosen = Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => keys[Math.floor(rnd() * keys.length)]);
      if (rnd() < 0.5) chosen.sort(); // often already in order (JSON.stringify's straight path), often not
      for (const k of chosen) {
        const value = depth > 1 || rnd() < 0.5 ? leaf() : rnd() < 0.5 ? object(depth + 1) : [leaf(), object(depth + 1)];
        Object.defineProperty(o, k, { value: rnd() < 0.1 ? undefined : value, enumerable: true, writable: true });
      }
      return o;
    };
    for (let i = 0; i < 1000; i++) {
      const pool = Array.from({ length: 1 + Math.floor(rnd() * 5) }, () => (rnd() < 0.8 ? Object.freeze(object(0)) : leaf()));
      const list = Array.from({ length: Math.floor(rnd() * 6) }, () => {
        const c = object(1);
        const reasons = Array.from({ length: Math.floor(rnd() * 4) }, () => pool[Math.floor(rnd() * pool.length)]);
        // the reasons key anywhere in the item's key order
        const at = Math.floor(rnd() * (Object.keys(c).length + 1));
        const entries = Object.entries(c);
        entries.splice(at, 0, ['reasons', reasons]);
        const item: Record<string, unknown> = {};
        for (const [k, v] of entries) Object.defineProperty(item, k, { value: v, enumerable: true, writable: true });
        return item;
      });
      expect(canonicalSharedListJson(list)).toBe(canonicalJsonReference(list));
    }
  });

  it('writes anything else as canonicalJson does, and rejects what it rejects', async () => {
    const { canonicalSharedListJson } = await import('../../host/signing/canonical-json.ts');
    const others: unknown[] = [
      [],
      [1, 2],
      [{ reasons: 'not a list' }],
      [{ reasons: [] }, 3],
      { reasons: [1] },
      'x',
      null,
      [Object.create(null)],
    ];
    for (const value of others) expect(canonicalSharedListJson(value)).toBe(canonicalJson(value));
    for (const [, value] of rejects) expect(() => canonicalSharedListJson(value)).toThrow(TypeError);
    expect(() => canonicalSharedListJson([{ reasons: [NaN] }])).toThrow(TypeError);
    expect(() => canonicalSharedListJson([{ reasons: [{ x: 1n }] }])).toThrow(TypeError);
    const part = { x: 1 };
    const list = [{ reasons: [part, part] }, { reasons: [part] }];
    expect(canonicalSharedListJson(list)).toBe('[{"reasons":[{"x":1},{"x":1}]},{"reasons":[{"x":1}]}]');
    part.x = 2; // texts are kept for one call only
    expect(canonicalSharedListJson(list)).toBe('[{"reasons":[{"x":2},{"x":2}]},{"reasons":[{"x":2}]}]');
  });

  it('writes the shared lists under any key, __proto__ included, as canonicalJson does', async () => {
    const { canonicalSharedListJson } = await import('../../host/signing/canonical-json.ts');
    const part = { x: 1 };
    const proto = JSON.parse('[{"__proto__":[{"x":1}],"a":1},{"__proto__":[],"b":"z"}]') as unknown[];
    expect(canonicalSharedListJson(proto, '__proto__')).toBe(canonicalJson(proto));
    const list = [
      { items: [part, part], z: 0 },
      { a: null, items: [part] },
    ];
    expect(canonicalSharedListJson(list, 'items')).toBe(canonicalJson(list));
    expect(list[0].items).toEqual([part, part]); // the caller's objects are left as they were
  });
});

describe('canonicalObjectPieces', () => {
  it("joins to canonicalObjectJson's text, each top-level value a piece of its own", async () => {
    const { canonicalObjectPieces, canonicalObjectJson } = await import('../../host/signing/canonical-json.ts');
    const docs: Array<Record<string, unknown>> = [
      {},
      { a: 1 },
      { z: [{ b: 1, a: 'é', reasons: [{ k: 1 }] }], a: 1e-7, m: { y: null }, u: undefined, '😀': 'astral' },
    ];
    for (const doc of docs) {
      const texts: string[] = [];
      const pieces = canonicalObjectPieces(doc, (_, text) => texts.push(text));
      expect(pieces.join('')).toBe(canonicalObjectJson(doc));
      expect(pieces.join('')).toBe(canonicalJson(doc));
      for (const text of texts) expect(pieces).toContain(text); // written once, not copied into a bigger piece
    }
  });
});
