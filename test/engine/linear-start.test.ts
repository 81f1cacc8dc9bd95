// The linear start of cross-fitted bags (assembly/linear.ts): a small record whose outcome is a line in a few
// correlated numeric columns is learned as that line, not as a staircase of cuts; the model stays additive
// per bin, is the same bytes in a pool, and answers no permuted labels.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FitPool, loadEngine, scoreCases, type EngineModule, type FitResult } from '../../host/engine/index.ts';
import { rowsToTable } from '../../host/table/rows.ts';
import type { Cell } from '../../host/table/types.ts';
import { mulberry32, uniform } from '../../bench/prng.ts';
import { logLoss } from '../../bench/metrics.ts';
import { datasetFixture, fit, type Fixture } from './helpers.ts';

const COLUMNS = ['a', 'b', 'c', 'd', 'noise_1', 'noise_2'];

/** Rows whose log odds are a line in four correlated columns (two noise columns beside them), with their true chance. */
function lineRows(count: number, seed: number): { rows: Record<string, Cell>[]; chance: number[] } {
  const next = mulberry32(seed);
  const normal = () => (uniform(next) + uniform(next) + uniform(next) + uniform(next) - 2) * Math.sqrt(3);
  const rows: Record<string, Cell>[] = [];
  const chance: number[] = [];
  for (let i = 0; i < count; i++) {
    const shared = normal();
    const x = COLUMNS.map((_, j) => Math.round((j < 4 ? 0.6 * shared + 0.8 * normal() : normal()) * 1e4) / 1e4);
    const logit = -0.3 + 0.7 * x[0] + 0.7 * x[1] + 0.5 * x[2] - 0.9 * x[3];
    const p = 1 / (1 + Math.exp(-logit));
    const row: Record<string, Cell> = { id: `r${seed}_${i}` };
    COLUMNS.forEach((name, j) => (row[name] = x[j]));
    row.outcome = uniform(next) < p ? 'yes' : 'no';
    rows.push(row);
    chance.push(p);
  }
  return { rows, chance };
}

function lineFixture(count: number, seed: number): Fixture {
  return datasetFixture({
    name: 'line',
    rows: lineRows(count, seed).rows,
    entityColumn: 'id',
    outcomeColumn: 'outcome',
    positiveValue: 'yes',
  });
}

let mod: EngineModule;
let train: Fixture;
let model: FitResult;
const pools: FitPool[] = [];

beforeAll(async () => {
  mod = await loadEngine();
  train = lineFixture(500, 1);
  model = await fit(train);
});
afterAll(() => Promise.all(pools.map((p) => p.close())));

describe('linear start of a small record (assembly/linear.ts)', () => {
  it('learns a line from 500 rows within 0.016 nats of the true chances on fresh rows', () => {
    expect(model.state).toBe('answered');
    expect(model.quality.validation_scheme).toBe('entity_hash_folds');
    const fresh = lineRows(5000, 2);
    const y = fresh.rows.map((r) => (r.outcome === 'yes' ? 1 : 0));
    const cases = rowsToTable(fresh.rows.map(({ outcome: _o, ...rest }) => rest));
    const ours = logLoss(y, scoreCases(mod, model.model!, cases).p);
    const truth = logLoss(y, fresh.chance);
    // 0.0120 nats; without the linear start (smoothing cuts, then stagewise cuts) 0.0215. Other seeds and sizes,
    // with / without: 500 rows 0.0087 / 0.0127 and 0.0140 / 0.0239, 300 rows 0.0114 / 0.0225, 800 rows 0.0136 / 0.0179
    expect(ours - truth).toBeGreaterThan(0);
    expect(ours - truth).toBeLessThan(0.016);
  });

  it('gives the same model bytes in one thread and in a pool of 2 workers', async () => {
    const pool = new FitPool(2);
    pools.push(pool);
    const inPool = await fit(train, pool);
    expect(Buffer.from(inPool.model!.toBytes()).equals(Buffer.from(model.model!.toBytes()))).toBe(true);
  });

  it('answers none of 20 permuted-label copies of the record', async () => {
    const answered: number[] = [];
    for (let seed = 1; seed <= 20; seed++) {
      const next = mulberry32(1000 + seed);
      const labels = Array.from(train.outcome);
      for (let i = labels.length - 1; i > 0; i--) {
        const j = Math.floor(uniform(next) * (i + 1));
        [labels[i], labels[j]] = [labels[j], labels[i]];
      }
      const r = await fit({ ...train, outcome: Float64Array.from(labels) });
      if (r.state === 'answered') answered.push(seed);
    }
    expect(answered).toEqual([]);
  });
});
