// ECE against its own noise (docs/benchmark-results.md, "ECE on Satellite and stackoverflow"): on the quality bench's
// splits (scikit-learn's, seed 1337), the engine's test ECE, the ECE a perfectly calibrated model with the same
// chances would show (outcomes drawn at those chances: the measure's floor), the test recalibration slope, the
// effect of a Platt refit on the engine's own held-out rows, and, for cheap Python peers fitted on the same rows,
// a paired bootstrap of ECE ours less theirs. Usage: npx tsx bench/ece-noise.ts [tables] (PEERS=... to choose)
import { fitTable, loadEngine, scoreCases } from '../host/engine/index.ts';
import { rowsToTable } from '../host/table/rows.ts';
import { realTables, outcomeVector, featureColumns } from './datasets.ts';
import { sklearnSplits, splitRows, stratifiedSplits } from './splits.ts';
import { auc, logLoss, ece, logisticFit } from './metrics.ts';
import { encodeFeatures } from './peers/encode.ts';
import { runPythonSplits, toPythonSplit, type PythonModel } from './peers/python.ts';
import { mulberry32, uniform } from './prng.ts';

const wanted = (process.argv[2] ?? 'satellite,stackoverflow').split(',');
const peers = (process.env.PEERS ?? 'sklearn_logistic,sklearn_hist_gb').split(',') as PythonModel[];
const mod = await loadEngine();
const logit = (v: number) => Math.log(Math.max(v, 1e-15) / Math.max(1 - v, 1e-15));
const sig = (x: number) => 1 / (1 + Math.exp(-x));
/** Per equal-count bin of p (as metrics.ts ece): mean chance / mean outcome. */
function reliability(y: ArrayLike<number>, p: ArrayLike<number>) {
  const n = y.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => p[a] - p[b] || a - b);
  const out: string[] = [];
  for (let b = 0; b < 10; b++) {
    const from = Math.floor((b * n) / 10),
      to = Math.floor(((b + 1) * n) / 10);
    let ys = 0,
      ps = 0;
    for (let k = from; k < to; k++) ((ys += y[order[k]]), (ps += p[order[k]]));
    out.push(`${(ps / (to - from)).toFixed(3)}/${(ys / (to - from)).toFixed(3)}`);
  }
  return out.join(' ');
}
/** Mean ECE of outcomes drawn at exactly the chances p: what a perfectly calibrated model would score. */
function eceFloor(p: ArrayLike<number>, seed: number, draws = 300) {
  const next = mulberry32(seed);
  let s = 0;
  const y = new Uint8Array(p.length);
  for (let d = 0; d < draws; d++) {
    for (let i = 0; i < p.length; i++) y[i] = uniform(next) < p[i] ? 1 : 0;
    s += ece(y, p, 10);
  }
  return s / draws;
}
for (const info of realTables().filter((t) => wanted.includes(t.name))) {
  const ds = await info.load();
  const y = outcomeVector(ds);
  const splits = sklearnSplits(y, 3, 1337) ?? stratifiedSplits(y, 3, 1337);
  const pySplits = [];
  const ours: Float64Array[] = [];
  const yTests: Uint8Array[] = [];
  for (const [k, s] of splits.entries()) {
    const { train, test, yTest, outcome } = splitRows(ds, y, s);
    yTests.push(yTest);
    const r = await fitTable(rowsToTable(train), { entityColumn: ds.entityColumn, outcomeColumn: ds.outcomeColumn, outcome });
    const p = scoreCases(mod, r.model!, rowsToTable(test)).p;
    ours.push(p);
    const lt = Float64Array.from(p, logit);
    const [ta, tb] = logisticFit(yTest, lt);
    // the engine's own held-out rows (served, calibrated logits): Platt refit there, applied to the test rows
    const h = r.diagnostics.heldLogits;
    const hi = Array.from(h.keys()).filter((i) => Number.isFinite(h[i]));
    const [ha, hb] = logisticFit(
      Float64Array.from(hi, (i) => outcome[i]),
      Float64Array.from(hi, (i) => h[i]),
    );
    const pH = Float64Array.from(lt, (x) => sig(ha + hb * x));
    const meanP = p.reduce((a, b) => a + b, 0) / p.length;
    const meanY = yTest.reduce((a, b) => a + b, 0) / yTest.length;
    console.log(
      `${ds.name} split ${k}: state ${r.state} trees ${r.diagnostics.trees} calSlope ${r.diagnostics.calibrationSlope.toFixed(3)} | test AUC ${auc(yTest, p).toFixed(4)} LL ${logLoss(yTest, p).toFixed(4)} ECE ${ece(yTest, p).toFixed(4)} floor ${eceFloor(p, 7 + k).toFixed(4)} | mean p ${meanP.toFixed(4)} y ${meanY.toFixed(4)} | test recal a ${ta.toFixed(3)} b ${tb.toFixed(3)} | held-out (${hi.length} rows) recal a ${ha.toFixed(3)} b ${hb.toFixed(3)} -> test LL ${logLoss(yTest, pH).toFixed(4)} ECE ${ece(yTest, pH).toFixed(4)}`,
    );
    console.log(`  bins ours (mean p/mean y): ${reliability(yTest, p)}`);
    const enc = encodeFeatures(
      train,
      Array.from(s.test, (i) => ds.rows[i]),
      featureColumns(ds),
    );
    pySplits.push(toPythonSplit({ xTrain: enc.xTrain, yTrain: Uint8Array.from(s.train, (i) => y[i]), xTest: enc.xTest }));
  }
  const py = await runPythonSplits(pySplits, { models: peers });
  if (py.available) {
    for (const [model, rs] of Object.entries(py.models)) {
      rs.forEach((r, k) => {
        // paired bootstrap of ECE(ours) - ECE(peer) over test rows
        const next = mulberry32(100 + k);
        const n = yTests[k].length;
        const diffs: number[] = [];
        for (let b = 0; b < 300; b++) {
          const idx = Array.from({ length: n }, () => Math.floor(uniform(next) * n));
          const yy = Uint8Array.from(idx, (i) => yTests[k][i]);
          diffs.push(
            ece(
              yy,
              Float64Array.from(idx, (i) => ours[k][i]),
            ) -
              ece(
                yy,
                Float64Array.from(idx, (i) => r.p[i]),
              ),
          );
        }
        diffs.sort((a, b) => a - b);
        console.log(
          `${ds.name} split ${k} ${model}: AUC ${auc(yTests[k], r.p).toFixed(4)} LL ${logLoss(yTests[k], r.p).toFixed(4)} ECE ${ece(yTests[k], r.p).toFixed(4)} floor ${eceFloor(r.p, 9 + k).toFixed(4)}; ECE ours-peer ${(ece(yTests[k], ours[k]) - ece(yTests[k], r.p)).toFixed(4)} bootstrap 90% [${diffs[15].toFixed(4)}, ${diffs[284].toFixed(4)}]`,
        );
        console.log(`  bins ${model}: ${reliability(yTests[k], r.p)}`);
      });
    }
  } else console.log(py.reason);
}
