// Engine-only quality on the small (cross-fitted) tables: held-out AUC, log loss and the test slope (logistic
// slope of the test outcomes on our test logits) on the bench splits (seed 1337, 3 splits) and on 10 other
// splits (seed 2027), so an engine change can be measured quickly and checked off the scored splits.
// Usage: npx tsx bench/engine-quality.ts [tables comma-separated] > out.json
import { performance } from 'node:perf_hooks';
import { fitTable, loadEngine, scoreCases } from '../host/engine/index.ts';
import { rowsToTable } from '../host/table/rows.ts';
import { realTables, outcomeVector, type Dataset } from './datasets.ts';
import { sklearnSplits, splitRows, stratifiedSplits } from './splits.ts';
import { auc, logisticFit, logLoss } from './metrics.ts';

const wanted = (process.argv[2] ?? 'wdbc,penguins,cars,cps_wages_1985,titanic').split(',');
const sets = (process.env.SETS ?? '1337:3,2027:10').split(',').map((s) => s.split(':').map(Number));

/** Logistic slope of y on x (the calibration slope). */
const slope = (y: Uint8Array, x: Float64Array): number => logisticFit(y, x)[1];

const mod = await loadEngine();
const out: Record<string, unknown>[] = [];
for (const info of realTables().filter((t) => wanted.includes(t.name))) {
  const ds: Dataset = await info.load();
  const y = outcomeVector(ds);
  for (const [seed, count] of sets) {
    const splits = sklearnSplits(y, count, seed) ?? stratifiedSplits(y, count, seed);
    for (const [k, s] of splits.entries()) {
      const { train, test, yTest, outcome } = splitRows(ds, y, s);
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const r = await fitTable(rowsToTable(train), { entityColumn: ds.entityColumn, outcomeColumn: ds.outcomeColumn, outcome });
      const ms = performance.now() - t0;
      const cpu = process.cpuUsage(c0);
      const base = outcome.reduce((a, b) => a + b, 0) / outcome.length;
      const p = r.model ? scoreCases(mod, r.model, rowsToTable(test)).p : new Float64Array(test.length).fill(base);
      const logit = Float64Array.from(p, (v) => Math.log(Math.max(v, 1e-15) / Math.max(1 - v, 1e-15)));
      // diagnostics of the served model's scale: out-of-fold slope, variance of the out-of-fold logits against
      // the served logits on the train rows, and the test log loss of the logits times t (best t on a grid)
      const h = r.diagnostics.heldLogits;
      const oi = Array.from(h.keys()).filter((i) => Number.isFinite(h[i]));
      const oofSlope = slope(
        Uint8Array.from(oi, (i) => outcome[i]),
        Float64Array.from(oi, (i) => h[i]),
      );
      const variance = (a: Float64Array) => {
        const m = a.reduce((x, v) => x + v, 0) / a.length;
        return a.reduce((x, v) => x + (v - m) ** 2, 0) / a.length;
      };
      let varServed = NaN;
      if (r.model) {
        const pt = scoreCases(
          mod,
          r.model,
          rowsToTable(
            train.map((row) => {
              const { [ds.outcomeColumn]: _d, ...rest } = row;
              return rest;
            }),
          ),
        ).p;
        varServed = variance(Float64Array.from(pt, (v) => Math.log(Math.max(v, 1e-15) / Math.max(1 - v, 1e-15))));
      }
      const varOof = variance(Float64Array.from(oi, (i) => h[i]));
      let tBest = 1,
        llBest = Infinity;
      for (let t = 0.5; t <= 3.001; t += 0.05) {
        const ll = logLoss(
          yTest,
          Float64Array.from(logit, (v) => 1 / (1 + Math.exp(-t * v))),
        );
        if (ll < llBest) {
          llBest = ll;
          tBest = t;
        }
      }
      // the temperature that minimises the out-of-fold log loss (same grid), applied to the test logits
      const yO = Uint8Array.from(oi, (i) => outcome[i]);
      const hO = Float64Array.from(oi, (i) => h[i]);
      let tOof = 1,
        llOofBest = Infinity;
      for (let t = 0.3; t <= 3.001; t += 0.05) {
        const ll = logLoss(
          yO,
          Float64Array.from(hO, (v) => 1 / (1 + Math.exp(-t * v))),
        );
        if (ll < llOofBest) {
          llOofBest = ll;
          tOof = t;
        }
      }
      const ratio = varOof / varServed;
      const llAt = (t: number) =>
        logLoss(
          yTest,
          Float64Array.from(logit, (v) => 1 / (1 + Math.exp(-t * v))),
        );
      const llSqrt = llAt(tOof * Math.sqrt(ratio));
      const llRatio = llAt(tOof * ratio);
      const llTOof = logLoss(
        yTest,
        Float64Array.from(logit, (v) => 1 / (1 + Math.exp(-tOof * v))),
      );
      const row = {
        table: ds.name,
        seed,
        split: k,
        state: r.state,
        auc: auc(yTest, p),
        logLoss: logLoss(yTest, p),
        slope: slope(yTest, logit),
        oofAuc: r.quality.auc,
        pairs: r.diagnostics.pairs,
        trees: r.diagnostics.trees,
        treesTried: r.diagnostics.treesTried,
        oofSlope,
        varOof,
        varServed,
        tBest,
        llBest,
        tOof,
        llTOof,
        llSqrt,
        llRatio,
        ms: Math.round(ms),
        cpuMs: Math.round((cpu.user + cpu.system) / 1000),
      };
      out.push(row);
      process.stderr.write(`${JSON.stringify(row)}\n`);
    }
  }
}
process.stdout.write(JSON.stringify(out));
