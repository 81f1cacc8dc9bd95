// rowsToTable and the content hash of inline rows (host/table/rows.ts, hash.ts; docs/reference/ask.md#data).
import { describe, expect, it } from 'vitest';
import { rowsToTable } from '../../host/table/rows.ts';
import { contentHash, hashRows } from '../../host/table/hash.ts';
import { ServiceError } from '../../host/errors.ts';

describe('rowsToTable', () => {
  it('takes the union of keys in first-appearance order; a missing key is null', () => {
    const t = rowsToTable([
      { id: 'a', x: 1 },
      { id: 'b', y: true },
      { x: null, id: 'c', z: 'q' },
    ]);
    expect(t.columns).toEqual(['id', 'x', 'y', 'z']);
    expect(t.rowCount).toBe(3);
    expect(t.data).toEqual([
      ['a', 'b', 'c'],
      [1, null, null],
      [null, true, null],
      [null, null, 'q'],
    ]);
  });

  it('reads runs of rows with one key list, and key lists that change, reorder and come back', () => {
    const t = rowsToTable([{ a: 1, b: 2 }, { a: 3, b: 4 }, { b: 5, a: 6 }, { a: 7, b: 8, c: 9 }, { a: 10, b: 11 }, { c: 12 }]);
    expect(t.columns).toEqual(['a', 'b', 'c']);
    expect(t.data).toEqual([
      [1, 3, 6, 7, 10, null],
      [2, 4, 5, 8, 11, null],
      [null, null, null, 9, null, 12],
    ]);
  });

  it('keeps an empty row as a row of missing values', () => {
    const t = rowsToTable([{ a: 1 }, {}]);
    expect(t.data).toEqual([[1, null]]);
  });

  const bad: Array<[string, object[], string]> = [
    ['a nested object', [{ a: 1 }, { a: 2, b: { c: 1 } }], 'data.rows.1.b'],
    ['an array value', [{ tags: ['x'] }], 'data.rows.0.tags'],
    ['a row that is an array', [{ a: 1 }, [1, 2]], 'data.rows.1'],
    ['a row that is null', [null as unknown as object], 'data.rows.0'],
  ];
  it.each(bad)('refuses %s, naming its field', (_name, rows, field) => {
    let err: unknown;
    try {
      rowsToTable(rows);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).code).toBe('invalid_request');
    expect((err as ServiceError).field).toBe(field);
  });

  it('names the field given', () => {
    expect(() => rowsToTable([{ a: [] }], 'cases.rows')).toThrow(expect.objectContaining({ field: 'cases.rows.0.a' }));
  });
});

describe('content hash', () => {
  it('is lowercase hex SHA-256 of the UTF-8 bytes', () => {
    expect(contentHash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(contentHash(new TextEncoder().encode('abc'))).toBe(contentHash('abc'));
    expect(contentHash('é')).toBe(contentHash(new Uint8Array([0xc3, 0xa9])));
  });

  it('hashes inline rows as their JSON text, so key order and any value change matter', () => {
    const rows = [{ id: 'a', x: 1 }];
    expect(hashRows(rows)).toBe(contentHash('[{"id":"a","x":1}]'));
    expect(hashRows([{ x: 1, id: 'a' }])).not.toBe(hashRows(rows));
    expect(hashRows([{ id: 'a', x: 2 }])).not.toBe(hashRows(rows));
  });
});
