// docs/reference/map.md#snapshots snapshots grid, checked by hand on a tiny log: reading times back from as_of, labels blank
// until their horizon closes, terminal cases, outcome times, features at each reading, and row order.
import { describe, expect, it } from 'vitest';
import { applyShape } from '../../../host/table/shapes/index.ts';
import type { Shape } from '../../../host/schemas/index.ts';
import type { RawTable } from '../../../host/table/types.ts';

function table(rows: string[][], columns: string[]): RawTable {
  return { columns, data: columns.map((_, c) => rows.map((r) => r[c])), rowCount: rows.length };
}

// A is active every week; B's only event is on 01-05 (it lapses); B's outcome time is 01-18.
const ROWS = [
  ['A', '2024-01-01', 'visit', ''],
  ['A', '2024-01-06', 'visit', ''],
  ['A', '2024-01-12', 'refund', ''],
  ['A', '2024-01-20', 'visit', ''],
  ['A', '2024-01-27', 'visit', ''],
  ['B', '2024-01-05', 'visit', '2024-01-18'],
];
const LOG = table(ROWS, ['id', 'at', 'event', 'churned_at']);
const grid = (over: Record<string, unknown>, log = LOG) =>
  applyShape(
    log,
    {
      kind: 'snapshots',
      snapshot_every: '1w',
      horizon: { value: 7, unit: 'days' },
      as_of: '2024-01-29',
      event_column: 'event',
      ...over,
    } as Shape,
    { entityColumn: 'id', timeColumn: 'at' },
  );
const col = (t: RawTable, name: string) => t.data[t.columns.indexOf(name)];
const day = (iso: string) => `${iso}T00:00:00.000Z`;

describe('snapshots grid', () => {
  it('reads each case weekly back from as_of, labels closed horizons, and ends a lapsed case at its first yes', () => {
    const g = grid({ label: { lapsed: true } });
    expect(g.outcomeColumn).toBe('lapsed_7d');
    expect(col(g.table, 'id')).toEqual(['A', 'A', 'A', 'A', 'A', 'B']);
    expect(col(g.table, 'at')).toEqual(['2024-01-01', '2024-01-08', '2024-01-15', '2024-01-22', '2024-01-29', '2024-01-08'].map(day));
    // A always has an event in the next 7 days; the reading at as_of is open; B lapses at its first reading
    expect(col(g.table, 'lapsed_7d')).toEqual([0, 0, 0, 0, null, 1]);
    expect(g.counts).toMatchObject({ rows: 6, cases: 2, labeled: 5, positives: 1, open: 1 });
    // features at A's 01-15 reading: events in (12-16, 01-15], days since its last (01-12) and first (01-01)
    expect(col(g.table, 'event_count_30d')[2]).toBe(3);
    expect(col(g.table, 'refund_count_30d')[2]).toBe(1);
    expect(col(g.table, 'days_since_last_event')[2]).toBe(3);
    expect(col(g.table, 'days_since_first_event')[2]).toBe(14);
    // the rows its cases are scored from: each case's latest reading
    expect(col(g.current!, 'id')).toEqual(['A', 'B']);
    expect(col(g.current!, 'at')).toEqual([day('2024-01-29'), day('2024-01-08')]);
  });

  it('keeps a case after a yes when terminal is false', () => {
    const g = grid({ label: { lapsed: true }, terminal: false });
    expect(col(g.table, 'lapsed_7d').slice(5)).toEqual([1, 1, 1, null]);
    expect(g.counts).toMatchObject({ rows: 9, open: 2 });
  });

  it('labels {name, when} by a matching event in the horizon (not terminal by default)', () => {
    const g = grid({ label: { name: 'refund', when: { column: 'event', op: '==', value: 'refund' } } });
    expect(col(g.table, 'refund_next_7d').slice(0, 5)).toEqual([0, 1, 0, 0, null]);
  });

  it('labels by an outcome time and drops readings at or after it', () => {
    const g = grid({ outcome_time_column: 'churned_at' });
    expect(g.outcomeColumn).toBe('churned_at_next_7d');
    expect(col(g.table, 'id').filter((x) => x === 'B')).toHaveLength(2);
    expect(col(g.table, 'churned_at_next_7d').slice(5)).toEqual([0, 1]);
    // terminal (the default here): B ends at its yes reading, before its outcome time is reached
    expect(g.counts.dropped_after_outcome).toBe(0);
    // not terminal: B's readings still stop at its outcome time (one case cut there)
    const open = grid({ outcome_time_column: 'churned_at', terminal: false });
    expect(col(open.table, 'churned_at_next_7d').slice(5)).toEqual([0, 1]);
    expect(open.counts.dropped_after_outcome).toBe(1);
  });

  it('reads the same rows in any order the same', () => {
    const shuffled = table([ROWS[3], ROWS[5], ROWS[0], ROWS[4], ROWS[2], ROWS[1]], LOG.columns);
    expect(grid({ label: { lapsed: true } }, shuffled).table).toEqual(grid({ label: { lapsed: true } }).table);
  });

  it('table form: reads the log at each snapshot moment, keeps the snapshot table columns, keys scored rows by snapshot id', () => {
    const snaps = table(
      [
        ['s2', 'A', '2024-01-15', 'no', ''],
        ['s1', 'A', '2024-01-07', 'yes', ''],
        ['s3', 'C', '2024-01-15', '', ''],
        ['s4', 'B', '2024-01-20', 'no', '2024-01-18'],
      ],
      ['sid', 'id', 'when', 'churn', 'gone'],
    );
    const g = applyShape(
      LOG,
      {
        kind: 'snapshots',
        snapshots: { rows: [] as never },
        snapshot_id_column: 'sid',
        snapshot_time_column: 'when',
        outcome_time_column: 'gone',
        event_column: 'event',
      } as unknown as Shape,
      { entityColumn: 'id', timeColumn: 'at', snapshots: snaps },
    );
    // canonical order by snapshot id; s4 is at or after its own outcome time: dropped
    expect(col(g.current!, 'id')).toEqual(['s1', 's2', 's3']);
    expect(col(g.table, 'id')).toEqual(['A', 'A', 'C']);
    expect(col(g.table, 'churn')).toEqual(['yes', 'no', '']);
    // A at 01-07: events 01-01 and 01-06; at 01-15: also the refund of 01-12
    expect(col(g.table, 'event_count_30d')).toEqual([2, 3, 0]);
    expect(col(g.table, 'refund_count_30d')).toEqual([0, 1, 0]);
    expect(col(g.table, 'days_since_last_event')).toEqual([1, 3, null]);
    expect(g.counts).toMatchObject({ snapshots: 4, rows: 3, cases: 2, dropped_after_outcome: 1 });
    expect(g.table.columns).not.toContain('sid');
    expect(g.table.columns).not.toContain('when');
    expect(g.table.columns).not.toContain('gone');
  });
});
