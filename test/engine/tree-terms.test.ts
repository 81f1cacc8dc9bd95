// Tree terms (assembly/pairs.ts, cell-trees.ts): a full-resolution pair (a date made of month x day of month)
// with a categorical column of many values (an airport), boosted by small trees over the date's cells and the
// column's values. Main terms and pairs cannot hold an effect of a date at one airport only: on flights the
// engine without them scored a held-out AUC of 0.629, HistGradientBoosting 0.637, the engine with them 0.642.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FitPool, fitTable, loadEngine, scoreCases, type EngineModule, type FitResult } from '../../host/engine/index.ts';
import { MODEL_FOREST, MODEL_HEADER } from '../../host/engine/abi.ts';
import { mulberry32, uniform } from '../../bench/prng.ts';
import { datasetFixture, permuteLabels, sha256, type Fixture } from './helpers.ts';

let mod: EngineModule;
beforeAll(async () => {
  mod = await loadEngine();
});
const pools: FitPool[] = [];
afterAll(() => Promise.all(pools.map((p) => p.close())));

const AIRPORTS = Array.from({ length: 40 }, (_, i) => `A${String(i).padStart(2, '0')}`);

/**
 * 30,000 flights over six months from 40 airports: late with a chance of 0.15, but 0.75 on 400 seeded
 * "storm" (date, airport) pairs; each date and each airport alone is hardly worse than the others. The engine
 * without tree terms refused it (held-out AUC 0.513); with them it answers (0.593; measured when written).
 */
function storms(seed: number, rows = 30000): { fixture: Fixture; storm: Set<string> } {
  const gen = mulberry32(seed);
  const next = () => uniform(gen);
  const storm = new Set<string>();
  while (storm.size < 400) storm.add(`${1 + Math.floor(next() * 6)}-${1 + Math.floor(next() * 28)}-${AIRPORTS[Math.floor(next() * 40)]}`);
  const data = Array.from({ length: rows }, (_, i) => {
    const month = 1 + Math.floor(next() * 6);
    const day = 1 + Math.floor(next() * 28);
    const origin = AIRPORTS[Math.floor(next() * 40)];
    const distance = Math.round(100 + next() * 2000);
    const p = storm.has(`${month}-${day}-${origin}`) ? 0.75 : 0.15;
    return { id: `f${i}`, month, day, origin, distance, late: next() < p ? 'yes' : 'no' };
  });
  return {
    fixture: datasetFixture({ name: 'storms', rows: data, entityColumn: 'id', outcomeColumn: 'late', positiveValue: 'yes' }),
    storm,
  };
}

const fit = (f: Fixture, pool?: FitPool): Promise<FitResult> =>
  fitTable(f.table, { entityColumn: f.entityColumn, outcomeColumn: f.outcomeColumn, outcome: f.outcome }, pool);

/** The model's tree-term sections as [column j, column k, column l, stride, l's bins] (abi.ts model layout). */
function treeSections(r: FitResult): number[][] {
  const a = r.model!.array;
  const m = a[1];
  const out: number[][] = [];
  for (let q = 0; q < a[3]; q++) {
    const off = a[MODEL_HEADER + m + q];
    if (a[off] < 0 && a[off] !== MODEL_FOREST) out.push([-1 - a[off], a[off + 1], a[off + 2], a[off + 3], a[off + 4]]);
  }
  return out;
}

describe('tree terms', () => {
  const { fixture, storm } = storms(11);
  let model: FitResult;
  beforeAll(async () => {
    model = await fit(fixture);
  });

  it('learn a date at one airport from month, day of month and origin', async () => {
    expect(model.state).toBe('answered');
    const cols = fixture.table.columns;
    const [month, day, origin] = ['month', 'day', 'origin'].map((c) => cols.indexOf(c));
    const terms = treeSections(model);
    expect(terms.map((t) => t.slice(0, 3))).toEqual([[month, day, origin]]);
    // days 1-28 and the missing bin: a stride of 29; 40 airports, the missing and the rare-or-unseen bins
    expect(terms[0].slice(3)).toEqual([29, 42]);
    expect(model.model!.tripleCount).toBe(1);
    expect(model.model!.pairCount).toBe(model.diagnostics.pairs);
    // a storm scores above the same date at an airport without one, and the same airport on a date without one
    const cases = [...storm].slice(0, 20).flatMap((s) => {
      const [mo, dy, ap] = s.split('-');
      const calm = AIRPORTS.find((a) => !storm.has(`${mo}-${dy}-${a}`))!;
      const calmDay = [...Array(28).keys()].map((x) => String(x + 1)).find((x) => !storm.has(`${mo}-${x}-${ap}`))!;
      return [
        [mo, dy, ap],
        [mo, dy, calm],
        [mo, calmDay, ap],
      ];
    });
    const p = scoreCases(mod, model.model!, {
      columns: ['id', 'month', 'day', 'origin', 'distance'],
      data: [
        cases.map((_, i) => `c${i}`),
        cases.map((c) => Number(c[0])),
        cases.map((c) => Number(c[1])),
        cases.map((c) => c[2]),
        cases.map(() => 900),
      ],
      rowCount: cases.length,
    }).p;
    let above = 0;
    for (let i = 0; i < cases.length; i += 3) if (p[i] > p[i + 1] && p[i] > p[i + 2]) above++;
    expect(above).toBeGreaterThanOrEqual(12);
  });

  it('give the same model bytes in one thread and in a pool of 2 workers', async () => {
    const pool = new FitPool(2);
    pools.push(pool);
    const inPool = await fit(fixture, pool);
    expect(sha256(inPool.model!.toBytes())).toBe(sha256(model.model!.toBytes()));
  });

  it('are not tried below 10,000 training rows', async () => {
    const small = storms(12, 9000).fixture;
    const r = await fit(small);
    expect(treeSections(r)).toEqual([]);
    // tried: at most the 6 pairs of its 4 usable columns, no tree term (the 30,000-row record tries 6 + 1)
    expect(r.diagnostics.usableColumns).toBe(4);
    expect(r.diagnostics.pairsTried).toBeLessThanOrEqual(6);
    expect(model.diagnostics.pairsTried).toBe(7);
  });

  // A permutation answered by main terms alone is the held-out test's own small false-positive rate (seed 700
  // is one: AUC 0.528 with no pair kept); what tree terms must not do is pass the gate on noise.
  it('keep no tree term on permuted labels (8 seeds), and answer at most one', async () => {
    let answered = 0;
    for (let s = 0; s < 8; s++) {
      const r = await fit(permuteLabels(fixture, 700 + s));
      if (r.state === 'answered') answered++;
      expect(treeSections(r)).toEqual([]);
    }
    expect(answered).toBeLessThanOrEqual(1);
  });
});
