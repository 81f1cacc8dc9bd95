// docs/reference/ask.md#shapes `traces`: one row per agent run, plus prior outcome rates of its agent, task and tool from earlier runs only.
import { ServiceError } from '../../errors.ts';
import type { Shape } from '../../schemas/shape.ts';
import type { Cell, RawTable } from '../types.ts';
import { cellText } from '../typing.ts';
import { NameBook } from './names.ts';
import { emptyShape, pickOutcome, yesValues } from './outcome.ts';
import { buildTable, formatTime, readLog, shapeColumn } from './read.ts';
import type { ShapeOptions, ShapedRecord } from './types.ts';

export type TracesShape = Extract<Shape, { kind: 'traces' }>;

/** Runs remembered per key for the `_recent_rate` features. */
export const RECENT_RUNS = 20;

interface Role {
  name: string;
  key: (r: number) => string | null;
}

/** One key's earlier runs with an outcome; `recent` groups them by time, oldest first. */
interface History {
  runs: number;
  yes: number;
  recent: { t: number; runs: number; yes: number }[];
  recentRuns: number;
  recentYes: number;
}

/**
 * Runs are taken in time order. For each run and each role (agent, task, tool, and agent_task when
 * both are given), the features read only the runs at an earlier time that have an outcome:
 * `{role}_prior_runs`, `{role}_prior_rate` (share of them whose outcome is yes) and
 * `{role}_recent_rate` (the same over the latest 20 of them, runs that share a time taken or left
 * together, so the window may hold more); rates are blank without such a run. A run never sees its
 * own outcome, a later one, or one at the same time: runs at one time are read together before any
 * of their outcomes is learned, so nothing depends on how runs are named (docs/reference/ask.md#shapes traces: prior
 * rates from earlier runs only). Every input column is kept (the time written as ISO); the outcome
 * column is the one the question names (else the only yes/no column), read with its positive values.
 */
export function shapeTraces(table: RawTable, shape: TracesShape, opts: ShapeOptions): ShapedRecord {
  const roleCols: [string, string | undefined, string][] = [
    ['agent', shape.agent_column, 'shape.agent_column'],
    ['task', shape.task_column, 'shape.task_column'],
    ['tool', shape.tool_column, 'shape.tool_column'],
  ];
  const idx: Record<string, number> = {};
  for (const [role, col, field] of roleCols) if (col !== undefined) idx[role] = shapeColumn(table, col, field);
  const log = readLog(table, opts.entityColumn, opts.timeColumn, 'order');
  const structural = new Set([opts.entityColumn, opts.timeColumn, ...roleCols.flatMap(([, c]) => (c ? [c] : []))]);
  const outcomeColumn = pickOutcome(
    table,
    table.columns.filter((c) => !structural.has(c)),
    opts.question?.outcomeColumn,
  );
  const oc = table.columns.indexOf(outcomeColumn);
  if (oc < 0) {
    if (outcomeColumn === '') {
      throw new ServiceError(
        'shape_invalid',
        'Traces need the outcome column the prior rates are read from: name it in the question (the record has no single yes/no column).',
        {
          field: 'shape',
        },
      );
    }
    // Only a question names a column pickOutcome did not find among the record's.
    const field = `${opts.question?.field}.outcome_column`;
    throw new ServiceError('invalid_request', `${field}: ${JSON.stringify(outcomeColumn)} is not a column of the record.`, { field });
  }
  const y = yesValues(table.data[oc], opts.question?.positiveValues);
  if (!y) {
    // A picked column is yes/no by definition: only a named one lands here (docs/reference/errors.md positive_values_required).
    throw new ServiceError(
      'positive_values_required',
      `${outcomeColumn} does not have two recognisable yes/no values; say which values mean yes.`,
      {
        field: `${opts.question?.field}.positive_values`,
      },
    );
  }

  const text = (c: number) => (r: number) => cellText(table.data[c][r]);
  const roles: Role[] = Object.entries(idx).map(([name, c]) => ({ name, key: text(c) }));
  if ('agent' in idx && 'task' in idx) {
    const a = text(idx.agent);
    const t = text(idx.task);
    roles.push({ name: 'agent_task', key: (r) => (a(r) === null || t(r) === null ? null : JSON.stringify([a(r), t(r)])) });
  }

  const runs = log.cases.flatMap((c) => c.rows);
  runs.sort((a, b) => log.times[a] - log.times[b]);
  const book = new NameBook(table.columns);
  const names: string[] = [];
  for (const role of roles)
    names.push(book.add(`${role.name}_prior_runs`), book.add(`${role.name}_prior_rate`), book.add(`${role.name}_recent_rate`));
  const feats = new Map<number, Cell[]>();
  const seen = roles.map(() => new Map<string, History>());
  for (let i = 0; i < runs.length;) {
    let j = i;
    while (j < runs.length && log.times[runs[j]] === log.times[runs[i]]) j++;
    const group = runs.slice(i, j);
    for (const r of group) {
      const row: Cell[] = [];
      roles.forEach((role, k) => {
        const key = role.key(r);
        const h = key === null ? undefined : seen[k].get(key);
        row.push(h?.runs ?? 0, h && h.runs > 0 ? h.yes / h.runs : null, h && h.recentRuns > 0 ? h.recentYes / h.recentRuns : null);
      });
      feats.set(r, row);
    }
    for (const r of group) {
      const outcome = y[r];
      if (Number.isNaN(outcome)) continue;
      roles.forEach((role, k) => {
        const key = role.key(r);
        if (key === null) return;
        let h = seen[k].get(key);
        if (!h) seen[k].set(key, (h = { runs: 0, yes: 0, recent: [], recentRuns: 0, recentYes: 0 }));
        learn(h, log.times[r], outcome);
      });
    }
    i = j;
  }

  const order = log.cases.flatMap((c) => c.rows);
  if (order.length === 0) emptyShape('traces', 'no run has both a run id and a time.');
  const kept = table.columns.filter((c) => c !== opts.entityColumn && c !== opts.timeColumn);
  const keptIdx = kept.map((c) => table.columns.indexOf(c));
  const idOf = new Map<number, string>();
  log.cases.forEach((c) => c.rows.forEach((r) => idOf.set(r, c.id)));
  const out = buildTable(
    [opts.entityColumn, opts.timeColumn, ...kept, ...names],
    [
      order.map((r) => idOf.get(r) as string),
      order.map((r) => formatTime(log.times[r], log.numericTimes)),
      ...keptIdx.map((c) => order.map((r) => table.data[c][r])),
      ...names.map((_, j) => order.map((r) => (feats.get(r) as Cell[])[j])),
    ],
  );
  let labeled = 0;
  let positives = 0;
  for (const r of order) if (!Number.isNaN(y[r])) (labeled++, (positives += y[r]));
  return {
    table: out,
    outcomeColumn,
    entityColumn: opts.entityColumn,
    timeColumn: opts.timeColumn,
    asOf: String(formatTime(log.latest, log.numericTimes)),
    counts: { ...log.counts, cases: log.cases.length, rows: order.length, labeled, positives },
    features: names,
    kept,
  };
}

/** Adds one outcome at time t; drops the oldest time's runs while the newer ones still number RECENT_RUNS. */
function learn(h: History, t: number, outcome: number): void {
  h.runs++;
  h.yes += outcome;
  const last = h.recent[h.recent.length - 1];
  if (last && last.t === t) (last.runs++, (last.yes += outcome));
  else h.recent.push({ t, runs: 1, yes: outcome });
  h.recentRuns++;
  h.recentYes += outcome;
  while (h.recentRuns - h.recent[0].runs >= RECENT_RUNS) {
    const old = h.recent.shift() as { runs: number; yes: number };
    h.recentRuns -= old.runs;
    h.recentYes -= old.yes;
  }
}
