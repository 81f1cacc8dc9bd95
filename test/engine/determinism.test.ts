// Determinism (docs/design/engine.md#determinism): the same rows give the same model bits, whatever the
// run, thread, number of workers, process or row order; one changed value changes them.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FitPool, loadEngine, scoreCases, type EngineModule, type FitResult } from '../../host/engine/index.ts';
import { ROW_TRAIN } from '../../host/engine/abi.ts';
import { bitsOf, casesOf, fit, permutation, reorderRows, repoRoot, sha256, syntheticFixture, withColumn, type Fixture } from './helpers.ts';

// 2,600 rows x 10 columns: a single split big enough for pair terms (>= 1,000 training rows), small enough to fit
// in ~0.4 s (3,000 rows would be cross-fitted: docs/decisions/0099-narrow-records-cross-fitted.md).
const SHAPE = [2600, 10, 11] as const;
const CHILD = fileURLToPath(new URL('./child-fit.ts', import.meta.url));

let mod: EngineModule;
let f: Fixture;
let first: FitResult;
let firstBytes: Uint8Array;
let firstP: Float64Array;
/** A small record: cross-fitted, 32 bag tasks of stagewise boosting. */
const wideSmall = syntheticFixture(600, 12, 5);
/**
 * A cross-fitted record of 34 usable columns that keeps its residual trees: its bags grow them on their training
 * and validation rows (assembly/tasks.ts withValidationRows), in whichever worker runs the bag.
 */
const wideTrees = syntheticFixture(800, 34, 2);
let wideTreesAlone: FitResult | undefined;
/** A narrow record of 3,000 rows: cross-fitted with one bag a fold (4 bag tasks) and fold pairs. */
const narrowCross = syntheticFixture(3000, 10, 11);
/** A wide single split (36 usable columns, bags of about 2,550 training rows): fixed rounds of trees on seeded halves of the columns. */
const wideSingle = syntheticFixture(4000, 36, 7);

const pOf = (r: FitResult) => scoreCases(mod, r.model!, casesOf(f)).p;

beforeAll(async () => {
  mod = await loadEngine();
  f = syntheticFixture(...SHAPE);
  first = await fit(f);
  expect(first.state).toBe('answered');
  expect(first.diagnostics.pairs).toBeGreaterThan(0); // the pair step is covered too
  firstBytes = first.model!.toBytes();
  firstP = pOf(first);
});

describe('determinism', () => {
  it('fitting the same table twice gives bit-identical model bytes and p', async () => {
    const again = await fit(f);
    expect(Buffer.from(again.model!.toBytes()).equals(Buffer.from(firstBytes))).toBe(true);
    expect(Buffer.from(bitsOf(pOf(again))).equals(Buffer.from(bitsOf(firstP)))).toBe(true);
    expect(again.quality).toEqual(first.quality);
  });

  describe('in worker threads', () => {
    // A fit's bag and pair tasks are shared with the pool's idle workers and put back by task index:
    // with 2 or 8 workers they run on other instances, finishing in whatever order the threads go.
    const pools: FitPool[] = [];
    afterAll(() => Promise.all(pools.map((p) => p.close())));

    it.each([1, 2, 8])('gives the same model bytes with %i workers as the in-process fit', async (workers) => {
      const pool = new FitPool(workers);
      pools.push(pool);
      wideTreesAlone ??= await fit(wideTrees);
      expect(wideTreesAlone.diagnostics.trees).toBeGreaterThan(0); // the wide trees' path is covered
      for (const table of [f, wideSmall, narrowCross, wideSingle, wideTrees]) {
        const want = table === f ? first : table === wideTrees ? wideTreesAlone : await fit(table);
        const inPool = await fit(table, pool);
        expect(sha256(inPool.model!.toBytes())).toBe(sha256(want.model!.toBytes()));
        expect(inPool.quality).toEqual(want.quality);
        expect(inPool.diagnostics.treesTried).toBe(want.diagnostics.treesTried); // the same tasks ran
      }
    });

    it('two fits at once in a pool of 2 give the same bytes as each alone', async () => {
      const pool = new FitPool(2);
      pools.push(pool);
      const [a, b] = await Promise.all([fit(f, pool), fit(wideSmall, pool)]);
      expect(sha256(a.model!.toBytes())).toBe(sha256(firstBytes));
      expect(sha256(b.model!.toBytes())).toBe(sha256((await fit(wideSmall)).model!.toBytes()));
    });
  });

  it('a separate Node process gives the same model bytes and p (SHA-256)', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', CHILD, ...SHAPE.map(String)], {
      cwd: repoRoot,
      timeout: 60_000,
    });
    const child = JSON.parse(stdout.trim().split('\n').pop()!);
    expect(child).toEqual({ model: sha256(firstBytes), p: sha256(firstP) });
  });

  it('5 seeded shuffles of the row order give identical model bytes and p', async () => {
    for (let seed = 1; seed <= 5; seed++) {
      const shuffled = await fit(reorderRows(f, permutation(f.table.rowCount, seed)));
      expect(sha256(shuffled.model!.toBytes()), `shuffle ${seed}`).toBe(sha256(firstBytes));
      expect(sha256(pOf(shuffled)), `shuffle ${seed}`).toBe(sha256(firstP));
    }
  });

  describe('one changed value changes the model bytes', () => {
    // A training row (not held out), so the change reaches the boosted terms.
    const trainingRow = () => first.diagnostics.rowSplit.indexOf(ROW_TRAIN);

    it('a flipped training label', async () => {
      const r = trainingRow();
      const outcome = f.outcome.slice();
      outcome[r] = 1 - outcome[r];
      const changed = await fit({ ...f, outcome });
      expect(sha256(changed.model!.toBytes())).not.toBe(sha256(firstBytes));
    });

    it('one numeric cell of a training row', async () => {
      const r = trainingRow();
      const cells = f.table.data[f.table.columns.indexOf('num_00')].slice();
      cells[r] = Number(cells[r]) + 0.5;
      const changed = await fit(withColumn(f, 'num_00', cells));
      expect(sha256(changed.model!.toBytes())).not.toBe(sha256(firstBytes));
    });
  });
});
