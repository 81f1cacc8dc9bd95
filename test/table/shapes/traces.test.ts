// docs/reference/ask.md#shapes traces: per-run rows plus prior outcome rates from earlier runs only, recomputed by hand.
import { describe, expect, it } from 'vitest';
import { col, q, rowOf, shapeOf, table } from './helpers.ts';

const at = (minute: number) => new Date(Date.UTC(2024, 5, 1) + minute * 60_000).toISOString();
const ROWS = [
  { run: 'r1', ts: at(0), agent: 'A', task: 't1', tool: 'x', failed: 'yes' },
  { run: 'r2', ts: at(60), agent: 'A', task: 't2', tool: 'y', failed: 'no' },
  { run: 'r0', ts: at(60), agent: 'A', task: 't1', tool: 'x', failed: 'yes' },
  { run: 'r3', ts: at(120), agent: 'B', task: 't1', tool: 'x', failed: null },
  { run: 'r4', ts: at(180), agent: 'A', task: 't1', tool: 'x', failed: 'no' },
];
const SHAPE = { kind: 'traces', agent_column: 'agent', task_column: 'task', tool_column: 'tool' } as const;
const OPTS = { entityColumn: 'run', timeColumn: 'ts', question: q('failed') };

describe('traces (docs/reference/ask.md#shapes)', () => {
  const rec = shapeOf(table(ROWS), SHAPE, OPTS);

  it('keeps every run column and adds prior runs, prior rate and recent rate per role and agent_task', () => {
    expect(rec.table.columns).toEqual([
      'run',
      'ts',
      'agent',
      'task',
      'tool',
      'failed',
      'agent_prior_runs',
      'agent_prior_rate',
      'agent_recent_rate',
      'task_prior_runs',
      'task_prior_rate',
      'task_recent_rate',
      'tool_prior_runs',
      'tool_prior_rate',
      'tool_recent_rate',
      'agent_task_prior_runs',
      'agent_task_prior_rate',
      'agent_task_recent_rate',
    ]);
    expect(rec.outcomeColumn).toBe('failed');
    expect(rec.timeColumn).toBe('ts');
    expect(col(rec.table, 'run')).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
  });

  it('gives the first run blank rates and never counts a run in its own rates', () => {
    expect(rowOf(rec, 'r1')).toMatchObject({ agent_prior_runs: 0, agent_prior_rate: null, tool_prior_runs: 0, tool_recent_rate: null });
  });

  it('reads runs at the same time together: r0 and r2 see r1, never each other', () => {
    expect(rowOf(rec, 'r0')).toMatchObject({ agent_prior_runs: 1, agent_prior_rate: 1, agent_task_prior_runs: 1, tool_prior_runs: 1 });
    expect(rowOf(rec, 'r2')).toMatchObject({
      agent_prior_runs: 1,
      agent_prior_rate: 1,
      task_prior_runs: 0,
      task_prior_rate: null,
      tool_prior_runs: 0,
    });
  });

  it("gives runs on one date none of each other's outcomes, however they are named", () => {
    const day = (ids: string[]) =>
      shapeOf(
        table(ids.map((run, i) => ({ run, ts: '2024-06-01', tool: 'x', failed: [1, 1, 0][i] }))),
        { kind: 'traces', tool_column: 'tool' },
        OPTS,
      );
    const a = day(['r1', 'r2', 'r3']);
    expect(col(a.table, 'tool_prior_runs')).toEqual([0, 0, 0]);
    expect(col(a.table, 'tool_prior_rate')).toEqual([null, null, null]);
    // The same runs named the other way round: each run (by its outcome) reads the same.
    const b = day(['r3', 'r2', 'r1']);
    const byOutcome = (rec: typeof a) =>
      col(rec.table, 'failed')
        .map((y, i) => [y, col(rec.table, 'tool_prior_runs')[i], col(rec.table, 'tool_recent_rate')[i]])
        .sort();
    expect(byOutcome(b)).toEqual(byOutcome(a));
  });

  it('lets a later run see every run of an earlier time, whatever their names', () => {
    const rows = ['z', 'a', 'm'].map((run, i) => ({ run, ts: at(0), tool: 'x', failed: i === 0 ? 1 : 0 }));
    const rec2 = shapeOf(table([...rows, { run: 'b', ts: at(1), tool: 'x', failed: 0 }]), { kind: 'traces', tool_column: 'tool' }, OPTS);
    expect(rowOf(rec2, 'b')).toMatchObject({ tool_prior_runs: 3, tool_prior_rate: 1 / 3, tool_recent_rate: 1 / 3 });
  });

  it('skips runs without an outcome in later rates', () => {
    expect(rowOf(rec, 'r3')).toMatchObject({ agent_prior_runs: 0, task_prior_runs: 2, task_prior_rate: 1, tool_prior_runs: 2 });
    expect(rowOf(rec, 'r4')).toMatchObject({
      agent_prior_runs: 3,
      agent_prior_rate: 2 / 3,
      task_prior_runs: 2,
      tool_prior_runs: 2,
      agent_task_prior_runs: 2,
      agent_task_prior_rate: 1,
    });
    expect(rec.counts).toMatchObject({ rows: 5, cases: 5, labeled: 4, positives: 2 });
  });

  it('reads the recent rate over the last 20 earlier runs of a key', () => {
    const rows = Array.from({ length: 26 }, (_, i) => ({
      run: `r${String(i).padStart(2, '0')}`,
      ts: at(i),
      tool: 'x',
      failed: i < 5 ? 1 : 0,
    }));
    const r = shapeOf(table(rows), { kind: 'traces', tool_column: 'tool' }, { entityColumn: 'run', timeColumn: 'ts' });
    expect(r.outcomeColumn).toBe('failed'); // the only yes/no column
    expect(rowOf(r, 'r25')).toMatchObject({ tool_prior_runs: 25, tool_prior_rate: 0.2, tool_recent_rate: 0 });
    expect(rowOf(r, 'r20')).toMatchObject({ tool_prior_runs: 20, tool_prior_rate: 0.25, tool_recent_rate: 0.25 });
  });

  it('takes runs that share a time whole into the recent window, so its edge does not depend on names', () => {
    // Oldest first: 2 runs (no) at minute 0, 3 runs (yes) together at minute 1, then 19 runs (no) one a minute.
    const rows = [
      ...[0, 1].map((i) => ({ run: `a${i}`, ts: at(0), tool: 'x', failed: 0 })),
      ...[0, 1, 2].map((i) => ({ run: `b${i}`, ts: at(1), tool: 'x', failed: 1 })),
      ...Array.from({ length: 19 }, (_, i) => ({ run: `c${String(i).padStart(2, '0')}`, ts: at(2 + i), tool: 'x', failed: 0 })),
      { run: 'last', ts: at(30), tool: 'x', failed: 0 },
    ];
    const r = shapeOf(table(rows), { kind: 'traces', tool_column: 'tool' }, OPTS);
    // The latest 20 end inside minute 1's three runs: all three are in, the two at minute 0 are not.
    expect(rowOf(r, 'last')).toMatchObject({ tool_prior_runs: 24, tool_prior_rate: 3 / 24, tool_recent_rate: 3 / 22 });
  });

  it('reads yes from positive_values when the outcome is not a yes/no pair', () => {
    const rows = ROWS.map((r) => ({ ...r, status: r.failed === 'yes' ? 'error' : r.failed === 'no' ? 'ok' : 'timeout' }));
    const r = shapeOf(table(rows), SHAPE, { ...OPTS, question: q('status', ['error', 'timeout']) });
    expect(rowOf(r, 'r4')).toMatchObject({ agent_prior_runs: 3, agent_prior_rate: 2 / 3, task_prior_runs: 3, task_prior_rate: 1 });
  });
});
