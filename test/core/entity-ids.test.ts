// The lower bound on an entity column's distinct ids (host/core/plan.ts), against the exact count.
import { describe, expect, it } from 'vitest';
import { distinctIdsAtLeast } from '../../host/core/plan.ts';
import { entityKey } from '../../host/table/select.ts';

/** The exact count the lower bound stands for: distinct entity keys and the rows that have one. */
function exact(cells: unknown[]): { rows: number; distinct: number } {
  const keys = cells.map((c) => entityKey(c as never)).filter((k) => k !== null);
  return { rows: keys.length, distinct: new Set(keys).size };
}

describe('distinctIdsAtLeast (the entity column check before a fit)', () => {
  it('counts rows with an id and their distinct ids, reading ids as entityKey does', () => {
    const cells = ['a', ' a', 'a ', 'b', null, '', '  ', 7, '7', 7.5, '\u00a0c', 'c', 'c', 'd\t', 'd', NaN];
    const got = distinctIdsAtLeast(cells);
    const want = exact(cells);
    expect(got.rows).toBe(want.rows);
    expect(got.atLeast).toBe(want.distinct);
  });

  it('matches the exact count on a large record of unique ids and on one of repeated groups', () => {
    const unique = Array.from({ length: 50_000 }, (_, i) => `c${i}`);
    expect(distinctIdsAtLeast(unique)).toEqual({ rows: 50_000, atLeast: 50_000 });
    const groups = Array.from({ length: 50_000 }, (_, i) => `g${i % 37}`);
    expect(distinctIdsAtLeast(groups)).toEqual({ rows: 50_000, atLeast: 37 });
    expect(distinctIdsAtLeast([])).toEqual({ rows: 0, atLeast: 0 });
  });
});
