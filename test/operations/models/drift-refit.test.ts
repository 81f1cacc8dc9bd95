// svc_drift's contract 1.1 fields (docs/reference/outcomes.md#drift): refit_quality from both fits' held-out top-decile lift,
// keep_model_ref, note_code and note; a worse refit gives keep; an earlier model that can no longer serve is
// not kept. The rules on quality figures written out here, then over real HTTP with the real wasm.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Quality } from '../../../host/engine/index.ts';
import { refitQualityOf, settleRefit, type RefitFacts } from '../../../host/operations/models/drift-refit.ts';
import { churnAsk, churnRows } from '../../helpers/churn.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';

const quality = (top_decile_lift: number | null, held_out_positives = 40): Quality => ({
  validation_scheme: 'entity_hash',
  folds: 1,
  auc: 0.8,
  auc_interval: [0.75, 0.85],
  top_decile_lift,
  realised_lift: null,
  brier: 0.1,
  log_loss: 0.3,
  base_rate: 0.2,
  training_rows: 1000,
  held_out_rows: 300,
  held_out_positives,
  excluded_columns: [],
});

const facts = (over: Partial<RefitFacts> = {}): RefitFacts => ({
  newRef: 'mr1_new',
  newAnswered: true,
  newQuality: quality(2),
  priorRef: 'mr1_old',
  priorQuality: quality(2),
  priorHolds: true,
  priorUnusable: null,
  ...over,
});

describe('refit_quality', () => {
  it.each([
    [1.39, 2, 'worse'],
    [1.4, 2, 'similar'],
    [2.6, 2, 'similar'],
    [2.61, 2, 'better'],
  ] as const)('a refit lift of %s against %s is %s', (now, before, expected) => {
    expect(refitQualityOf(quality(now), quality(before))).toBe(expected);
  });

  it('is not_comparable when a held-out part has under 20 positives, a lift is missing, or the earlier model is gone', () => {
    expect(refitQualityOf(quality(3, 19), quality(2))).toBe('not_comparable');
    expect(refitQualityOf(quality(3), quality(2, 19))).toBe('not_comparable');
    expect(refitQualityOf(quality(3, 20), quality(2, 20))).toBe('better');
    expect(refitQualityOf(quality(null), quality(2))).toBe('not_comparable');
    expect(refitQualityOf(quality(2), null)).toBe('not_comparable');
    expect(refitQualityOf(quality(2), quality(0))).toBe('not_comparable');
  });
});

describe('refit_quality beside new_better', () => {
  it('is never better beside new_better false: similar, with the note saying why', () => {
    const s = settleRefit('keep', facts({ newQuality: quality(3), priorQuality: quality(2), newBetter: false }));
    expect(s.refit_quality).toBe('similar');
    expect(s.note_code).toBe('lift_not_confirmed');
    expect(s.note).toMatch(/does not rank clearly better \(new_better false\)/);
    expect(settleRefit('refit', facts({ newQuality: quality(3), priorQuality: quality(2), newBetter: true })).refit_quality).toBe('better');
    expect(settleRefit('refit', facts({ newQuality: quality(3), priorQuality: quality(2), newBetter: null })).refit_quality).toBe('better');
  });
});

describe('settling the recommendation', () => {
  it('keeps the comparison when nothing stands against it: keep names the earlier model, refit the new one, abandon none', () => {
    expect(settleRefit('keep', facts())).toEqual({
      recommendation: 'keep',
      refit_quality: 'similar',
      keep_model_ref: 'mr1_old',
      note_code: null,
      note: null,
    });
    expect(settleRefit('refit', facts()).keep_model_ref).toBe('mr1_new');
    expect(settleRefit('abandon', facts({ newAnswered: false })).keep_model_ref).toBeNull();
  });

  it('a worse refit gives keep while the earlier model holds (or was not judged)', () => {
    for (const priorHolds of [true, null]) {
      const s = settleRefit('refit', facts({ newQuality: quality(1), priorHolds }));
      expect(s).toMatchObject({ recommendation: 'keep', refit_quality: 'worse', keep_model_ref: 'mr1_old', note_code: 'refit_worse' });
      expect(s.note).toMatch(/under 0.7x/);
    }
  });

  it('a worse refit stays refit when the earlier model no longer beats chance on the new rows, with the note', () => {
    const s = settleRefit('refit', facts({ newQuality: quality(1), priorHolds: false }));
    expect(s).toMatchObject({ recommendation: 'refit', refit_quality: 'worse', keep_model_ref: 'mr1_new', note_code: 'refit_worse' });
  });

  it('an earlier model that cannot serve is never kept: refit when the refit answered, else abandon', () => {
    for (const why of ['deleted', 'expired', 'gone', 'never_answered'] as const) {
      expect(settleRefit('keep', facts({ priorUnusable: why }))).toMatchObject({
        recommendation: 'refit',
        keep_model_ref: 'mr1_new',
        note_code: 'prior_unusable',
      });
      expect(settleRefit('keep', facts({ priorUnusable: why, newAnswered: false }))).toMatchObject({
        recommendation: 'abandon',
        keep_model_ref: null,
        note_code: 'prior_unusable',
      });
    }
    expect(settleRefit('keep', facts({ priorUnusable: 'deleted' })).refit_quality).toBe('not_comparable');
    // an expired model's quality is still known
    expect(settleRefit('keep', facts({ priorUnusable: 'expired' })).refit_quality).toBe('similar');
  });
});

describe('over HTTP', () => {
  let svc: TestService;
  let key: string;
  let baseRef: string;

  const ask = async (rows: Array<Record<string, unknown>>, refitOf?: string) => {
    const r = await svc.post(
      '/v1/ask',
      churnAsk(rows, { outcome_is_desirable: false, ...(refitOf ? { refit_of: refitOf } : {}) }, { cases: { ids: ['c00001'] } }),
      key,
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.answers.q;
  };
  /** svc_drift's body without its watch_url (docs/reference/outcomes.md#watch, test/operations/tasks/model-watch.test.ts). */
  const driftOf = async (modelRef: string) => {
    const { watch_url, ...body } = (await svc.post('/v1/drift', { model_ref: modelRef }, key)).body;
    expect(watch_url).toMatch(/\/watch\//);
    return body;
  };

  beforeAll(async () => {
    svc = await startTestService({}, { manualClock: true });
    ({ key } = await svc.liveCaller('drift-refit', true));
    baseRef = (await ask(churnRows({ seed: 7, rows: 1500 }))).model_ref;
  });
  afterAll(() => svc?.close());

  it('fresh rows of the same process: keep, the earlier model_ref to serve, lifts compared', async () => {
    const a = await ask(churnRows({ seed: 8, rows: 1500 }), baseRef);
    expect(a.drift).toMatchObject({ pattern: 'unchanged', recommendation: 'keep', keep_model_ref: baseRef, note_code: null, note: null });
    // both fits' held-out top-decile lift are within 0.7x-1.3x of each other (the same process)
    expect(a.drift.refit_quality).toBe('similar');
    expect(await driftOf(a.model_ref)).toEqual(a.drift);
  });

  it('a replaced pattern: refit, the new model_ref to serve', async () => {
    const a = await ask(churnRows({ seed: 9, rows: 1500, pattern: 'replaced' }), baseRef);
    expect(a.drift).toMatchObject({ pattern: 'changed', recommendation: 'refit', keep_model_ref: a.model_ref });
  });

  it('nothing holds any more: abandon, nothing to serve', async () => {
    const a = await ask(churnRows({ seed: 11, rows: 1500, pattern: 'noise' }), baseRef);
    expect(a.drift).toMatchObject({ pattern: 'changed', recommendation: 'abandon', keep_model_ref: null });
  });

  it('once the earlier model is deleted, a keep becomes refit with prior_unusable, and its lift is not_comparable', async () => {
    const prior = (await ask(churnRows({ seed: 21, rows: 1500 }))).model_ref;
    const a = await ask(churnRows({ seed: 22, rows: 1500 }), prior);
    expect(a.drift).toMatchObject({ recommendation: 'keep', keep_model_ref: prior });
    expect((await svc.post('/v1/delete-model', { model_ref: prior }, key)).status).toBe(200);
    const d = await driftOf(a.model_ref);
    expect(d).toMatchObject({
      pattern: 'unchanged',
      recommendation: 'refit',
      refit_quality: 'not_comparable',
      keep_model_ref: a.model_ref,
      note_code: 'prior_unusable',
    });
    expect(d.note).toMatch(/was deleted/);
    expect(d.report.compared_recommendation).toBe('keep');
  });

  it('once the earlier model has expired, it is not kept either', async () => {
    const prior = (
      await svc.post(
        '/v1/ask',
        { ...churnAsk(churnRows({ seed: 23, rows: 1500 }), {}, { cases: { ids: ['c00001'] } }), model_ttl_days: 1 },
        key,
      )
    ).body.answers.q.model_ref;
    const r = await svc.post(
      '/v1/ask',
      churnAsk(churnRows({ seed: 24, rows: 1500 }), { refit_of: prior }, { cases: { ids: ['c00001'] } }),
      key,
    );
    const a = r.body.answers.q;
    expect(a.drift).toMatchObject({ recommendation: 'keep', keep_model_ref: prior });
    svc.clock.now += 2 * 86_400_000;
    expect(await driftOf(a.model_ref)).toMatchObject({ recommendation: 'refit', keep_model_ref: a.model_ref, note_code: 'prior_unusable' });
  });

  it('bad input names its field', async () => {
    for (const [body, field] of [
      [{}, 'model_ref'],
      [{ model_ref: 'mr1_' + '0'.repeat(32), namespace: 'BAD' }, 'namespace'],
      [{ model_ref: 'mr1_' + '0'.repeat(32), refit_quality: 'worse' }, 'refit_quality'],
    ] as const) {
      const r = await svc.post('/v1/drift', body, key);
      expect(r.status).toBe(422);
      expect(r.body).toMatchObject({ code: 'invalid_request', field });
    }
  });
});
