// Permuted-label honesty of one table, one fit at a time, resumable: each fit's outcome is appended to a JSONL
// file as soon as it is known, and seeds already in the file are skipped, so a long run (the 200 permutations a
// table that the honesty target asks for, docs/benchmarks.md) can be stopped and started again, or split over
// several processes with disjoint ranges of k. Seeds are bench/honesty.ts's (50000 + 1000 x catalogue index + k,
// catalogue index as bench/run.ts), so its permutations are the ones the other honesty benches fit.
//
// Usage: npx tsx bench/honesty-resume.ts <table> <k list, e.g. 0-199 or 66-99,122-199> <out.jsonl> [part i/n]
//        (part i/n fits every n-th k of the list from the i-th: n processes share one list and one file)
//        npx tsx bench/honesty-resume.ts --summary <out.jsonl>...   (counts per table, answered seeds)
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { encodeTable, fitEncoded } from '../host/engine/index.ts';
import { loadEngine } from '../host/engine/load-node.ts';
import { realTables } from './datasets.ts';
import { permuteOutcome, permutationSeed } from './honesty.ts';
import { engineInput } from './speed.ts';

interface Line {
  table: string;
  k: number;
  seed: number;
  state: string;
  auc: number | null;
  aucZ: number;
  logLossZ: number;
  trees: number;
  coreHash: string;
  ms: number;
}

const readLines = (file: string): Line[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Line)
    : [];

/** Sorted k values as compact ranges: 0-65, 100-121. */
const ranges = (ks: number[]) =>
  ks
    .reduce<number[][]>((rs, k) => {
      const last = rs.at(-1);
      if (last && k === last[1] + 1) last[1] = k;
      else rs.push([k, k]);
      return rs;
    }, [])
    .map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`))
    .join(', ');

if (process.argv[2] === '--summary') {
  const lines = process.argv.slice(3).flatMap(readLines);
  const byTable = new Map<string, Map<number, Line>>();
  for (const l of lines) {
    const m = byTable.get(l.table) ?? new Map<number, Line>();
    byTable.set(l.table, m);
    m.set(l.seed, l);
  }
  for (const [table, m] of byTable) {
    const all = [...m.values()].sort((a, b) => a.k - b.k);
    const zs = all.map((l) => l.aucZ).filter(Number.isFinite);
    const mean = zs.reduce((s, z) => s + z, 0) / zs.length;
    const sd = Math.sqrt(zs.reduce((s, z) => s + (z - mean) ** 2, 0) / Math.max(1, zs.length - 1));
    const answered = all.filter((l) => l.state === 'answered');
    const hashes = [...new Set(all.map((l) => l.coreHash.slice(0, 16)))];
    process.stdout.write(
      `${table}: ${answered.length} answered of ${all.length} (k ${ranges(all.map((l) => l.k))}); AUC z mean ${mean.toFixed(2)}, spread ${sd.toFixed(2)}; ` +
        `AUC z >= 2.58 and log-loss z >= 1.645 (the bar before decision 0068): ${all.filter((l) => l.aucZ >= 2.5758 && l.logLossZ >= 1.6449).length}; core_hash ${hashes.join(', ')}` +
        `${answered.length ? `; answered: ${answered.map((l) => `${l.seed} (AUC ${l.auc?.toFixed(3)}, z ${l.aucZ.toFixed(2)}, log-loss z ${l.logLossZ.toFixed(2)})`).join(', ')}` : ''}\n`,
    );
  }
} else {
  const [name, spec, out, part = '0/1'] = process.argv.slice(2);
  if (!name || !spec || !out) throw new Error('usage: npx tsx bench/honesty-resume.ts <table> <k list> <out.jsonl> [part i/n]');
  const ks = spec.split(',').flatMap((r) => {
    const [a, b = a] = r.split('-').map(Number);
    return Array.from({ length: b - a + 1 }, (_, i) => a + i);
  });
  const [i, n] = part.split('/').map(Number);
  const catalogue = realTables();
  const index = catalogue.findIndex((t) => t.name === name);
  if (index < 0) throw new Error(`no table ${name}; tables: ${catalogue.map((t) => t.name).join(', ')}`);
  const ds = await catalogue[index].load();
  const { table, opts } = engineInput(ds);
  const encoded = encodeTable(table, opts);
  const { coreHash } = await loadEngine();
  const done = new Set(readLines(out).map((l) => l.seed));
  for (const k of ks.filter((_, j) => j % n === i)) {
    const seed = permutationSeed(index, k);
    if (done.has(seed)) continue;
    const t0 = performance.now();
    const r = await fitEncoded({ ...encoded, outcome: permuteOutcome(opts.outcome, seed) });
    const line: Line = {
      table: name,
      k,
      seed,
      state: r.state,
      auc: r.quality.auc,
      aucZ: r.diagnostics.aucZ,
      logLossZ: r.diagnostics.logLossZ,
      trees: r.diagnostics.trees,
      coreHash,
      ms: Math.round(performance.now() - t0),
    };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
    process.stderr.write(
      `${name} k ${k} seed ${seed}: ${r.state} AUC ${r.quality.auc?.toFixed(3)} z ${line.aucZ.toFixed(2)} (${line.ms} ms)\n`,
    );
  }
}
