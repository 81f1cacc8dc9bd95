// Which lever columns are time-like (host/core/time-like.ts, docs/decisions/0070-time-like-levers.md).
import { describe, expect, it } from 'vitest';
import { isTimeLike, nameWords } from '../../host/core/time-like.ts';

const numeric = (name: string) => isTimeLike({ name, kind: 'numeric' });
const category = (name: string, dictionary: string[]) => isTimeLike({ name, kind: 'categorical', dictionary });

describe('time-like columns', () => {
  it('splits names into words at separators and case changes', () => {
    expect(nameWords('accountAge_days')).toEqual(['account', 'age', 'days']);
    expect(nameWords('days-since.LastLogin')).toEqual(['days', 'since', 'last', 'login']);
  });

  it('counts a tenure, an age and a time since something as time-like', () => {
    for (const name of [
      'tenure_months',
      'tenure',
      'age',
      'account_age_days',
      'customerAge',
      'days_since_last_event',
      'months_since_signup',
    ])
      expect(numeric(name), name).toBe(true);
  });

  it('does not count words that only contain those letters, or units without since', () => {
    for (const name of [
      'usage',
      'page_views',
      'storage_gb',
      'logins_last_30d',
      'days_active',
      'since_flag',
      'monthly_charges',
      'tenured_staff',
    ])
      expect(numeric(name), name).toBe(false);
  });

  it('counts a category of ISO 8601 dates or date-times, not one with any other value', () => {
    expect(category('cohort', ['2024-01-01', '2024-02-01', '2024-03-01T00:00:00Z'])).toBe(true);
    expect(category('cohort', ['2024-01', '2024-02'])).toBe(false);
    expect(category('cohort', ['2024-01-01', 'unknown'])).toBe(false);
    expect(category('plan', ['basic', 'pro'])).toBe(false);
  });
});
