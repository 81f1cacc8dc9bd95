// The engine's progress reports (assembly/progress.ts, docs/reference/tasks.md#events "progress is real"): a fit reports its own
// steps in order, bag by bag, from a worker thread as from this one, and listening changes no number.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeTable, fitEncoded, FitPool, type FitResult } from '../../host/engine/index.ts';
import * as abi from '../../host/engine/abi.ts';
import { sha256, syntheticFixture, type Fixture } from './helpers.ts';

type Report = [number, number, number];

function encoded(f: Fixture) {
  return encodeTable(f.table, { entityColumn: f.entityColumn, outcomeColumn: f.outcomeColumn, outcome: f.outcome });
}

async function fitListening(f: Fixture, pool?: FitPool): Promise<{ result: FitResult; reports: Report[] }> {
  const reports: Report[] = [];
  const result = await fitEncoded(encoded(f), pool, (stage, done, total) => reports.push([stage, done, total]));
  return { result, reports };
}

/** The reports' stages with consecutive repeats folded: the order of steps. */
const stepsOf = (reports: Report[]) => reports.map((r) => r[0]).filter((s, i, all) => i === 0 || all[i - 1] !== s);

let big: Fixture;
let small: Fixture;
beforeAll(() => {
  big = syntheticFixture(2600, 10, 11); // single split (3,000 rows would be cross-fitted: decision 0099), pair terms checked
  small = syntheticFixture(600, 6, 5); // cross-fitted
});

describe('a fit reports its progress from inside the engine', () => {
  it('reports ordering, the split with its row counts, binning, every bag, pairs and the decision, in that order', async () => {
    const { result, reports } = await fitListening(big);
    expect(stepsOf(reports)).toEqual([abi.P_ORDER, abi.P_SPLIT, abi.P_BINNING, abi.P_BAG, abi.P_PAIRS, abi.P_DECIDE]);
    expect(reports[0]).toEqual([abi.P_ORDER, 2600, 2600]);
    const split = reports.find((r) => r[0] === abi.P_SPLIT)!;
    expect(split.slice(1)).toEqual([result.quality.training_rows, result.quality.held_out_rows]);
    const binning = reports.filter((r) => r[0] === abi.P_BINNING);
    expect(binning.map((r) => r[1])).toEqual([...Array(binning.length).keys()]);
    expect(binning.at(-1)).toEqual([abi.P_BINNING, binning.length - 1, binning.length - 1]);
    const bags = reports.filter((r) => r[0] === abi.P_BAG);
    const n = bags[0][2];
    expect(n).toBeGreaterThan(1);
    expect(bags).toEqual(Array.from({ length: n + 1 }, (_, k) => [abi.P_BAG, k, n]));
  });

  it('a cross-fitted record says so in its split report, and counts every fold bag', async () => {
    const { result, reports } = await fitListening(small);
    expect(result.quality.validation_scheme).toBe('entity_hash_folds');
    expect(reports.some((r) => r[0] === abi.P_SPLIT)).toBe(false);
    const split = reports.find((r) => r[0] === abi.P_SPLIT_FOLDS)!;
    expect(split[1]).toBe(split[2]); // every labeled row is trained on and held out once
    const bags = reports.filter((r) => r[0] === abi.P_BAG);
    expect(bags.at(-1)![1]).toBe(bags.at(-1)![2]);
  });

  describe('in a worker thread', () => {
    let pool: FitPool;
    beforeAll(() => void (pool = new FitPool(1)));
    afterAll(() => pool.close());

    it('the reports cross to the pool as the worker makes them, the same as in this thread', async () => {
      const here = await fitListening(big);
      const there = await fitListening(big, pool);
      expect(there.reports).toEqual(here.reports);
    });
  });

  it('listening changes no number of the fit', async () => {
    const quiet = await fitEncoded(encoded(big));
    const heard = await fitListening(big);
    expect(sha256(heard.result.model!.toBytes())).toBe(sha256(quiet.model!.toBytes()));
    expect(heard.result.quality).toEqual(quiet.quality);
  });

  it('a listener that throws does not stop the fit or change it', async () => {
    const quiet = await fitEncoded(encoded(big));
    const loud = await fitEncoded(encoded(big), undefined, () => {
      throw new Error('listener fault');
    });
    expect(sha256(loud.model!.toBytes())).toBe(sha256(quiet.model!.toBytes()));
  });
});
