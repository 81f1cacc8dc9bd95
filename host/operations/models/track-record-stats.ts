// The arithmetic of a track record (docs/reference/outcomes.md#track-record), pure: pairing reported outcomes with the answers kept
// about their cases, and the statistics of each group of calls (observed rate, its 95% Wilson interval,
// the mean chance told, small_n).
//
// Pairing rules:
// - a case reported twice counts once: its latest outcome (latest observed_at; then the latest reported;
//   then the greater event_id, so the choice never depends on storage order);
// - that outcome is matched to the latest answer about the case issued no later than the outcome's
//   observation day (UTC: issued before the end of that day); ties in issue time go to the greater
//   answer id;
// - a case whose latest outcome has no such answer counts in outcomes_without_an_earlier_answer, and in
//   outcomes_answered_later too when the only answers about it were issued after that day (an answer made
//   after the outcome was seen is no forecast of it: docs/decisions/0077-outcomes-answered-later.md).
import type { AnsweredCase, OutcomeRecord } from '../../store/index.ts';

export const DAY_MS = 86_400_000;
/** docs/reference/outcomes.md#track-record: small_n under 100 calls. */
export const SMALL_N_BELOW = 100;
/** Two-sided 95%: the standard normal quantile at 0.975. */
export const Z_95 = 1.959963984540054;
/** Decision (docs/decisions/0016-track-record.md): by_chance ranges are deciles, [lower, upper), the last closed at 1. */
export const CHANCE_BOUNDS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9] as const;
export const CHANCE_RANGES = ['0.0-0.1', '0.1-0.2', '0.2-0.3', '0.3-0.4', '0.4-0.5', '0.5-0.6', '0.6-0.7', '0.7-0.8', '0.8-0.9', '0.9-1.0'];
/** Bands in the order docs/reference/ask.md#bands names them. */
const BAND_ORDER = ['act', 'escalate', 'refuse'];

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** One call: what a case was told, and what happened (1) or not (0). */
export interface Call {
  p: number;
  band: string | null;
  level: string | null;
  happened: 0 | 1;
}

export interface Statistics {
  calls: number;
  happened: number;
  observed_rate: number | null;
  interval_95: [number, number] | null;
  mean_chance: number | null;
  small_n: boolean;
}

function laterOutcome(a: OutcomeRecord, b: OutcomeRecord): boolean {
  if (a.observed_at !== b.observed_at) return a.observed_at > b.observed_at;
  if (a.created_at !== b.created_at) return a.created_at > b.created_at;
  return (a.event_id ?? '') > (b.event_id ?? '');
}

function laterAnswer(a: AnsweredCase, b: AnsweredCase): boolean {
  if (a.issued_at !== b.issued_at) return a.issued_at > b.issued_at;
  return a.answer_id > b.answer_id;
}

/** The end of the UTC day `at` falls in (exclusive). */
export function endOfDay(at: number): number {
  return Math.floor(at / DAY_MS) * DAY_MS + DAY_MS;
}

/** Pairs each reported case's latest outcome with the latest answer about it issued by its observation day. */
export function pairCalls(
  outcomes: readonly OutcomeRecord[],
  answers: readonly AnsweredCase[],
): { calls: Call[]; unpaired: number; answeredLater: number } {
  const latest = new Map<string, OutcomeRecord>();
  for (const o of outcomes) {
    const seen = latest.get(o.entity_id);
    if (!seen || laterOutcome(o, seen)) latest.set(o.entity_id, o);
  }
  const byCase = new Map<string, AnsweredCase[]>();
  for (const a of answers) {
    const list = byCase.get(a.entity_id);
    if (list) list.push(a);
    else byCase.set(a.entity_id, [a]);
  }
  const calls: Call[] = [];
  let unpaired = 0;
  let answeredLater = 0;
  // in case order, so the calls (and any sum over them) come out the same however the store returned them
  const cases = [...latest.keys()].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  for (const id of cases) {
    const o = latest.get(id)!;
    const by = endOfDay(o.observed_at);
    let told: AnsweredCase | null = null;
    for (const a of byCase.get(id) ?? []) {
      if (a.issued_at < by && (told === null || laterAnswer(a, told))) told = a;
    }
    if (told === null) {
      unpaired++;
      if ((byCase.get(id)?.length ?? 0) > 0) answeredLater++;
    } else calls.push({ p: told.p, band: told.band, level: told.level, happened: o.outcome });
  }
  return { calls, unpaired, answeredLater };
}

/** The 95% Wilson score interval of k successes in n trials (n > 0), rounded to 6 decimals. */
export function wilson95(k: number, n: number): [number, number] {
  const z2 = Z_95 * Z_95;
  const rate = k / n;
  const denominator = 1 + z2 / n;
  const centre = (rate + z2 / (2 * n)) / denominator;
  const half = (Z_95 / denominator) * Math.sqrt((rate * (1 - rate)) / n + z2 / (4 * n * n));
  return [round6(Math.max(0, centre - half)), round6(Math.min(1, centre + half))];
}

export function statisticsOf(calls: readonly Call[]): Statistics {
  const n = calls.length;
  let happened = 0;
  let sumP = 0;
  for (const c of calls) {
    happened += c.happened;
    sumP += c.p;
  }
  return {
    calls: n,
    happened,
    observed_rate: n > 0 ? round6(happened / n) : null,
    interval_95: n > 0 ? wilson95(happened, n) : null,
    mean_chance: n > 0 ? round6(sumP / n) : null,
    small_n: n < SMALL_N_BELOW,
  };
}

/** The decile a chance falls in (0 for [0, 0.1), ..., 9 for [0.9, 1]). */
export function chanceRangeOf(p: number): number {
  let i = 0;
  while (i < CHANCE_BOUNDS.length && p >= CHANCE_BOUNDS[i]) i++;
  return i;
}

function groupBy(calls: readonly Call[], keyOf: (c: Call) => string | null): Map<string, Call[]> {
  const groups = new Map<string, Call[]>();
  for (const c of calls) {
    const k = keyOf(c);
    if (k === null) continue;
    const list = groups.get(k);
    if (list) list.push(c);
    else groups.set(k, [c]);
  }
  return groups;
}

/**
 * overall, by_band (bands told, in spec order), by_level (levels told, lowest mean chance first) and
 * by_chance (all ten deciles, empty ones with calls 0 and null statistics).
 */
export function trackRecordOf(calls: readonly Call[]) {
  const bands = groupBy(calls, (c) => c.band);
  const levels = groupBy(calls, (c) => c.level);
  const ranges = groupBy(calls, (c) => CHANCE_RANGES[chanceRangeOf(c.p)]);
  const byBand = [...bands.keys()]
    .sort((a, b) => rank(BAND_ORDER, a) - rank(BAND_ORDER, b) || (a < b ? -1 : a > b ? 1 : 0))
    .map((band) => ({ band, ...statisticsOf(bands.get(band)!) }));
  const byLevel = [...levels.entries()]
    .map(([level, cs]) => ({ level, ...statisticsOf(cs) }))
    .sort((a, b) => a.mean_chance! - b.mean_chance! || (a.level < b.level ? -1 : a.level > b.level ? 1 : 0));
  const byChance = CHANCE_RANGES.map((range) => ({ range, ...statisticsOf(ranges.get(range) ?? []) }));
  return { overall: statisticsOf(calls), by_band: byBand, by_level: byLevel, by_chance: byChance };
}

function rank(order: readonly string[], x: string): number {
  const i = order.indexOf(x);
  return i < 0 ? order.length : i;
}

/**
 * Why reported cases are not among the calls (docs/decisions/0077-outcomes-answered-later.md), when some are not:
 * undefined when every reported case was paired.
 */
export function unpairedNoteOf(unpaired: number, answeredLater: number): string | undefined {
  if (unpaired === 0) return undefined;
  const cases = (n: number) => `${n.toLocaleString('en-US')} reported ${n === 1 ? 'case' : 'cases'}`;
  const never = unpaired - answeredLater;
  const parts: string[] = [];
  if (answeredLater > 0) {
    parts.push(
      `${cases(answeredLater)} ${answeredLater === 1 ? 'was' : 'were'} answered under this model_ref only after the day ` +
        `${answeredLater === 1 ? 'its' : 'their'} outcome was observed: an answer made after the outcome is no forecast of it, so ` +
        `${answeredLater === 1 ? 'it is' : 'they are'} not counted as calls`,
    );
  }
  if (never > 0)
    parts.push(`${cases(never)} ${never === 1 ? 'was' : 'were'} never answered under this model_ref, so there is no call to compare`);
  return (
    `${parts.join('; ')}. Outcomes count when an answer about the case was issued by the end of the UTC day of its observed_at; ` +
    'report outcomes of cases after asking about them, with the observed_at of when the outcome became known.'
  );
}
