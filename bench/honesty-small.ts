// Permuted-label honesty run on chosen tables only (bench/honesty.ts seeds, catalogue indices as bench/run.ts),
// for engine changes that touch a few tables. Usage: npx tsx bench/honesty-small.ts [tables] [permutations]
//
// `records` mode: small records of 20-49 positives (the cross-fitted minimum, docs/decisions/0082-small-records.md),
// built by subsampling real tables at their own prevalence, narrow (Telco, WDBC) and wide (sonar, ad_data), and
// with 1,600 rows of the other class (rare: Telco, spam; SMALL_KINDS picks among the three). It
// measures how often permuted labels are answered (the 1% bar, `permutations` per kind of table) and how often the
// real labels are (power), per band of positives. Usage:
//   npx tsx bench/honesty-small.ts records [permutations per kind] [real-label subsamples per table and band]
// SMALL_REPEATS=R (odd, default 1) answers a record only when most of R fits with other fold assignments (the
// entity ids salted, so every fold, bag and draw changes) answer it: repeated cross-fitting, measured from outside.
import { performance } from 'node:perf_hooks';
import { FitPool } from '../host/engine/index.ts';
import { realTables } from './datasets.ts';
import { loadAdData, loadSonar } from './datasets-public.ts';
import { runHonesty, formatHonestyMarkdown } from './honesty.ts';
import { formatSmall, smallHonesty, smallPower, type SmallKind } from './small-records.ts';

const log = (l: string) => process.stderr.write(`${l}\n`);
if (process.argv[2] === 'records') {
  const perKind = Number(process.argv[3] ?? 200);
  const perBand = Number(process.argv[4] ?? 20);
  const repeats = Number(process.env.SMALL_REPEATS ?? 1);
  const byName = new Map(realTables().map((t) => [t.name, t]));
  const load = (names: string[]) => Promise.all(names.map((n) => byName.get(n)!.load()));
  const all: Record<string, () => Promise<SmallKind>> = {
    narrow: async () => ({ tables: await load(['telco_churn', 'wdbc']) }),
    wide: async () => ({ tables: [loadSonar(), loadAdData()] }),
    // records large enough for a single split (1,620-1,649 labeled rows) whose rarer class is this small
    rare: async () => ({ tables: await load(['telco_churn', 'spam']), commonRows: 1600 }),
  };
  const kinds: Record<string, SmallKind> = {};
  for (const k of (process.env.SMALL_KINDS ?? 'narrow,wide,rare').split(',')) kinds[k] = await all[k]();
  const pool = new FitPool(Number(process.env.SMALL_WORKERS ?? 2));
  const t0 = performance.now();
  const permuted = perKind > 0 ? await smallHonesty(kinds, perKind, repeats, pool, log) : [];
  const real = perBand > 0 ? await smallPower(kinds, perBand, repeats, pool, log) : [];
  await pool.close();
  process.stdout.write(`${formatSmall(permuted, real, repeats, (performance.now() - t0) / 1000)}\n`);
} else {
  const wanted = (process.argv[2] ?? 'wdbc,penguins,cars,cps_wages_1985,titanic').split(',');
  const count = Number(process.argv[3] ?? 300);
  const catalogue = realTables();
  const picked = catalogue.filter((t) => wanted.includes(t.name));
  const datasets = await Promise.all(picked.map((t) => t.load()));
  const rows = await runHonesty(datasets, count, undefined, log, (ds) => catalogue.findIndex((t) => t.name === ds.name));
  process.stdout.write(`${formatHonestyMarkdown(rows)}\n`);
}
