// Shared helpers for the shape tests: tables from row objects, columns by name, and a real-engine fit of a shaped record.
import { fitTable, type FitResult } from '../../../host/engine/index.ts';
import { ServiceError } from '../../../host/errors.ts';
import type { Shape } from '../../../host/schemas/shape.ts';
import { rowsToTable } from '../../../host/table/rows.ts';
import { applyShape, type QuestionOutcome, type ShapeOptions, type ShapedRecord } from '../../../host/table/shapes/index.ts';
import { yesValues } from '../../../host/table/shapes/outcome.ts';
import type { Cell, RawTable } from '../../../host/table/types.ts';
import { Prng } from '../../../samples/prng.ts';

export const DAY = 86_400_000;

export function table(rows: Record<string, Cell>[]): RawTable {
  return rowsToTable(rows);
}

/** The outcome of question `q` (field `questions.q`), as an ask passes it to a shape read. */
export function q(outcomeColumn: string, positiveValues?: string[]): QuestionOutcome {
  return { field: 'questions.q', outcomeColumn, ...(positiveValues ? { positiveValues } : {}) };
}

/** A column of a table by name (throws when absent, so a typo fails loudly). */
export function col(t: RawTable, name: string): Cell[] {
  const c = t.columns.indexOf(name);
  if (c < 0) throw new Error(`no column ${name} in ${t.columns.join(',')}`);
  return t.data[c];
}

/** Row r of a table as an object. */
export function row(t: RawTable, r: number): Record<string, Cell> {
  return Object.fromEntries(t.columns.map((name, c) => [name, t.data[c][r]]));
}

/** The row whose entity (and, when given, time) matches. */
export function rowOf(rec: ShapedRecord, id: string, time?: string): Record<string, Cell> {
  const ids = col(rec.table, rec.entityColumn);
  const times = rec.timeColumn ? col(rec.table, rec.timeColumn) : null;
  for (let r = 0; r < rec.table.rowCount; r++) {
    if (ids[r] === id && (time === undefined || (times && times[r] === time))) return row(rec.table, r);
  }
  throw new Error(`no row for ${id} ${time ?? ''}`);
}

export function shapeOf(t: RawTable, shape: Shape | Record<string, unknown>, opts: ShapeOptions): ShapedRecord {
  return applyShape(t, shape as Shape, opts);
}

/** The error applyShape throws (fails the test when it does not throw a ServiceError). */
export function errorOf(fn: () => unknown): ServiceError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ServiceError) return e;
    throw e;
  }
  throw new Error('expected a ServiceError');
}

/** Fits a shaped record with the real engine: outcome from its outcome column's yes/no meaning. */
export async function fitShaped(rec: ShapedRecord): Promise<FitResult> {
  const y = yesValues(col(rec.table, rec.outcomeColumn));
  if (!y) throw new Error(`${rec.outcomeColumn} is not yes/no`);
  return fitTable(rec.table, { entityColumn: rec.entityColumn, outcomeColumn: rec.outcomeColumn, outcome: y, timeColumn: rec.timeColumn });
}

/** A seeded shuffle of a table's rows. */
export function shuffled(t: RawTable, seed: number): RawTable {
  const order = new Prng(seed).shuffle(Array.from({ length: t.rowCount }, (_, i) => i));
  return { columns: t.columns.slice(), data: t.data.map((c) => order.map((r) => c[r])), rowCount: t.rowCount };
}

/** The same table with one column's cells mapped. */
export function mapColumn(t: RawTable, name: string, f: (cell: Cell, r: number) => Cell): RawTable {
  const c = t.columns.indexOf(name);
  return { columns: t.columns.slice(), data: t.data.map((d, j) => (j === c ? d.map(f) : d.slice())), rowCount: t.rowCount };
}

/** ISO date (YYYY-MM-DD) of a UTC day offset from 2024-01-01. */
export function day(n: number): string {
  return new Date(Date.UTC(2024, 0, 1) + n * DAY).toISOString().slice(0, 10);
}
