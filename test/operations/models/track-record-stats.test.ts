// The arithmetic of a track record (docs/reference/outcomes.md#track-record) on records written out by hand: the observation day's
// edge, ties, a case reported twice, the decile edges and the Wilson interval's ends.
import { describe, expect, it } from 'vitest';
import type { AnsweredCase, OutcomeRecord } from '../../../host/store/index.ts';
import {
  chanceRangeOf,
  CHANCE_RANGES,
  pairCalls,
  unpairedNoteOf,
  statisticsOf,
  trackRecordOf,
  wilson95,
} from '../../../host/operations/models/track-record-stats.ts';

const DAY = 86_400_000;
const D1 = Date.UTC(2026, 2, 1);

const told = (entity_id: string, issued_at: number, p: number, answer_id = 'an_a'): AnsweredCase => ({
  workspace_id: 'ws',
  namespace: '',
  model_ref: 'mr1_x',
  entity_id,
  answer_id,
  issued_at,
  p,
  band: null,
  level: null,
});
const happened = (
  entity_id: string,
  observed_at: number,
  outcome: 0 | 1,
  created_at = observed_at,
  event_id = `e_${observed_at}`,
): OutcomeRecord => ({
  workspace_id: 'ws',
  model_ref: 'mr1_x',
  entity_id,
  outcome,
  observed_at,
  event_id,
  created_at,
});

describe('pairing', () => {
  it('an answer issued at the last millisecond of the observation day pairs; one at the next midnight does not', () => {
    const answers = [told('a', D1 + DAY - 1, 0.2), told('b', D1 + DAY, 0.3)];
    const { calls, unpaired, answeredLater } = pairCalls([happened('a', D1, 1), happened('b', D1 + 5, 1)], answers);
    expect(calls).toEqual([{ p: 0.2, band: null, level: null, happened: 1 }]);
    expect(unpaired).toBe(1);
    // b was answered, but only the day after its outcome: counted, and said so
    expect(answeredLater).toBe(1);
  });

  it('of answers issued in the same millisecond, the greater answer id; of outcomes observed at once, the later reported', () => {
    const answers = [told('a', D1, 0.1, 'an_b'), told('a', D1, 0.9, 'an_c'), told('a', D1, 0.5, 'an_a')];
    const outcomes = [happened('a', D1 + 7, 0, D1 + 9), happened('a', D1 + 7, 1, D1 + 8)];
    expect(pairCalls(outcomes, answers).calls).toEqual([{ p: 0.9, band: null, level: null, happened: 0 }]);
  });

  it('a case reported twice counts once, with its latest outcome, even when the earlier one had an answer and the latest has none', () => {
    const answers = [told('a', D1, 0.4)];
    const outcomes = [happened('a', D1, 1), happened('a', D1 - 3 * DAY, 0)];
    expect(pairCalls(outcomes, answers)).toEqual({
      calls: [{ p: 0.4, band: null, level: null, happened: 1 }],
      unpaired: 0,
      answeredLater: 0,
    });
    expect(pairCalls([happened('a', D1 - 3 * DAY, 0), happened('a', D1 - DAY, 1)], answers)).toEqual({
      calls: [],
      unpaired: 1,
      answeredLater: 1,
    });
  });

  it('says why reported cases are not calls: answered only after their outcome, or never answered', () => {
    const answers = [told('a', D1 + DAY, 0.3)];
    const { unpaired, answeredLater } = pairCalls([happened('a', D1, 1), happened('z', D1, 0), happened('y', D1, 0)], answers);
    expect({ unpaired, answeredLater }).toEqual({ unpaired: 3, answeredLater: 1 });
    expect(unpairedNoteOf(unpaired, answeredLater)).toBe(
      '1 reported case was answered under this model_ref only after the day its outcome was observed: an answer made after ' +
        'the outcome is no forecast of it, so it is not counted as calls; 2 reported cases were never answered under this ' +
        'model_ref, so there is no call to compare. Outcomes count when an answer about the case was issued by the end of the ' +
        'UTC day of its observed_at; report outcomes of cases after asking about them, with the observed_at of when the ' +
        'outcome became known.',
    );
    expect(unpairedNoteOf(0, 0)).toBeUndefined();
  });
});

describe('statistics', () => {
  it('deciles: [lower, upper), 1 in the last', () => {
    expect([0, 0.0999999, 0.1, 0.3, 0.7, 0.8999999, 0.9, 1].map((p) => CHANCE_RANGES[chanceRangeOf(p)])).toEqual([
      '0.0-0.1',
      '0.0-0.1',
      '0.1-0.2',
      '0.3-0.4',
      '0.7-0.8',
      '0.8-0.9',
      '0.9-1.0',
      '0.9-1.0',
    ]);
  });

  it('the Wilson interval of 3 in 4, 0 in 10 and 100 in 100, worked out by hand', () => {
    expect(wilson95(3, 4)).toEqual([0.300642, 0.954413]);
    expect(wilson95(0, 10)).toEqual([0, 0.277533]);
    expect(wilson95(100, 100)).toEqual([0.963007, 1]);
  });

  it('small_n below 100 calls', () => {
    const calls = (n: number) => Array.from({ length: n }, (_, i) => ({ p: 0.5, band: null, level: null, happened: (i % 2) as 0 | 1 }));
    expect(statisticsOf(calls(99)).small_n).toBe(true);
    expect(statisticsOf(calls(100))).toEqual({
      calls: 100,
      happened: 50,
      observed_rate: 0.5,
      interval_95: [0.403832, 0.596168],
      mean_chance: 0.5,
      small_n: false,
    });
  });

  it('bands in spec order, levels by mean chance, every decile listed', () => {
    const r = trackRecordOf([
      { p: 0.95, band: 'refuse', level: 'high', happened: 1 },
      { p: 0.05, band: 'act', level: 'low', happened: 0 },
      { p: 0.5, band: null, level: null, happened: 1 },
    ]);
    expect(r.by_band.map((b) => b.band)).toEqual(['act', 'refuse']);
    expect(r.by_level.map((b) => b.level)).toEqual(['low', 'high']);
    expect(r.by_chance.map((b) => [b.range, b.calls])).toEqual(
      CHANCE_RANGES.map((range, i) => [range, i === 0 || i === 5 || i === 9 ? 1 : 0]),
    );
    expect(r.overall.calls).toBe(3);
  });
});
