// docs/reference/schedules.md#runs cadence: when a schedule's runs fall. Periods count from the schedule's first run (its
// anchor), so a missed period after downtime is run once (the next time is the first one after now, not
// the one after the missed one) and a monthly run keeps its day of the month.
import type { ScheduleRecord } from '../../store/index.ts';

export type Cadence = ScheduleRecord['cadence'];

export const DAY_MS = 24 * 60 * 60 * 1000;
const PERIOD_DAYS = { daily: 1, weekly: 7 } as const;

/**
 * The `k`th run time after `anchor`. monthly: the same day of the month k months on, or the month's last day
 * when it is shorter (decision: a schedule made on the 31st runs on Feb 28/29, then on the 31st again).
 */
export function runTime(anchor: number, cadence: Cadence, k: number): number {
  if (cadence !== 'monthly') return anchor + k * PERIOD_DAYS[cadence] * DAY_MS;
  const a = new Date(anchor);
  const month = a.getUTCMonth() + k;
  const year = a.getUTCFullYear() + Math.floor(month / 12);
  const m = ((month % 12) + 12) % 12;
  const last = new Date(Date.UTC(year, m + 1, 0)).getUTCDate();
  const day = Math.min(a.getUTCDate(), last);
  return Date.UTC(year, m, day, a.getUTCHours(), a.getUTCMinutes(), a.getUTCSeconds(), a.getUTCMilliseconds());
}

/** The first run time of the schedule strictly after `now`. */
export function nextRunAfter(anchor: number, cadence: Cadence, now: number): number {
  const approxPeriod = cadence === 'monthly' ? 28 * DAY_MS : PERIOD_DAYS[cadence] * DAY_MS;
  // start at an estimate that is never past the answer, then step on
  let k = Math.max(1, Math.floor((now - anchor) / (cadence === 'monthly' ? 31 * DAY_MS : approxPeriod)));
  while (k > 1 && runTime(anchor, cadence, k - 1) > now) k--;
  while (runTime(anchor, cadence, k) <= now) k++;
  return runTime(anchor, cadence, k);
}

/** Whole days from `now` to one day past `nextRunAt` (docs/reference/schedules.md#runs: a model is kept until one day past the next run). */
export function daysPastNextRun(now: number, nextRunAt: number): number {
  return Math.max(1, Math.ceil((nextRunAt + DAY_MS - now) / DAY_MS));
}
