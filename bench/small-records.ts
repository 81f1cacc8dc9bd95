// Small records (docs/decisions/0082-small-records.md): records of 20-49 rows of the rarer class, built by
// subsampling real tables at their own prevalence, fitted with permuted labels (the 1% bar) and with their real
// labels (power). Run by bench/honesty-small.ts `records`.
import { encodeTable, fitEncoded, type FitPool, type FitResult } from '../host/engine/index.ts';
import { type Dataset } from './datasets.ts';
import { subsample } from './splits.ts';
import { HONESTY_TARGET, permuteOutcome } from './honesty.ts';
import { engineInput } from './speed.ts';

/** Bands of positives a small record is built with (each band's sizes taken in turn). */
export const SMALL_BANDS: ReadonlyArray<readonly [number, number]> = [
  [20, 29],
  [30, 39],
  [40, 49],
];

/** Fits one small record (labels permuted when `permuteSeed` is given) `repeats` times with salted entity ids. */
async function fitSmall(
  ds: Dataset,
  permuteSeed: number | null,
  repeats: number,
  pool: FitPool,
): Promise<{ state: string; fits: FitResult[] }> {
  const fits: FitResult[] = [];
  for (let r = 0; r < repeats; r++) {
    const salted: Dataset =
      r === 0 ? ds : { ...ds, rows: ds.rows.map((row) => ({ ...row, [ds.entityColumn]: `${String(row[ds.entityColumn])}~${r}` })) };
    const { table, opts } = engineInput(salted);
    const outcome = permuteSeed === null ? opts.outcome : permuteOutcome(opts.outcome, permuteSeed);
    fits.push(await fitEncoded({ ...encodeTable(table, { ...opts, outcome }), outcome }, pool));
  }
  const answered = fits.filter((f) => f.state === 'answered').length;
  const state = answered * 2 > repeats ? 'answered' : fits[0].state === 'not_yet' ? 'not_yet' : 'refused';
  return { state, fits };
}

/** Tables of one kind; `commonRows` of the other class each (default: the table's prevalence). */
export interface SmallKind {
  tables: Dataset[];
  commonRows?: number;
}

const kindSeed = (kind: string) => ({ narrow: 0, wide: 10_000, rare: 20_000 })[kind] ?? 30_000;

export interface SmallCell {
  kind: string;
  table: string;
  band: string;
  fits: number;
  answered: number;
  notYet: number;
  aucs: number[];
  seeds: number[];
}

const bandOf = (p: number) => SMALL_BANDS.find(([lo, hi]) => p >= lo && p <= hi)!;
const bandName = (b: readonly [number, number]) => `${b[0]}-${b[1]}`;

/** Permuted labels: `perKind` small records per kind, split evenly over its tables and the bands' sizes. */
export async function smallHonesty(
  kinds: Record<string, SmallKind>,
  perKind: number,
  repeats: number,
  pool: FitPool,
  log: (l: string) => void,
) {
  const cells: SmallCell[] = [];
  for (const [kind, { tables, commonRows }] of Object.entries(kinds)) {
    for (const [ti, ds] of tables.entries()) {
      const count = Math.round(perKind / tables.length);
      const jobs = Array.from({ length: count }, (_, k) => {
        const minority = 20 + (k % 30);
        const seed = 70_000 + ti * 1_000 + kindSeed(kind) + k;
        return { minority, seed, run: fitSmall(subsample(ds, minority, seed, commonRows), seed, repeats, pool) };
      });
      const byBand = new Map<string, SmallCell>();
      for (const job of jobs) {
        const band = bandName(bandOf(job.minority));
        const cell = byBand.get(band) ?? { kind, table: ds.name, band, fits: 0, answered: 0, notYet: 0, aucs: [], seeds: [] };
        byBand.set(band, cell);
        const { state, fits } = await job.run;
        cell.fits++;
        if (state === 'not_yet') cell.notYet++;
        if (state === 'answered') {
          cell.answered++;
          cell.aucs.push(fits[0].quality.auc ?? NaN);
          cell.seeds.push(job.seed);
        }
      }
      cells.push(...byBand.values());
      log(`permuted ${kind} ${ds.name}: ${[...byBand.values()].map((c) => `${c.band} ${c.answered}/${c.fits}`).join(', ')}`);
    }
  }
  return cells;
}

/** Real labels: `perBand` small records per table and band (power: how often real signal is answered). */
export async function smallPower(
  kinds: Record<string, SmallKind>,
  perBand: number,
  repeats: number,
  pool: FitPool,
  log: (l: string) => void,
) {
  const cells: SmallCell[] = [];
  for (const [kind, { tables, commonRows }] of Object.entries(kinds)) {
    for (const [ti, ds] of tables.entries()) {
      for (const b of SMALL_BANDS) {
        const cell: SmallCell = { kind, table: ds.name, band: bandName(b), fits: 0, answered: 0, notYet: 0, aucs: [], seeds: [] };
        const runs = Array.from({ length: perBand }, (_, k) => {
          const minority = b[0] + (k % (b[1] - b[0] + 1));
          const seed = 90_000 + ti * 1_000 + kindSeed(kind) + b[0] * 10 + k;
          return fitSmall(subsample(ds, minority, seed, commonRows), null, repeats, pool);
        });
        for (const { state, fits } of await Promise.all(runs)) {
          cell.fits++;
          if (state === 'not_yet') cell.notYet++;
          if (state === 'answered') cell.answered++;
          cell.aucs.push(fits[0].quality.auc ?? NaN);
        }
        cells.push(cell);
        log(`real ${kind} ${ds.name} ${cell.band}: ${cell.answered}/${cell.fits} answered`);
      }
    }
  }
  return cells;
}

const median = (xs: number[]) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN;
};

export function formatSmall(permuted: SmallCell[], real: SmallCell[], repeats: number, wallS: number): string {
  const pct = (a: number, n: number) => (n ? `${((100 * a) / n).toFixed(1)}%` : '-');
  const lines = [
    `Small records, ${repeats === 1 ? 'one cross-fit each' : `answered when most of ${repeats} cross-fits with other folds answer`}; ${wallS.toFixed(0)} s.`,
    '',
    '| kind | band of positives | permuted: answered / fits | permuted: not_yet | real labels: answered / fits (power) | real: median cross-fitted AUC |',
    '|---|---|---|---|---|---|',
  ];
  for (const kind of [...new Set(permuted.map((c) => c.kind))]) {
    for (const b of SMALL_BANDS.map(bandName)) {
      const p = permuted.filter((c) => c.kind === kind && c.band === b);
      const r = real.filter((c) => c.kind === kind && c.band === b);
      const pa = p.reduce((s, c) => s + c.answered, 0),
        pn = p.reduce((s, c) => s + c.fits, 0),
        py = p.reduce((s, c) => s + c.notYet, 0);
      const ra = r.reduce((s, c) => s + c.answered, 0),
        rn = r.reduce((s, c) => s + c.fits, 0);
      lines.push(
        `| ${kind} (${[...new Set(p.map((c) => c.table))].join(', ')}) | ${b} | ${pa} / ${pn} (${pct(pa, pn)}) | ${py} | ${ra} / ${rn} (${pct(ra, rn)}) | ${median(r.flatMap((c) => c.aucs)).toFixed(3)} |`,
      );
    }
    const p = permuted.filter((c) => c.kind === kind);
    const pa = p.reduce((s, c) => s + c.answered, 0),
      pn = p.reduce((s, c) => s + c.fits, 0);
    lines.push(`| ${kind}, all bands | | ${pa} / ${pn} (${pct(pa, pn)}; ${pa / pn <= 1 - HONESTY_TARGET ? 'met' : '**missed**'}) | | | |`);
  }
  lines.push('', '| table | band | power | median AUC |', '|---|---|---|---|');
  for (const c of real) lines.push(`| ${c.table} | ${c.band} | ${c.answered} / ${c.fits} | ${median(c.aucs).toFixed(3)} |`);
  const answered = permuted.filter((c) => c.answered > 0);
  if (answered.length)
    lines.push(
      '',
      `Answered permutations (seed: cross-fitted AUC): ${answered.map((c) => `${c.table} ${c.band}: ${c.seeds.map((s, i) => `${s}: ${c.aucs[i].toFixed(3)}`).join(', ')}`).join('; ')}.`,
    );
  return lines.join('\n');
}
