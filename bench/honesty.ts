// Honesty bench (docs/design/engine.md#step-9): real tables with their labels permuted by a seeded shuffle hold
// no pattern, so every fit should come back refused or not_yet. Target: >= 99% per table.
import { performance } from 'node:perf_hooks';
import { encodeTable, fitEncoded, type FitPool } from '../host/engine/index.ts';
import type { Dataset } from './datasets.ts';
import { mulberry32, shuffleInPlace } from './prng.ts';
import { engineInput } from './speed.ts';

export const HONESTY_TARGET = 0.99;

export interface HonestyRow {
  table: string;
  rows: number;
  fits: number;
  answered: number;
  refused: number;
  notYet: number;
  /** Share of fits that were refused or not_yet. */
  rate: number;
  /** Seeds whose permutation was answered (to reproduce them). */
  answeredSeeds: number[];
  /** Held-out AUCs of the answered permutations. */
  answeredAucs: number[];
  wallMs: number;
}

/** Seed of permutation k of table t: fixed, so a failing permutation can be rerun alone. */
export const permutationSeed = (tableIndex: number, k: number) => 50_000 + tableIndex * 1_000 + k;

/** Labels permuted across rows (mulberry32 Fisher-Yates); features and entity ids untouched. */
export function permuteOutcome(outcome: Float64Array, seed: number): Float64Array {
  return Float64Array.from(shuffleInPlace(Array.from(outcome), mulberry32(seed)));
}

/**
 * Fits label permutations of each table (in the pool's workers when given): `permutations` of each, or as many
 * as the function gives for that table (fewer for the large ones keeps the run time sane). Table t's seeds are
 * permutationSeed(t, k), t its position in `datasets` or `tableIndex` (a fixed catalogue index, so a table keeps
 * its seeds when others are added after it or left out of a run).
 */
export async function runHonesty(
  datasets: Dataset[],
  permutations: number | ((ds: Dataset) => number),
  pool?: FitPool,
  log: (l: string) => void = () => {},
  tableIndex: (ds: Dataset, position: number) => number = (_ds, position) => position,
): Promise<HonestyRow[]> {
  const rows: HonestyRow[] = [];
  for (const [position, ds] of datasets.entries()) {
    const t = tableIndex(ds, position);
    const count = typeof permutations === 'number' ? permutations : permutations(ds);
    if (count <= 0) continue;
    const { table, opts } = engineInput(ds);
    const encoded = encodeTable(table, opts);
    const t0 = performance.now();
    const seeds = Array.from({ length: count }, (_, k) => permutationSeed(t, k));
    const results = await Promise.all(seeds.map((seed) => fitEncoded({ ...encoded, outcome: permuteOutcome(opts.outcome, seed) }, pool)));
    const wallMs = performance.now() - t0;
    const answered = results.flatMap((r, k) => (r.state === 'answered' ? [k] : []));
    const refused = results.filter((r) => r.state === 'refused').length;
    const notYet = results.filter((r) => r.state === 'not_yet').length;
    rows.push({
      table: ds.name,
      rows: ds.rows.length,
      fits: results.length,
      answered: answered.length,
      refused,
      notYet,
      rate: (refused + notYet) / results.length,
      answeredSeeds: answered.map((k) => seeds[k]),
      answeredAucs: answered.map((k) => results[k].quality.auc ?? NaN),
      wallMs,
    });
    log(`honesty ${ds.name}: ${refused + notYet}/${results.length} refused or not_yet (${(wallMs / 1000).toFixed(1)} s)`);
  }
  return rows;
}

/** Markdown table of the honesty rows plus the overall rate. */
export function formatHonestyMarkdown(rows: HonestyRow[]): string {
  const total = rows.reduce((s, r) => s + r.fits, 0);
  const ok = rows.reduce((s, r) => s + r.refused + r.notYet, 0);
  const lines = [
    '| table | rows | permutations | answered | refused | not_yet | refused or not_yet | target >= 99% | wall time |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.table} | ${r.rows} | ${r.fits} | ${r.answered} | ${r.refused} | ${r.notYet} | ${(100 * r.rate).toFixed(1)}% | ${r.rate >= HONESTY_TARGET ? 'met' : '**missed**'}${r.fits < 100 ? ` (only ${r.fits} fits: one answered would be ${(100 / r.fits).toFixed(0)}%)` : ''} | ${(r.wallMs / 1000).toFixed(0)} s |`,
    ),
    `| all | | ${total} | ${total - ok} | | | ${((100 * ok) / total).toFixed(1)}% | ${ok / total >= HONESTY_TARGET ? 'met' : '**missed**'} | ${(rows.reduce((a, r) => a + r.wallMs, 0) / 1000).toFixed(0)} s |`,
  ];
  const answered = rows.filter((r) => r.answered > 0);
  if (answered.length) {
    lines.push(
      '',
      `Answered permutations (seed: held-out AUC): ${answered.map((r) => `${r.table} ${r.answeredSeeds.map((s, i) => `${s}: ${r.answeredAucs[i].toFixed(3)}`).join(', ')}`).join('; ')}.`,
    );
  }
  return lines.join('\n');
}
