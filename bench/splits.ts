// Stratified 75/25 splits shared by every model: seed 1337 + s, positives and negatives shuffled apart.
import { spawnSync } from 'node:child_process';
import { mulberry32, shuffleInPlace } from './prng.ts';
import { PYTHON } from './peers/python.ts';
import { outcomeVector, type Dataset } from './datasets.ts';

export interface Split {
  train: Int32Array;
  test: Int32Array;
}

/**
 * For split s, one mulberry32 stream seeded 1337 + s shuffles the positive row indices, then the
 * negative ones; round(25%) of each class goes to test. Both index arrays come back sorted.
 */
export function stratifiedSplits(y: ArrayLike<number>, count = 3, seed = 1337, testFraction = 0.25): Split[] {
  const pos: number[] = [];
  const neg: number[] = [];
  for (let i = 0; i < y.length; i++) (y[i] === 1 ? pos : neg).push(i);
  return Array.from({ length: count }, (_, s) => {
    const next = mulberry32(seed + s);
    const p = shuffleInPlace(pos.slice(), next);
    const n = shuffleInPlace(neg.slice(), next);
    const nTestPos = Math.round(p.length * testFraction);
    const nTestNeg = Math.round(n.length * testFraction);
    const test = p.slice(0, nTestPos).concat(n.slice(0, nTestNeg));
    const train = p.slice(nTestPos).concat(n.slice(nTestNeg));
    return { train: Int32Array.from(train).sort(), test: Int32Array.from(test).sort() };
  });
}

/**
 * The splits the published reference numbers were measured on (data/README.md: "3 stratified 75/25
 * splits, seed 1337"): scikit-learn's train_test_split(stratify=y, test_size=0.25,
 * random_state=seed + s). null when Debian's python3-sklearn is not installed.
 */
export function sklearnSplits(y: ArrayLike<number>, count = 3, seed = 1337): Split[] | null {
  const code = [
    'import json, sys',
    'import numpy as np',
    'from sklearn.model_selection import train_test_split',
    'args = json.load(sys.stdin)',
    'y = np.array(args["y"])',
    'out = []',
    'for s in range(args["count"]):',
    '    tr, te = train_test_split(np.arange(len(y)), test_size=0.25, stratify=y, random_state=args["seed"] + s)',
    '    out.append([sorted(tr.tolist()), sorted(te.tolist())])',
    'json.dump(out, sys.stdout)',
  ].join('\n');
  const r = spawnSync(PYTHON, ['-c', code], {
    input: JSON.stringify({ y: Array.from(y), count, seed }),
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  if (r.status !== 0 || !r.stdout) return null;
  const parsed = JSON.parse(r.stdout) as Array<[number[], number[]]>;
  return parsed.map(([train, test]) => ({ train: Int32Array.from(train), test: Int32Array.from(test) }));
}

/**
 * A small record of `minority` rows of the table's rarer class (the positives of all four tables but sonar) and as
 * many of the other class as keep the table's prevalence (or `commonRows` of them), drawn without replacement by a seeded shuffle (entity ids
 * and every other cell untouched).
 */
export function subsample(ds: Dataset, minority: number, seed: number, commonRows?: number): Dataset {
  const y = outcomeVector(ds);
  const pos: number[] = [];
  const neg: number[] = [];
  y.forEach((v, i) => (v === 1 ? pos : neg).push(i));
  const next = mulberry32(seed);
  shuffleInPlace(pos, next);
  shuffleInPlace(neg, next);
  const [rare, common] = pos.length <= neg.length ? [pos, neg] : [neg, pos];
  const nCommon = Math.min(common.length, commonRows ?? Math.round((minority * common.length) / rare.length));
  const picked = [...rare.slice(0, minority), ...common.slice(0, nCommon)].sort((a, b) => a - b);
  return { ...ds, name: `${ds.name}_m${minority}`, rows: picked.map((i) => ds.rows[i]) };
}

/**
 * One split's rows as a fit and its scoring see them: the train rows whole, the test rows without the
 * outcome, the test outcomes (0/1), and the train outcome as the engine takes it.
 */
export function splitRows(ds: Dataset, y: ArrayLike<number>, s: Split) {
  const train = Array.from(s.train, (i) => ds.rows[i]);
  const test = Array.from(s.test, (i) => {
    const { [ds.outcomeColumn]: _outcome, ...rest } = ds.rows[i];
    return rest;
  });
  const yTest = Uint8Array.from(s.test, (i) => y[i]);
  const outcome = Float64Array.from(train, (r) => (r[ds.outcomeColumn] === ds.positiveValue ? 1 : 0));
  return { train, test, yTest, outcome };
}
