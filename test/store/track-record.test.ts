// The answers kept for the track record (docs/reference/outcomes.md#track-record): kept once per case and answer, counted, and read
// back only for cases with a reported outcome under the same model_ref. Both dialects.
import { expect, it } from 'vitest';
import type { AnsweredCase, OutcomeRecord } from '../../host/store/index.ts';
import { ANSWERS_PER_INSERT, toldAnswersOf } from '../../host/store/track-record.ts';
import { describeStores, T0 } from './helpers.ts';

const REF = 'mr1_' + 'a'.repeat(32);
const OTHER = 'mr1_' + 'b'.repeat(32);

const told = (entity_id: string, over: Partial<AnsweredCase> = {}): AnsweredCase => ({
  workspace_id: 'ws_1',
  namespace: '',
  model_ref: REF,
  entity_id,
  answer_id: 'an_1',
  issued_at: T0,
  p: 0.25,
  band: null,
  level: null,
  ...over,
});

const outcome = (entity_id: string, over: Partial<OutcomeRecord> = {}): OutcomeRecord => ({
  workspace_id: 'ws_1',
  model_ref: REF,
  entity_id,
  outcome: 1,
  observed_at: T0,
  event_id: `ev_${entity_id}`,
  created_at: T0,
  ...over,
});

describeStores('answered cases kept for the track record', ({ openStore }) => {
  it('counts every kept case, and reads back only those with an outcome under the same model, in case and time order', async () => {
    const store = await openStore();
    await store.keepAnsweredCases([
      told('c2', { p: 0.125, band: 'act', level: 'unlikely' }),
      told('c1'),
      told('c3'),
      told('c1', { model_ref: OTHER }),
      told('c4'), // the first answer again, after another's row: still one answer of 4 cases
    ]);
    await store.keepAnsweredCases([told('c1', { workspace_id: 'ws_2' })]);
    await store.keepAnsweredCases([told('c1', { answer_id: 'an_0', issued_at: T0 + 5, p: 0.5 })]);
    await store.writeOutcomes([outcome('c1'), outcome('c2'), outcome('c9')]);
    const kept = await store.keptAnswers('ws_1', REF);
    expect(kept.kept).toBe(5);
    expect(kept.since).toBe(T0);
    expect(kept.withOutcome).toEqual([
      told('c1'),
      told('c1', { answer_id: 'an_0', issued_at: T0 + 5, p: 0.5 }),
      told('c2', { p: 0.125, band: 'act', level: 'unlikely' }),
    ]);
    expect(await store.keptAnswers('ws_3', REF)).toEqual({ kept: 0, since: null, withOutcome: [] });
  });

  it('keeps a case of one answer once, however often it is sent (a re-run answer adds nothing)', async () => {
    const store = await openStore();
    await store.keepAnsweredCases([told('c1')]);
    await store.keepAnsweredCases([told('c1', { p: 0.9 })]);
    expect((await store.keptAnswers('ws_1', REF)).kept).toBe(1);
  });

  it('keeps a 10,000-case answer whole, each chance exactly', async () => {
    const store = await openStore();
    const n = 10_000;
    await store.keepAnsweredCases(Array.from({ length: n }, (_, i) => told(`c${i}`, { p: i / n })));
    await store.writeOutcomes([outcome(`c${n - 1}`)]);
    const kept = await store.keptAnswers('ws_1', REF);
    expect(kept.kept).toBe(n);
    expect(kept.withOutcome.map((c) => [c.entity_id, c.p])).toEqual([[`c${n - 1}`, (n - 1) / n]]);
  });

  it('keeps a batch of many answers (more than one statement holds) in one call, each on its own', async () => {
    const store = await openStore();
    const n = ANSWERS_PER_INSERT + 5;
    await store.keepAnsweredCases(
      Array.from({ length: n }, (_, i) => told('c1', { answer_id: `an_${String(i).padStart(5, '0')}`, issued_at: T0 + i, p: i / n })),
    );
    await store.writeOutcomes([outcome('c1')]);
    const kept = await store.keptAnswers('ws_1', REF);
    expect(kept.kept).toBe(n);
    expect(kept.withOutcome.map((c) => c.p)).toEqual(Array.from({ length: n }, (_, i) => i / n));
  });

  it('accepts an empty answer', async () => {
    const store = await openStore();
    await store.keepAnsweredCases([]);
    await store.keepToldAnswers([]);
    await store.keepToldAnswers(toldAnswersOf([told('c1')]).map((a) => ({ ...a, entity_ids: [], p: [], band: [], level: [] })));
    expect((await store.keptAnswers('ws_1', REF)).kept).toBe(0);
  });

  it('keeps answers given grouped (keepToldAnswers) as it keeps their rows, one answer given in two parts as one', async () => {
    const rows = [
      told('c2', { p: 0.125, band: 'act', level: 'unlikely' }),
      told('c1', { model_ref: OTHER }),
      told('c1'),
      told('c3', { answer_id: 'an_2', issued_at: T0 + 1 }),
    ];
    const byRows = await openStore();
    await byRows.keepAnsweredCases(rows);
    const grouped = await openStore();
    const [first, ...rest] = toldAnswersOf(rows);
    const half = (a: typeof first, from: number, to: number) => ({
      ...a,
      entity_ids: a.entity_ids.slice(from, to),
      p: a.p.slice(from, to),
      band: a.band.slice(from, to),
      level: a.level.slice(from, to),
    });
    await grouped.keepToldAnswers([half(first, 0, 1), ...rest, half(first, 1, 2)]);
    for (const store of [byRows, grouped])
      await store.writeOutcomes([outcome('c1'), outcome('c2'), outcome('c3'), outcome('c1', { model_ref: OTHER })]);
    for (const ref of [REF, OTHER]) expect(await grouped.keptAnswers('ws_1', ref)).toEqual(await byRows.keptAnswers('ws_1', ref));
    expect((await grouped.keptAnswers('ws_1', REF)).kept).toBe(3);
  });
});
