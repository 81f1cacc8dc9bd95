// Engine-only quality on the small (cross-fitted) tables: held-out AUC, log loss and the test slope (logistic
// slope of the test outcomes on our test logits) on the bench splits (seed 1337, 3 splits) and on 10 other
// splits (seed 2027), so an engine change can be measured quickly and checked off the scored splits.
// Usage: npx tsx bench/engine-quality.ts [tables comma-separated] > out.json
import { performance } from 'node:perf_hooks';
import { fitTable, loadEngine, scoreCases } from '../host/engine/index.ts';
import { rowsToTable } from '../host/table/rows.ts';
import { realTables, outcomeVector, type Dataset } from './datasets.ts';
import { sklearnSplits, stratifiedSplits } from './splits.ts';
import { auc, logLoss } from './metrics.ts';

const wanted = (process.argv[2] ?? 'wdbc,penguins,cars,cps_wages_1985,titanic').split(',');
const sets = (process.env.SETS ?? '1337:3,2027:10').split(',').map((s) => s.split(':').map(Number));

/** Logistic slope of y on x (Newton, intercept and slope). */
function slope(y: Uint8Array, x: Float64Array): number {
  let a = 0;
  let b = 1;
  for (let it = 0; it < 50; it++) {
    let ga = 0, gb = 0, haa = 0, hab = 0, hbb = 0;
    for (let i = 0; i < y.length; i++) {
      const p = 1 / (1 + Math.exp(-(a + b * x[i])));
      const w = p * (1 - p);
      ga += p - y[i]; gb += (p - y[i]) * x[i];
      haa += w; hab += w * x[i]; hbb += w * x[i] * x[i];
    }
    const det = haa * hbb - hab * hab;
    if (!(det > 0)) break;
    a -= (hbb * ga - hab * gb) / det;
    b -= (haa * gb - hab * ga) / det;
  }
  return b;
}

const mod = await loadEngine();
const out: Record<string, unknown>[] = [];
for (const info of realTables().filter((t) => wanted.includes(t.name))) {
  const ds: Dataset = await info.load();
  const y = outcomeVector(ds);
  for (const [seed, count] of sets) {
    const splits = sklearnSplits(y, count, seed) ?? stratifiedSplits(y, count, seed);
    for (const [k, s] of splits.entries()) {
      const train = Array.from(s.train, (i) => ds.rows[i]);
      const test = Array.from(s.test, (i) => {
        const { [ds.outcomeColumn]: _d, ...rest } = ds.rows[i];
        return rest;
      });
      const yTest = Uint8Array.from(s.test, (i) => y[i]);
      const outcome = Float64Array.from(train, (r) => (r[ds.outcomeColumn] === ds.positiveValue ? 1 : 0));
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const r = await fitTable(rowsToTable(train), { entityColumn: ds.entityColumn, outcomeColumn: ds.outcomeColumn, outcome });
      const ms = performance.now() - t0;
      const cpu = process.cpuUsage(c0);
      const base = outcome.reduce((a, b) => a + b, 0) / outcome.length;
      const p = r.model ? scoreCases(mod, r.model, rowsToTable(test)).p : new Float64Array(test.length).fill(base);
      const logit = Float64Array.from(p, (v) => Math.log(Math.max(v, 1e-15) / Math.max(1 - v, 1e-15)));
      const row = {
        table: ds.name, seed, split: k, state: r.state, auc: auc(yTest, p), logLoss: logLoss(yTest, p), slope: slope(yTest, logit),
        oofAuc: r.quality.auc, pairs: r.diagnostics.pairs,
        ms: Math.round(ms), cpuMs: Math.round((cpu.user + cpu.system) / 1000),
      };
      out.push(row);
      process.stderr.write(`${JSON.stringify(row)}\n`);
    }
  }
}
process.stdout.write(JSON.stringify(out));
