// Permuted-label honesty run on chosen tables only (bench/honesty.ts seeds, catalogue indices as bench/run.ts),
// for engine changes that touch a few tables. Usage: npx tsx bench/honesty-small.ts [tables] [permutations]
import { realTables } from './datasets.ts';
import { runHonesty, formatHonestyMarkdown } from './honesty.ts';

const wanted = (process.argv[2] ?? 'wdbc,penguins,cars,cps_wages_1985,titanic').split(',');
const count = Number(process.argv[3] ?? 300);
const catalogue = realTables();
const picked = catalogue.filter((t) => wanted.includes(t.name));
const datasets = await Promise.all(picked.map((t) => t.load()));
const rows = await runHonesty(
  datasets,
  count,
  undefined,
  (l) => process.stderr.write(`${l}\n`),
  (ds) => catalogue.findIndex((t) => t.name === ds.name),
);
process.stdout.write(`${formatHonestyMarkdown(rows)}\n`);
