// What each column's values are, for svc_preflight (docs/reference/datasets.md#preflight "resolutions", docs/reference/datasets.md#preflight): kind, missing,
// distinct, and what makes a column ambiguous (day/month order of dates, case-only spellings); plus
// which column names the cases (the spec's preflight request has no entity_column, so it is inferred).
import type { Cell, RawTable } from '../../table/types.ts';
import { cellText, inferColumn, parseNumber, yesNoMeaning } from '../../table/typing.ts';
import { entityKey, parseTime } from '../../table/select.ts';

export type ResolutionKind = 'numeric' | 'category' | 'yesno' | 'date' | 'identifier' | 'constant' | 'empty';

export interface Ambiguity {
  why: 'day_month_order' | 'mixed_date_orders' | 'case_variants';
  examples: string[];
}

export interface Resolution {
  kind: ResolutionKind;
  missing: number;
  distinct: number;
  ambiguous?: Ambiguity;
}

/** The engine's identifier rule (host/engine/encode.ts): text columns with nearly every value distinct. */
const IDENTIFIER_DISTINCT_SHARE = 0.9;
const IDENTIFIER_MIN_VALUES = 20;
const MAX_EXAMPLES = 3;

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ].*)?$/;
const SLASHED = /^(\d{1,2})([/.-])(\d{1,2})\2(\d{2}|\d{4})(?:[ T].*)?$/;

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const days = m === 2 ? ((y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28) : [4, 6, 9, 11].includes(m) ? 30 : 31;
  return d <= days;
}

/** Dates in the column's text values: null when some value is not a date; else how the order reads. */
function readDates(texts: readonly string[]): { ambiguous?: Ambiguity } | null {
  let dayFirstOnly: string | undefined;
  let monthFirstOnly: string | undefined;
  let bothDiffer: string | undefined;
  for (const t of texts) {
    if (ISO_DATE.test(t)) {
      if (parseTime(t) === null) return null;
      continue;
    }
    const m = SLASHED.exec(t);
    if (!m) return null;
    const a = Number(m[1]);
    const b = Number(m[3]);
    const y = Number(m[4]);
    const dayFirst = validDate(y, b, a);
    const monthFirst = validDate(y, a, b);
    if (!dayFirst && !monthFirst) return null;
    if (dayFirst && !monthFirst) dayFirstOnly ??= t;
    else if (monthFirst && !dayFirst) monthFirstOnly ??= t;
    else if (a !== b) bothDiffer ??= t;
  }
  if (dayFirstOnly !== undefined && monthFirstOnly !== undefined) {
    return { ambiguous: { why: 'mixed_date_orders', examples: [dayFirstOnly, monthFirstOnly] } };
  }
  // One value that only one order accepts settles the column; otherwise 03/04/2024 is either.
  if (dayFirstOnly === undefined && monthFirstOnly === undefined && bothDiffer !== undefined) {
    return { ambiguous: { why: 'day_month_order', examples: [bothDiffer] } };
  }
  return {};
}

/** Spellings that differ only in letter case ('Yes' and 'yes'), a few groups as examples. */
function caseVariants(texts: Iterable<string>): Ambiguity | undefined {
  const groups = new Map<string, string[]>();
  for (const t of texts) {
    const k = t.toLowerCase();
    const g = groups.get(k);
    if (g) g.push(t);
    else groups.set(k, [t]);
  }
  const clashes = [...groups.values()].filter((g) => g.length > 1);
  if (clashes.length === 0) return undefined;
  return { why: 'case_variants', examples: clashes.slice(0, MAX_EXAMPLES).map((g) => g.sort().join(' / ')) };
}

export function resolveColumn(cells: readonly Cell[], isEntity: boolean): Resolution {
  const info = inferColumn(cells);
  const base = { missing: info.missing, distinct: info.distinct };
  if (info.kind === 'empty') return { kind: 'empty', ...base };
  if (isEntity) return { kind: 'identifier', ...base };
  const texts = new Set<string>();
  for (const c of cells) {
    const t = cellText(c);
    if (t !== null) texts.add(t);
  }
  const variants = info.kind === 'categorical' ? caseVariants(texts) : undefined;
  const withVariants = (r: Resolution): Resolution => (variants ? { ...r, ambiguous: variants } : r);
  if (info.distinct === 1) return withVariants({ kind: 'constant', ...base });
  if (yesNoMeaning([...texts])) return withVariants({ kind: 'yesno', ...base });
  if (info.kind === 'numeric') return { kind: 'numeric', ...base };
  const dates = readDates([...texts]);
  if (dates) return { kind: 'date', ...base, ...(dates.ambiguous ? { ambiguous: dates.ambiguous } : {}) };
  const present = cells.length - info.missing;
  if (present >= IDENTIFIER_MIN_VALUES && info.distinct >= IDENTIFIER_DISTINCT_SHARE * present) return { kind: 'identifier', ...base };
  return withVariants({ kind: 'category', ...base });
}

const ID_NAME = /(?:^id$|_id$|[a-z0-9]Id$|^ID$|_ID$)/;

/**
 * The column naming the cases: the first column named like an id (`id`, `*_id`, `customerId`), else
 * the first column whose values are all present and all distinct; null when none (each row is a case).
 */
export function inferEntityColumn(table: RawTable, skip: ReadonlySet<string>): { column: string | null; by: 'name' | 'distinct' | 'none' } {
  const candidates = table.columns.filter((c) => !skip.has(c));
  const named = candidates.find((c) => ID_NAME.test(c));
  if (named !== undefined) return { column: named, by: 'name' };
  for (const c of candidates) {
    const cells = table.data[table.columns.indexOf(c)];
    const seen = new Set<string>();
    let ok = cells.length > 0;
    for (const cell of cells) {
      const k = entityKey(cell);
      // a float column that happens to be distinct is a measurement, not a name
      if (k === null || seen.has(k) || (typeof cell !== 'string' && !Number.isInteger(parseNumber(cell)))) {
        ok = false;
        break;
      }
      seen.add(k);
    }
    if (ok) return { column: c, by: 'distinct' };
  }
  return { column: null, by: 'none' };
}

export interface Grain {
  rows: number;
  entities: number;
  rows_per_entity_max: number;
  one_row_per_entity: boolean;
  entity_column: string | null;
  entity_inferred_from: 'name' | 'distinct' | 'none';
}

/** docs/reference/datasets.md#preflight grain: whether one row is one case. */
export function grainOf(table: RawTable, entity: { column: string | null; by: Grain['entity_inferred_from'] }): Grain {
  const counts = new Map<string, number>();
  if (entity.column !== null) {
    for (const cell of table.data[table.columns.indexOf(entity.column)]) {
      const k = entityKey(cell);
      if (k !== null) counts.set(k, (counts.get(k) ?? 0) + 1);
    }
  }
  const entities = entity.column === null ? table.rowCount : counts.size;
  let max = entity.column === null ? (table.rowCount > 0 ? 1 : 0) : 0;
  for (const n of counts.values()) max = Math.max(max, n);
  return {
    rows: table.rowCount,
    entities,
    rows_per_entity_max: max,
    one_row_per_entity: max <= 1,
    entity_column: entity.column,
    entity_inferred_from: entity.by,
  };
}
