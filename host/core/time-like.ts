// Whether a model column moves with the calendar by itself, so that a lever on it is advice to wait rather than
// to act: such levers carry `lever_advisory: "time_like"` (docs/reference/ask.md#reasons,
// docs/decisions/0070-time-like-levers.md).
//
// A column is time-like when
// - its name says it counts time since something, or an age: a word `tenure` or `age`, or `since` beside a unit
//   of time (`days_since_last_event`, the clocks shaped records are given; `months_since_signup`); words are
//   split at `_`, `-`, `.`, spaces and lower-to-upper case changes (`accountAge`), so `usage` or `page_views`
//   are not; or
// - it is a category column whose every value is an ISO 8601 date or date-time (a cohort such as `2024-03`
//   is not a date; `2024-03-01` is).
import type { ModelColumn } from '../engine/model.ts';
import { parseIso8601 } from '../table/select.ts';

const UNITS = new Set([
  'second',
  'seconds',
  'minute',
  'minutes',
  'hour',
  'hours',
  'day',
  'days',
  'week',
  'weeks',
  'month',
  'months',
  'year',
  'years',
]);
const AGE_WORDS = new Set(['age', 'tenure']);

/** The lowercase words of a column name. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[\s_.-]+/)
    .filter((w) => w !== '');
}

export function isTimeLike(col: ModelColumn): boolean {
  const words = nameWords(col.name);
  if (words.some((w) => AGE_WORDS.has(w))) return true;
  if (words.includes('since') && words.some((w) => UNITS.has(w))) return true;
  if (col.kind === 'categorical' && col.dictionary && col.dictionary.length > 0) {
    return col.dictionary.every((v) => parseIso8601(v, 'extended') !== null);
  }
  return false;
}
