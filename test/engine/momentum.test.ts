// Momentum (assembly/momentum.ts; docs/engine-history.md "Momentum"): a bag still improving at round 100 goes on
// with Nesterov momentum. On a record whose signal lies along a direction of columns that move together (three
// measurements of one size, the outcome following their small differences, as diamonds' depth follows x, y and
// z), plain cyclic rounds zig-zag and ran about 2,600 rounds a bag here; with momentum the bags stop after about
// 600. Its bags' tasks run with momentum on other instances, so the model must be the same bytes with 1, 2 or 8
// workers as in-process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FitPool, type FitResult } from '../../host/engine/index.ts';
import { mulberry32, uniform } from '../../bench/prng.ts';
import { datasetFixture, fit, sha256 } from './helpers.ts';

/** 2,500 stones: x, y, z measure one size with a little noise, w its cube; the outcome follows z against x and y. */
function stones() {
  const next = mulberry32(7);
  const normal = () => {
    let s = 0;
    for (let k = 0; k < 6; k++) s += uniform(next);
    return (s - 3) * Math.SQRT2;
  };
  const rows = [];
  for (let i = 0; i < 2500; i++) {
    const size = normal();
    const x = size + 0.05 * normal(),
      y = size + 0.05 * normal(),
      z = 0.6 * size + 0.05 * normal();
    const logit = -0.3 + (1.5 * (z - (0.6 * (x + y)) / 2)) / 0.05 + 0.4 * size;
    rows.push({
      id: `s${i}`,
      x: +x.toFixed(3),
      y: +y.toFixed(3),
      z: +z.toFixed(3),
      w: +(size ** 3 + 0.1 * normal()).toFixed(3),
      out: uniform(next) < 1 / (1 + Math.exp(-logit)) ? 'yes' : 'no',
    });
  }
  return datasetFixture({ name: 'stones', rows, entityColumn: 'id', outcomeColumn: 'out', positiveValue: 'yes' });
}

describe('momentum', () => {
  const f = stones();
  const pools: FitPool[] = [];
  let r: FitResult;
  beforeAll(async () => {
    r = await fit(f);
  });
  afterAll(() => Promise.all(pools.map((p) => p.close())));

  it('takes over bags still improving at round 100, and they stop well before the plain rounds would', () => {
    expect(r.state).toBe('answered');
    // some bag's best round is past 100, so it improved there and went on with momentum
    expect(r.diagnostics.meanRounds).toBeGreaterThan(100);
    // plain cyclic rounds: 2,594 a bag on these rows (build before momentum)
    expect(r.diagnostics.meanRounds).toBeLessThan(1200);
  });

  it.each([1, 2, 8])('gives the same model bytes with %i workers as in-process', async (workers) => {
    const pool = new FitPool(workers);
    pools.push(pool);
    const got = await fit(f, pool);
    expect(sha256(got.model!.toBytes())).toBe(sha256(r.model!.toBytes()));
    expect(got.quality).toEqual(r.quality);
  });
});
