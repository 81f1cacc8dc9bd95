// Which rows say yes: positive_values when given, else a two-valued column whose meaning is
// recognisable (0/1, true/false, yes/no in any case); otherwise positive_values_required (docs/reference/errors.md).
import { ServiceError } from '../errors.ts';
import { cellText, isMissing, parseNumber, yesNoMeaning } from '../table/typing.ts';
import type { RawTable } from '../table/types.ts';
import { didYouMean, listColumns } from './columns.ts';

export interface ResolvedOutcome {
  column: string;
  values: Float64Array; // 1, 0, NaN (unlabeled)
  /** The spellings that mean yes (sorted), part of the fit key. */
  positiveValues: string[];
}

// Resolved outcomes of cached tables (samples, sealed datasets) are kept with the table object.
const resolvedByTable = new WeakMap<RawTable, Map<string, ResolvedOutcome>>();

export function resolveOutcome(table: RawTable, column: string, positiveValues: string[] | undefined, field: string): ResolvedOutcome {
  const key = JSON.stringify([column, positiveValues ?? null]);
  let perTable = resolvedByTable.get(table);
  const hit = perTable?.get(key);
  if (hit) return hit;
  const out = resolveOutcomeOnce(table, column, positiveValues, field);
  if (!perTable) {
    perTable = new Map();
    resolvedByTable.set(table, perTable);
  }
  perTable.set(key, out);
  return out;
}

/**
 * `positive_values` as the column spells them (docs/reference/ask.md): a string is kept; a number stands for
 * every value of the column equal to it as a number (`2` for "2" or "2.0"), or for its own text when none is,
 * so the refusal below names it. Answers and Verdicts then show the column's own spellings.
 */
export function spellPositives(table: RawTable, column: string, given: ReadonlyArray<string | number> | undefined): string[] | undefined {
  if (given === undefined || given.every((g) => typeof g === 'string')) return given as string[] | undefined;
  const c = table.columns.indexOf(column);
  const spellings = new Map<number, Set<string>>();
  if (c >= 0) {
    for (const cell of table.data[c]) {
      const x = parseNumber(cell);
      const t = cellText(cell);
      if (x === null || t === null) continue;
      let set = spellings.get(x);
      if (!set) spellings.set(x, (set = new Set()));
      set.add(t);
    }
  }
  return given.flatMap((g) => (typeof g === 'string' ? [g] : [...(spellings.get(g) ?? [String(g)])]));
}

/** The distinct non-missing values of a column, first seen first, at most `cap` of them. */
function distinctValues(cells: readonly unknown[], cap: number): { values: string[]; more: boolean } {
  const seen = new Set<string>();
  let last: unknown = undefined;
  for (let r = 0; r < cells.length; r++) {
    const cell = cells[r];
    // a cell equal to the one before has been seen (a CSV's repeated fields are one string, csv.ts)
    if (r > 0 && cell === last) continue;
    last = cell;
    const t = cellText(cell);
    if (t === null || seen.has(t)) continue;
    if (seen.size === cap) return { values: [...seen], more: true };
    seen.add(t);
  }
  return { values: [...seen], more: false };
}

const quoteAll = (values: readonly string[]) => values.map((v) => JSON.stringify(v)).join(', ');

function resolveOutcomeOnce(table: RawTable, column: string, positiveValues: string[] | undefined, field: string): ResolvedOutcome {
  const c = table.columns.indexOf(column);
  if (c < 0) {
    throw new ServiceError(
      'invalid_request',
      `${field}.outcome_column: ${JSON.stringify(column)} is not a column of the record (${listColumns(table.columns)})${didYouMean(column, table.columns)}`,
      { field: `${field}.outcome_column`, remedy: 'Name the yes/no column of the record, spelled exactly as in its header.' },
    );
  }
  const cells = table.data[c];
  const { values: distinct, more } = distinctValues(cells, 20);
  if (distinct.length < 2) {
    // docs/reference/ask.md#questions: a yes/no outcome needs rows of both kinds; naming which value means yes cannot fix one value
    const what = distinct.length === 0 ? 'has no values (every row is blank)' : `has only one value, ${JSON.stringify(distinct[0])}`;
    throw new ServiceError('outcome_one_value', `${field}.outcome_column: ${column} ${what}; a yes/no outcome needs rows of both kinds`, {
      field: `${field}.outcome_column`,
    });
  }
  let yes: Set<string>;
  if (positiveValues !== undefined) {
    yes = new Set(positiveValues.map((v) => v.trim()));
    const present = new Set(distinct);
    const matched = [...yes].filter((v) => present.has(v) || (more && cells.some((cell) => cellText(cell) === v)));
    const shown = `${quoteAll(distinct)}${more ? ', ...' : ''}`;
    if (matched.length === 0) {
      const hints = [...yes].flatMap((v) =>
        distinct.filter((d) => d.toLowerCase() === v.toLowerCase() && d !== v).map((d) => `${JSON.stringify(v)} -> ${JSON.stringify(d)}`),
      );
      throw new ServiceError(
        'invalid_request',
        `${field}.positive_values: ${column} never has ${quoteAll([...yes])} (its values: ${shown})${hints.length > 0 ? `; values are matched exactly, case included: ${hints.join(', ')}` : ''}`,
        {
          field: `${field}.positive_values`,
          remedy: `List the values of ${column} that mean yes, spelled exactly as the column has them, or omit positive_values for a yes/no, true/false or 1/0 column.`,
        },
      );
    }
    if (!more && distinct.every((d) => yes.has(d))) {
      throw new ServiceError(
        'invalid_request',
        `${field}.positive_values: every value of ${column} (${shown}) is listed as yes, so no row would be a no`,
        { field: `${field}.positive_values`, remedy: `List only the values of ${column} that mean yes; the others are read as no.` },
      );
    }
  } else {
    // its meaning depends only on the distinct cells (as the other callers pass them): a million cells are read once
    const meaning = yesNoMeaning([...new Set(cells)]);
    if (!meaning) {
      throw new ServiceError(
        'positive_values_required',
        `${column} does not have two recognisable yes/no values (seen: ${quoteAll(distinct.slice(0, 8))}${distinct.length > 8 || more ? ', ...' : ''}); say which values mean yes`,
        { field: `${field}.positive_values` },
      );
    }
    yes = new Set(meaning.positiveValues);
  }
  const values = new Float64Array(table.rowCount);
  // a cell equal to the one before reads the same (a CSV's repeated fields are one string, csv.ts)
  let last: unknown = undefined;
  let lastValue = NaN;
  for (let r = 0; r < table.rowCount; r++) {
    const cell = cells[r];
    if (cell !== last || r === 0) {
      last = cell;
      lastValue = isMissing(cell) ? NaN : yes.has(cellText(cell)!) ? 1 : 0;
    }
    values[r] = lastValue;
  }
  return { column, values, positiveValues: [...yes].sort() };
}
