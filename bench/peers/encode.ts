// Peer feature encoding, learned on the training rows only: numeric as-is (blank -> train median), categorical one-hot.
import type { Cell, TableRows } from '../datasets.ts';

export interface Encoded {
  names: string[];
  xTrain: number[][];
  xTest: number[][];
}

type Column = { kind: 'num'; name: string; median: number } | { kind: 'cat'; name: string; levels: string[] };

const MISSING_TEXT = new Set(['', 'NA', 'NaN']);

function isMissing(v: Cell | undefined): boolean {
  return v === null || v === undefined || (typeof v === 'string' && MISSING_TEXT.has(v.trim()));
}

function asNumber(v: Cell | undefined): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '') return Number(v);
  return NaN;
}

function levelOf(v: Cell | undefined): string {
  return isMissing(v) ? '(missing)' : String(v);
}

/** Types each feature column on the training rows (numeric when every present value is a finite number). */
function learnColumns(train: TableRows, features: string[]): Column[] {
  const cols: Column[] = [];
  for (const name of features) {
    const present = train.map((r) => r[name]).filter((v) => !isMissing(v));
    if (present.length === 0) continue;
    const nums = present.map((v) => (typeof v === 'boolean' ? NaN : asNumber(v)));
    if (nums.every(Number.isFinite)) {
      nums.sort((a, b) => a - b);
      const m = nums.length >> 1;
      cols.push({ kind: 'num', name, median: nums.length % 2 ? nums[m] : (nums[m - 1] + nums[m]) / 2 });
    } else {
      cols.push({ kind: 'cat', name, levels: [...new Set(train.map((r) => levelOf(r[name])))].sort() });
    }
  }
  return cols;
}

function encodeRow(row: Record<string, Cell>, cols: Column[]): number[] {
  const out: number[] = [];
  for (const c of cols) {
    if (c.kind === 'num') {
      const v = asNumber(row[c.name]);
      out.push(Number.isFinite(v) ? v : c.median);
    } else {
      const level = levelOf(row[c.name]);
      for (const l of c.levels) out.push(l === level ? 1 : 0);
    }
  }
  return out;
}

/** Encodes train and test rows with the train-only encoding; unseen test categories become all zeros. */
export function encodeFeatures(train: TableRows, test: TableRows, features: string[]): Encoded {
  const cols = learnColumns(train, features);
  const names = cols.flatMap((c) => (c.kind === 'num' ? [c.name] : c.levels.map((l) => `${c.name}=${l}`)));
  return { names, xTrain: train.map((r) => encodeRow(r, cols)), xTest: test.map((r) => encodeRow(r, cols)) };
}
