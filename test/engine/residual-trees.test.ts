// Residual trees (assembly/residual-trees.ts, tree-stage.ts): oblivious trees of four levels boosted on what the
// additive model leaves, kept only when the held-out rows say the model with them is better. A case's reasons take
// each tree's exact Shapley values, worked out when the model is built: checked here against an independent
// TreeSHAP (the polynomial path algorithm of Lundberg, Erion and Lee, 2018) on the engine's own code compiled into
// a probe module, then on fitted models (the contributions add up to the logit; the same bytes with 1, 2 or 8
// workers; the model reads back from its bytes).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileProbe } from './probes/compile.ts';
import { FitPool, Model, fitTable, loadEngine, scoreCases, type EngineModule, type FitResult } from '../../host/engine/index.ts';
import { FOREST_TREE, MODEL_FOREST, MODEL_HEADER } from '../../host/engine/abi.ts';
import { rowsToTable } from '../../host/table/rows.ts';
import { mulberry32, uniform } from '../../bench/prng.ts';
import { sha256 } from './helpers.ts';

const DEPTH = 4; // assembly/residual-trees.ts TREE_DEPTH
const LEAVES = 1 << DEPTH;
const WORDS = 8; // mask words of 32 bits
const RAW = DEPTH + DEPTH * WORDS + 2 * LEAVES; // RAW_TREE: columns, masks, leaf values, leaf covers
const PHI_AT = DEPTH + DEPTH * WORDS + DEPTH; // served tree: columns, masks, distinct columns, then the values

interface Probe {
  memory: WebAssembly.Memory;
  alloc(bytes: number): number;
  serve(tree: number, colOf: number, scale: number, out: number): void;
  value(tree: number, bins: number, n: number, r: number): number;
  mean(tree: number): number;
}

let probe: Probe;
let removeProbe = (): void => {};

beforeAll(async () => {
  const compiled = await compileProbe<Probe>('trees-probe');
  probe = compiled.exports;
  removeProbe = compiled.remove;
}, 60_000);
afterAll(() => removeProbe());

/** A raw tree as the engine lays it out: levels' columns (-1: no cut), 256-bit masks, leaf values and covers. */
interface RawTree {
  cols: number[];
  masks: boolean[][]; // [level][bin]: goes right
  leaves: number[];
  covers: number[];
}

function randomTree(seed: number, u: number): RawTree {
  const g = mulberry32(seed);
  const next = () => uniform(g);
  const cols = Array.from({ length: DEPTH }, (_, l) => (l === 3 && seed % 3 === 0 ? -1 : Math.floor(next() * u)));
  const masks = cols.map(() => Array.from({ length: 256 }, () => next() < 0.5));
  const leaves = Array.from({ length: LEAVES }, () => (next() - 0.5) * 2);
  // a level that does not cut sends every row left: its right leaves hold no row
  const covers = Array.from({ length: LEAVES }, (_, k) => (cols[3] < 0 && k % 2 === 1 ? 0 : 1 + Math.floor(next() * 50)));
  if (cols[3] < 0) for (let k = 1; k < LEAVES; k += 2) leaves[k] = 0;
  return { cols, masks, leaves, covers };
}

function writeTree(t: RawTree): number {
  const p = probe.alloc(RAW * 8);
  const a = new Float64Array(probe.memory.buffer, p, RAW);
  t.cols.forEach((c, l) => (a[l] = c));
  t.masks.forEach((m, l) => {
    for (let w = 0; w < WORDS; w++) {
      let word = 0;
      for (let j = 0; j < 32; j++) if (m[w * 32 + j]) word += 2 ** j;
      a[DEPTH + l * WORDS + w] = word;
    }
  });
  t.leaves.forEach((v, k) => (a[DEPTH + DEPTH * WORDS + k] = v));
  t.covers.forEach((v, k) => (a[DEPTH + DEPTH * WORDS + LEAVES + k] = v));
  return p;
}

// ---- an independent TreeSHAP: the tree unfolded into ordinary nodes, then Algorithm 2 of Lundberg et al. ----

type Node =
  { leaf: true; value: number; cover: number } | { leaf: false; feature: number; level: number; left: Node; right: Node; cover: number };

function unfold(t: RawTree, l = 0, prefix = 0): Node {
  if (l === DEPTH) return { leaf: true, value: t.leaves[prefix], cover: t.covers[prefix] };
  if (t.cols[l] < 0) return unfold(t, l + 1, prefix * 2); // every row goes left
  const left = unfold(t, l + 1, prefix * 2);
  const right = unfold(t, l + 1, prefix * 2 + 1);
  return { leaf: false, feature: t.cols[l], level: l, left, right, cover: left.cover + right.cover };
}

interface PathEl {
  d: number;
  z: number;
  o: number;
  w: number;
}

function treeShap(root: Node, goesRight: (level: number) => boolean, features: number): number[] {
  const phi = new Array(features).fill(0);
  const extend = (m: PathEl[], pz: number, po: number, pi: number): PathEl[] => {
    const out = m.map((e) => ({ ...e }));
    const l = out.length;
    out.push({ d: pi, z: pz, o: po, w: l === 0 ? 1 : 0 });
    for (let i = l - 1; i >= 0; i--) {
      out[i + 1].w += (po * out[i].w * (i + 1)) / (l + 1);
      out[i].w = (pz * out[i].w * (l - i)) / (l + 1);
    }
    return out;
  };
  const unwind = (m: PathEl[], i: number): PathEl[] => {
    const out = m.map((e) => ({ ...e }));
    const l = out.length - 1;
    let n = out[l].w;
    for (let j = l - 1; j >= 0; j--) {
      if (out[i].o !== 0) {
        const t = out[j].w;
        out[j].w = (n * (l + 1)) / ((j + 1) * out[i].o);
        n = t - (out[j].w * out[i].z * (l - j)) / (l + 1);
      } else out[j].w = (out[j].w * (l + 1)) / (out[i].z * (l - j));
    }
    for (let j = i; j < l; j++) {
      out[j].d = out[j + 1].d;
      out[j].z = out[j + 1].z;
      out[j].o = out[j + 1].o;
    }
    return out.slice(0, l);
  };
  const recurse = (node: Node, path: PathEl[], pz: number, po: number, pi: number): void => {
    let m = extend(path, pz, po, pi);
    if (node.leaf) {
      for (let i = 1; i < m.length; i++) {
        const w = unwind(m, i).reduce((s, e) => s + e.w, 0);
        phi[m[i].d] += w * (m[i].o - m[i].z) * node.value;
      }
      return;
    }
    const right = goesRight(node.level);
    const [hot, cold] = right ? [node.right, node.left] : [node.left, node.right];
    let iz = 1;
    let io = 1;
    const k = m.findIndex((e, idx) => idx > 0 && e.d === node.feature);
    if (k > 0) {
      iz = m[k].z;
      io = m[k].o;
      m = unwind(m, k);
    }
    recurse(hot, m, (iz * hot.cover) / node.cover, io, node.feature);
    recurse(cold, m, (iz * cold.cover) / node.cover, 0, node.feature);
  };
  recurse(root, [], 1, 1, -1);
  return phi;
}

describe('residual trees: exact Shapley values of a tree', () => {
  it('match an independent TreeSHAP for every pattern of sides, and add up to the tree less its mean', () => {
    const u = 5;
    const colOf = probe.alloc(u * 4);
    new Int32Array(probe.memory.buffer, colOf, u).set([0, 1, 2, 3, 4]); // usable c is model column c
    const out = probe.alloc(FOREST_TREE * 8);
    let checked = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const t = randomTree(seed, u);
      const p = writeTree(t);
      probe.serve(p, colOf, 1, out);
      const served = new Float64Array(probe.memory.buffer, out, FOREST_TREE).slice();
      const distinct = [...new Set(t.cols.filter((c) => c >= 0))];
      expect(Array.from(served.subarray(DEPTH + DEPTH * WORDS, PHI_AT))).toEqual([...distinct, ...Array(DEPTH - distinct.length).fill(-1)]);
      const root = unfold(t);
      const mean = probe.mean(p);
      for (let sides = 0; sides < LEAVES; sides++) {
        const right = (l: number) => ((sides >> (DEPTH - 1 - l)) & 1) === 1;
        const want = treeShap(root, right, u);
        const got = new Array(u).fill(0);
        distinct.forEach((c, k) => (got[c] = served[PHI_AT + sides * DEPTH + k]));
        for (let c = 0; c < u; c++) expect(got[c]).toBeCloseTo(want[c], 12);
        // a case with this pattern of sides (one whose bins pick those sides: found among 256 values per column)
        // gets the tree's value less its mean from the values
        const bins = new Uint8Array(u);
        let reachable = true;
        for (const c of distinct) {
          const levels = t.cols
            .map((cc, l) => [cc, l])
            .filter(([cc]) => cc === c)
            .map(([, l]) => l);
          const b = [...Array(256).keys()].find((bin) => levels.every((l) => t.masks[l][bin] === right(l)));
          if (b === undefined) reachable = false;
          else bins[c] = b;
        }
        if (!reachable) continue;
        const bp = probe.alloc(u);
        new Uint8Array(probe.memory.buffer, bp, u).set(bins);
        const value = probe.value(p, bp, 1, 0);
        expect(got.reduce((s, v) => s + v, 0)).toBeCloseTo(value - mean, 12);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(300);
  });
});

// ---- fitted models ----

/**
 * Stones of a made product: carat, depth and table (numeric), a colour of 7 grades; the chance of the top
 * grade depends on depth and table together inside a band that narrows with carat (a pattern of three columns),
 * plus colour.
 */
function stones(seed: number, rows: number) {
  const g = mulberry32(seed);
  const next = () => uniform(g);
  return Array.from({ length: rows }, (_, i) => {
    const carat = Math.round((0.2 + 2 * next() ** 2) * 100) / 100;
    const depth = Math.round((58 + 8 * next()) * 10) / 10;
    const table = Math.round((52 + 10 * next()) * 10) / 10;
    const colour = 'DEFGHIJ'[Math.floor(next() * 7)];
    const band = 1.5 - 0.4 * carat;
    const inBand = Math.abs(depth - 61.8) < band && Math.abs(table - 56) < 2 * band;
    const logit = -1.6 + (inBand ? 2.8 : 0) + 0.15 * ('DEFGHIJ'.indexOf(colour) - 3);
    return { id: `s${i}`, carat, depth, table, colour, ideal: next() < 1 / (1 + Math.exp(-logit)) ? 'yes' : 'no' };
  });
}

const fitRows = (rows: Record<string, unknown>[], pool?: FitPool): Promise<FitResult> => {
  const outcome = Float64Array.from(rows, (r) => (r.ideal === 'yes' ? 1 : 0));
  return fitTable(rowsToTable(rows as never), { entityColumn: 'id', outcomeColumn: 'ideal', outcome }, pool);
};

describe('residual trees in a fit', () => {
  let mod: EngineModule;
  let r: FitResult;
  const rows = stones(7, 12000);
  const pools: FitPool[] = [];
  beforeAll(async () => {
    mod = await loadEngine();
    r = await fitRows(rows);
  }, 120_000);
  afterAll(() => Promise.all(pools.map((p) => p.close())));

  it('are kept where three columns act together, and the model says how many', () => {
    expect(r.state).toBe('answered');
    expect(r.diagnostics.trees).toBeGreaterThan(0);
    expect(r.diagnostics.treesTried).toBeGreaterThanOrEqual(r.diagnostics.trees);
    expect(r.model!.residualTrees).toBe(r.diagnostics.trees);
    expect(r.model!.pairCount).toBe(r.diagnostics.pairs); // the forest section is not a pair term
    const a = r.model!.array;
    const m = a[1];
    const forest = [...Array(a[3]).keys()].map((q) => a[MODEL_HEADER + m + q]).filter((off) => a[off] === MODEL_FOREST);
    expect(forest).toHaveLength(1);
    expect(a[forest[0] + 1]).toBe(r.diagnostics.trees);
    expect(a.length).toBeGreaterThanOrEqual(forest[0] + 2 + r.diagnostics.trees * FOREST_TREE);
  });

  it("gives each case contributions that add up to its logit, the trees' exact shares included", () => {
    const cases = rowsToTable(stones(8, 500).map(({ ideal: _y, ...rest }) => rest) as never);
    const out = scoreCases(mod, r.model!, cases);
    const m = r.model!.columns.length;
    for (let i = 0; i < 500; i++) {
      let logit = r.model!.intercept;
      for (let j = 0; j < m; j++) logit += out.contributions[i * m + j];
      expect(1 / (1 + Math.exp(-logit))).toBeCloseTo(out.p[i], 12);
    }
    // the entity column gets nothing; depth and table carry the band
    const depth = r.model!.columns.findIndex((c) => c.name === 'depth');
    const spread = (j: number) => Math.max(...Array.from({ length: 500 }, (_, i) => Math.abs(out.contributions[i * m + j])));
    expect(spread(depth)).toBeGreaterThan(0.5);
  });

  it('reads back from its bytes and scores the same bits', () => {
    const again = Model.fromBytes(r.model!.toBytes());
    const cases = rowsToTable(stones(9, 200).map(({ ideal: _y, ...rest }) => rest) as never);
    const a = scoreCases(mod, r.model!, cases);
    const b = scoreCases(mod, again, cases);
    expect(Buffer.from(b.p.buffer).equals(Buffer.from(a.p.buffer))).toBe(true);
    expect(Buffer.from(b.contributions.buffer).equals(Buffer.from(a.contributions.buffer))).toBe(true);
  });

  it.each([1, 2, 8])(
    'gives the same model bytes with %i workers as in one thread',
    async (workers) => {
      const pool = new FitPool(workers);
      pools.push(pool);
      const inPool = await fitRows(rows, pool);
      expect(sha256(inPool.model!.toBytes())).toBe(sha256(r.model!.toBytes()));
    },
    120_000,
  );
});
