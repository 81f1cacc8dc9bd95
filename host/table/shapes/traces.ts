// Spec 2.5 `traces`: one row per agent run, plus prior outcome rates of its agent, task and tool from earlier runs only.
import { ServiceError } from '../../http/problem.ts';
import type { Shape } from '../../schemas/shape.ts';
import type { Cell, RawTable } from '../types.ts';
import { cellText, compareCodePoints } from '../typing.ts';
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

interface History {
  runs: number;
  yes: number;
  recent: number[];
}

/**
 * Runs are taken in time order; runs at the same time in run id order, then by their cells as text.
 * For each run and each role (agent, task, tool, and agent_task when both are given), the features
 * read only the runs before it in that order that have an outcome: `{role}_prior_runs`,
 * `{role}_prior_rate` (share of them whose outcome is yes) and `{role}_recent_rate` (the same over
 * the last 20 of them); rates are blank without such a run. A run never sees its own outcome or a
 * later one. Every input column is kept (the time written as ISO); the outcome column is the one the
 * question names (else the only yes/no column), read with its positive values.
 */
export function shapeTraces(table: RawTable, shape: TracesShape, opts: ShapeOptions): ShapedRecord {
  const roleCols: [string, string | undefined, string][] = [
    ['agent', shape.agent_column, 'shape.agent_column'],
    ['task', shape.task_column, 'shape.task_column'],
    ['tool', shape.tool_column, 'shape.tool_column'],
  ];
  const idx: Record<string, number> = {};
  for (const [role, col, field] of roleCols) if (col !== undefined) idx[role] = shapeColumn(table, col, field);
  const log = readLog(table, opts.entityColumn, opts.timeColumn);
  const structural = new Set([opts.entityColumn, opts.timeColumn, ...roleCols.flatMap(([, c]) => (c ? [c] : []))]);
  const outcomeColumn = pickOutcome(table, table.columns.filter((c) => !structural.has(c)), opts.outcomeColumn);
  const oc = table.columns.indexOf(outcomeColumn);
  if (oc < 0) {
    throw new ServiceError('shape_invalid', outcomeColumn === ''
      ? 'Traces need the outcome column the prior rates are read from: name it in the question (the record has no single yes/no column).'
      : `The record has no outcome column ${JSON.stringify(outcomeColumn)}.`, { field: 'shape' });
  }
  const y = yesValues(table.data[oc], opts.positiveValues);
  if (!y) {
    throw new ServiceError('positive_values_required', `${outcomeColumn} does not have two recognisable yes/no values; say which values mean yes.`, {
      field: 'positive_values',
    });
  }

  const text = (c: number) => (r: number) => cellText(table.data[c][r]);
  const roles: Role[] = Object.entries(idx).map(([name, c]) => ({ name, key: text(c) }));
  if ('agent' in idx && 'task' in idx) {
    const a = text(idx.agent);
    const t = text(idx.task);
    roles.push({ name: 'agent_task', key: (r) => (a(r) === null || t(r) === null ? null : JSON.stringify([a(r), t(r)])) });
  }

  // Global run order: time, then run id by code point, then the canonical order within the id.
  const runs = log.cases.flatMap((c) => c.rows.map((r, i) => ({ r, id: c.id, i })));
  runs.sort((a, b) => log.times[a.r] - log.times[b.r] || compareCodePoints(a.id, b.id) || a.i - b.i);
  const book = new NameBook(table.columns);
  const names: string[] = [];
  for (const role of roles) names.push(book.add(`${role.name}_prior_runs`), book.add(`${role.name}_prior_rate`), book.add(`${role.name}_recent_rate`));
  const feats = new Map<number, Cell[]>();
  const seen = roles.map(() => new Map<string, History>());
  for (const run of runs) {
    const row: Cell[] = [];
    const keys = roles.map((role) => role.key(run.r));
    roles.forEach((_, j) => {
      const h = keys[j] === null ? undefined : seen[j].get(keys[j] as string);
      row.push(h?.runs ?? 0, h && h.runs > 0 ? h.yes / h.runs : null, h && h.recent.length > 0 ? mean(h.recent) : null);
    });
    feats.set(run.r, row);
    const outcome = y[run.r];
    if (Number.isNaN(outcome)) continue;
    roles.forEach((_, j) => {
      if (keys[j] === null) return;
      let h = seen[j].get(keys[j] as string);
      if (!h) seen[j].set(keys[j] as string, (h = { runs: 0, yes: 0, recent: [] }));
      h.runs++;
      h.yes += outcome;
      h.recent.push(outcome);
      if (h.recent.length > RECENT_RUNS) h.recent.shift();
    });
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

function mean(xs: number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}
