// docs/reference/schedules.md#runs cadence: daily and weekly step by whole days from the first run; monthly keeps its day of the
// month, on a shorter month its last day; a missed period is skipped to the first run time after now.
import { describe, expect, it } from 'vitest';
import { daysPastNextRun, nextRunAfter, runTime } from '../../../host/operations/schedules/cadence.ts';

const at = (s: string) => Date.parse(s);
const iso = (t: number) => new Date(t).toISOString();

describe('schedule cadence', () => {
  it('daily and weekly: whole periods from the anchor', () => {
    const a = at('2025-03-01T06:00:00Z');
    expect(iso(nextRunAfter(a, 'daily', a))).toBe('2025-03-02T06:00:00.000Z');
    expect(iso(nextRunAfter(a, 'weekly', a))).toBe('2025-03-08T06:00:00.000Z');
    // a week late (the service was down): the next run is the first one after now, not the missed ones
    expect(iso(nextRunAfter(a, 'weekly', at('2025-03-16T05:00:00Z')))).toBe('2025-03-22T06:00:00.000Z');
    expect(iso(nextRunAfter(a, 'daily', at('2025-03-09T06:00:00Z')))).toBe('2025-03-10T06:00:00.000Z');
  });

  it('monthly: the same day next month, the last day of a shorter month, the day again after', () => {
    const a = at('2024-01-31T09:30:00Z');
    expect(iso(runTime(a, 'monthly', 1))).toBe('2024-02-29T09:30:00.000Z');
    expect(iso(runTime(a, 'monthly', 2))).toBe('2024-03-31T09:30:00.000Z');
    expect(iso(runTime(a, 'monthly', 3))).toBe('2024-04-30T09:30:00.000Z');
    expect(iso(runTime(a, 'monthly', 12))).toBe('2025-01-31T09:30:00.000Z');
    expect(iso(nextRunAfter(a, 'monthly', a))).toBe('2024-02-29T09:30:00.000Z');
    expect(iso(nextRunAfter(a, 'monthly', at('2024-07-15T00:00:00Z')))).toBe('2024-07-31T09:30:00.000Z');
    expect(iso(nextRunAfter(a, 'monthly', at('2026-11-30T10:00:00Z')))).toBe('2026-12-31T09:30:00.000Z');
  });

  it('a kept model lives until one day past the next run', () => {
    const now = at('2025-03-01T06:00:00Z');
    expect(daysPastNextRun(now, now + 7 * 86_400_000)).toBe(8);
    expect(daysPastNextRun(now, now + 86_400_000 + 1)).toBe(3);
  });
});
