// Which rows say yes: positive_values when given, else a two-valued column whose meaning is
// recognisable (0/1, true/false, yes/no in any case); otherwise positive_values_required (spec 7).
import { ServiceError } from '../../errors.ts';
import { cellText, isMissing, yesNoMeaning } from '../../table/typing.ts';
import type { RawTable } from '../../table/types.ts';

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

function resolveOutcomeOnce(table: RawTable, column: string, positiveValues: string[] | undefined, field: string): ResolvedOutcome {
  const c = table.columns.indexOf(column);
  if (c < 0) {
    throw new ServiceError('invalid_request', `${field}.outcome_column: ${JSON.stringify(column)} is not a column of the record`, {
      field: `${field}.outcome_column`,
    });
  }
  const cells = table.data[c];
  let yes: Set<string>;
  if (positiveValues !== undefined) {
    yes = new Set(positiveValues.map((v) => v.trim()));
  } else {
    const meaning = yesNoMeaning(cells);
    if (!meaning) {
      const distinct = new Set<string>();
      for (const cell of cells) {
        const t = cellText(cell);
        if (t !== null) distinct.add(t);
        if (distinct.size > 5) break;
      }
      const seen = [...distinct]
        .slice(0, 5)
        .map((v) => JSON.stringify(v))
        .join(', ');
      throw new ServiceError(
        'positive_values_required',
        `${column} does not have two recognisable yes/no values (seen: ${seen || 'none'}); say which values mean yes`,
        { field: `${field}.positive_values` },
      );
    }
    yes = new Set(meaning.positiveValues);
  }
  const values = new Float64Array(table.rowCount);
  for (let r = 0; r < table.rowCount; r++) {
    const cell = cells[r];
    if (isMissing(cell)) values[r] = NaN;
    else values[r] = yes.has(cellText(cell)!) ? 1 : 0;
  }
  return { column, values, positiveValues: [...yes].sort() };
}
