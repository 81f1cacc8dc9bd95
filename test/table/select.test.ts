// parseTime and latest-row selection (host/table/select.ts; docs/reference/ask.md#cases, docs/reference/ask.md#request time_column).
import { describe, expect, it } from 'vitest';
import { latestRowPerEntity, parseIso8601, parseTime } from '../../host/table/select.ts';
import { rowsToTable } from '../../host/table/rows.ts';
import type { RawTable } from '../../host/table/types.ts';

describe('parseTime', () => {
  const day = Date.UTC(2024, 1, 29);
  const cases: Array<[unknown, number | null]> = [
    ['2024-02-29', day],
    [' 2024-02-29 ', day],
    ['2024-02-29T10:30', day + 10.5 * 3600e3],
    ['2024-02-29 10:30:15', day + 10.5 * 3600e3 + 15e3],
    ['2024-02-29T10:30:15.25', day + 10.5 * 3600e3 + 15250],
    ['2024-02-29T10:30:15.123456Z', day + 10.5 * 3600e3 + 15123],
    ['2024-02-29T10:30:00Z', day + 10.5 * 3600e3],
    ['2024-02-29T10:30:00+02:00', day + 8.5 * 3600e3],
    ['2024-02-29T10:30:00-0530', day + 16 * 3600e3],
    ['2024-02-29T01:00:00+05', day - 4 * 3600e3],
    ['1969-12-31T23:59:59Z', -1000],
    ['0001-01-01', Date.parse('0001-01-01T00:00:00Z')],
    [1700000000000, 1700000000000],
    ['1700000000', 1700000000],
    [-0, 0],
    ['20240229', day],
    [20240229, day],
    ['20240229T1030', day + 10.5 * 3600e3],
    ['20240229T103015.25Z', day + 10.5 * 3600e3 + 15250],
    ['20240229T103000+0200', day + 8.5 * 3600e3],
    ['2024', 2024], // a plain number orders rows; it is not a year here (parseIso8601 gives null)
    [20240229.5, 20240229.5],
    ['20230229', 20230229], // not a date: a plain number
    ['20240229 1030', null],
    ['20240229Z', day], // as 2024-02-29Z is: Z on a date changes nothing
    ['2023-02-29', null],
    ['2024-13-01', null],
    ['2024-04-31', null],
    ['2024-01-01T24:00', null],
    ['2024-01-01T10:60', null],
    ['2024-01-01+02:00', null],
    ['2024/01/01', null],
    ['01/02/2024', null],
    ['yesterday', null],
    ['', null],
    [null, null],
    [true, null],
    [Infinity, null],
  ];
  it.each(cases)('%j is %j', (cell, expected) => {
    expect(parseTime(cell)).toBe(expected);
  });

  it.each<[unknown, number | null]>([
    ['2024-02-29', day],
    ['20240229', day],
    [20240229, day],
    ['20240229T103000Z', day + 10.5 * 3600e3],
    ['2024', null],
    [2024, null],
    ['1700000000000', null],
    [1700000000000, null],
    [20240229.5, null],
    [-20240229, null],
    ['20231301', null],
  ])('parseIso8601(%j) is %j: ISO 8601 only, extended or basic', (cell, expected) => {
    expect(parseIso8601(cell)).toBe(expected);
  });

  it('agrees with Date.parse on zoned datetimes', () => {
    for (const s of ['2021-06-30T23:15:00.5+09:30', '1999-12-31T23:59:59Z', '2030-01-01T00:00:00-08:00']) {
      expect(parseTime(s)).toBe(Date.parse(s));
    }
  });
});

/** Rebuilds a table with its rows in the given order. */
function permute(t: RawTable, order: number[]): RawTable {
  return { columns: t.columns, rowCount: t.rowCount, data: t.data.map((col) => order.map((r) => col[r])) };
}

/** The winning rows as objects, so results from different orders compare by content. */
function winners(t: RawTable, latest: Map<string, number>): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const id of [...latest.keys()].sort()) out[id] = t.data.map((col) => col[latest.get(id) as number]);
  return out;
}

describe('latestRowPerEntity', () => {
  const table = rowsToTable([
    { id: 'a', at: '2024-01-02', v: 1 },
    { id: 'a', at: '2024-01-03T00:00:00+02:00', v: 2 }, // 2024-01-02T22:00Z: latest for a
    { id: 'a', at: '2024-01-01', v: 3 },
    { id: 'b', at: '2024-05-01', v: 'x' }, // tie with the next: greatest cells win
    { id: 'b', at: '2024-05-01T00:00:00Z', v: 'y' },
    { id: 'b', at: '', v: 'z' }, // no time: earliest
    { id: 7, at: 5, v: 0 },
    { id: '7', at: 4, v: 9 },
    { id: '', at: 9, v: 9 }, // no id: skipped
    { id: 'c', at: null, v: 'p' },
    { id: 'c', at: 'bad', v: 'q' }, // both without time: greatest cells
  ]);

  it('takes the latest time per id, ids by their text', () => {
    const latest = latestRowPerEntity(table, 'id', 'at');
    expect(Object.fromEntries(latest)).toEqual({ a: 1, b: 4, '7': 6, c: 10 });
  });

  it('gives the same rows for every row order', () => {
    const expected = winners(table, latestRowPerEntity(table, 'id', 'at'));
    const n = table.rowCount;
    const orders = [Array.from({ length: n }, (_, i) => n - 1 - i), [5, 3, 10, 0, 8, 2, 6, 9, 1, 7, 4], [4, 1, 9, 7, 2, 0, 10, 6, 3, 5, 8]];
    for (const order of orders) {
      const t = permute(table, order);
      expect(winners(t, latestRowPerEntity(t, 'id', 'at'))).toEqual(expected);
    }
  });

  it('indexes only the ids asked for, each with the row the whole index gives it', () => {
    for (const time of ['at', undefined]) {
      const whole = latestRowPerEntity(table, 'id', time);
      const some = latestRowPerEntity(table, 'id', time, new Set(['b', '7', 'nobody']));
      expect(Object.fromEntries(some)).toEqual({ b: whole.get('b'), '7': whole.get('7') });
    }
  });

  it('without a time column takes the last row in file order', () => {
    expect(Object.fromEntries(latestRowPerEntity(table, 'id'))).toEqual({ a: 2, b: 5, '7': 7, c: 10 });
  });

  it('refuses an unknown column, naming the argument', () => {
    expect(() => latestRowPerEntity(table, 'nope')).toThrow(expect.objectContaining({ code: 'invalid_request', field: 'entity_column' }));
    expect(() => latestRowPerEntity(table, 'id', 'when')).toThrow(expect.objectContaining({ field: 'time_column' }));
  });
});

describe('a time column is read as a whole (timeReaderFor)', () => {
  it('a column of basic-form dates reads as dates', async () => {
    const { timeReaderFor } = await import('../../host/table/select.ts');
    const r = timeReaderFor(['20240315', 20240316, '', null, '2024-03-17']);
    expect(r.allIso).toBe(true);
    expect(r.read('20240315')).toBe(Date.UTC(2024, 2, 15));
    expect(r.read(20240316)).toBe(Date.UTC(2024, 2, 16));
  });

  it('in a column of plain numbers a value that happens to spell a day stays a number', async () => {
    const { timeReaderFor } = await import('../../host/table/select.ts');
    // epoch minutes around now: 28120115 spells 2812-01-15, 28120135 spells no day
    const r = timeReaderFor([28120115, 28120135, '28120140']);
    expect(r.allIso).toBe(false);
    expect(r.read(28120115)).toBe(28120115);
    expect(r.read('28120140')).toBe(28120140);
    expect(r.read('2024-03-15')).toBe(Date.UTC(2024, 2, 15)); // an extended ISO time is still a time
  });

  it('the latest row per id follows the numbers, not a day some of them spell', () => {
    const t = rowsToTable([
      { id: 'a', seq: 28120115, v: 'first' },
      { id: 'a', seq: 28120135, v: 'second' },
    ]);
    // as a date 28120115 would be the year 2812 and win; as a number 28120135 is later
    expect(latestRowPerEntity(t, 'id', 'seq').get('a')).toBe(1);
  });
});
