// Which rows of a row-level outcome column (series, traces: docs/reference/ask.md#shapes "outcome on each row") say yes.
import { ServiceError } from '../../errors.ts';
import type { Cell, RawTable } from '../types.ts';
import { cellText, isMissing, yesNoMeaning } from '../typing.ts';

/** 1, 0 or NaN (blank) per cell; null when the values are not a recognisable yes/no pair and none were given. */
export function yesValues(cells: readonly Cell[], positiveValues?: readonly string[]): Float64Array | null {
  let yes: Set<string>;
  if (positiveValues !== undefined) yes = new Set(positiveValues.map((v) => v.trim()));
  else {
    const meaning = yesNoMeaning([...new Set(cells)]);
    if (!meaning) return null;
    yes = new Set(meaning.positiveValues);
  }
  return Float64Array.from(cells, (c) => (isMissing(c) ? NaN : yes.has(cellText(c) as string) ? 1 : 0));
}

/**
 * The row-level outcome column: the one the question names, else the only yes/no column among
 * `candidates`; '' when there is none or more than one.
 */
export function pickOutcome(table: RawTable, candidates: readonly string[], named?: string): string {
  if (named !== undefined) return named;
  const found = candidates.filter((name) => yesValues(table.data[table.columns.indexOf(name)]) !== null);
  return found.length === 1 ? found[0] : '';
}

/**
 * Labeled and positive rows of an outcome column (0 and 0 when it cannot be read). Which values
 * mean yes is read from `source` (the input column), since the rows kept may hold only one value.
 */
export function labelCounts(
  cells: readonly Cell[] | undefined,
  source: readonly Cell[] | undefined,
  positiveValues?: readonly string[],
): { labeled: number; positives: number } {
  let labeled = 0;
  let positives = 0;
  if (!cells || !source) return { labeled, positives };
  const yes = positiveValues ?? yesNoMeaning([...new Set(source)])?.positiveValues;
  const y = yes ? yesValues(cells, yes) : null;
  if (y) for (const v of y) if (!Number.isNaN(v)) (labeled++, (positives += v));
  return { labeled, positives };
}

/** `shape_empty` (docs/reference/errors.md, field `shape`) with what the read dropped. */
export function emptyShape(kind: string, detail: string): never {
  throw new ServiceError('shape_empty', `The ${kind} read yields no usable rows: ${detail}`, { field: 'shape' });
}
