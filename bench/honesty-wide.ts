// Permuted-label honesty of small wide records (cross-fitted): the first rows of the indicator-heavy tables
// (docs/engine-history.md: "on wide tables too"). Usage: npx tsx bench/honesty-wide.ts [rows] [permutations] [tables]
import { realTables } from './datasets.ts';
import { runHonesty, formatHonestyMarkdown } from './honesty.ts';

const rows = Number(process.argv[2] ?? 600);
const count = Number(process.argv[3] ?? 100);
const wanted = (process.argv[4] ?? 'dna,telco_churn_onehot,credit_onehot').split(',');
const catalogue = realTables();
const picked = catalogue.filter((t) => wanted.includes(t.name));
const datasets = await Promise.all(
  picked.map(async (t) => {
    const ds = await t.load();
    return { ...ds, name: `${ds.name}_first${rows}`, rows: ds.rows.slice(0, rows) };
  }),
);
const out = await runHonesty(
  datasets,
  count,
  undefined,
  (l) => process.stderr.write(`${l}\n`),
  (ds) => catalogue.findIndex((t) => ds.name.startsWith(`${t.name}_first`)),
);
process.stdout.write(`${formatHonestyMarkdown(out)}\n`);
