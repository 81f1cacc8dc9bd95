// Nothing a workspace sees depends on another workspace's asks: the fit of a table another
// workspace already sent is reused, but this workspace's first ask of it is a miss with fits_run 1, bills
// a fit as if it ran, and takes as long as the fit took; its next ask is a hit. Samples are public: a
// workspace's first ask of one is a miss too (free), without the wait.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { churnAsk, churnRows } from '../../helpers/churn.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ pendingWaitMs: 120_000 });
});
afterAll(() => svc?.close());

const usage = async (workspaceId: string) => {
  await svc.services.usage.flush();
  return svc.services.store.getMonthlyUsage(workspaceId, Date.now());
};

describe("another workspace's fit", () => {
  it('is a miss with fits_run 1 and a billed fit for the first ask of each workspace, held as long as the fit took; then hits', async () => {
    const ask = churnAsk(churnRows({ seed: 21, rows: 1500 }), {}, { cases: { ids: ['c00001'] } });
    const a = await svc.liveCaller('tenant-a');
    const b = await svc.liveCaller('tenant-b');

    const first = await svc.post('/v1/ask', ask, a.key);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ fits_run: 1, answers: { q: { state: 'answered', cache: 'miss' } } });
    const modelRef = first.body.answers.q.model_ref;
    const fit = await svc.services.store.getModelByRef(a.workspaceId, modelRef);
    const fitMs = (JSON.parse(fit!.meta) as { fit_ms: number }).fit_ms;
    expect(fitMs).toBeGreaterThan(0);

    const t0 = performance.now();
    const other = await svc.post('/v1/ask', ask, b.key);
    const took = performance.now() - t0;
    expect(other.status).toBe(200);
    expect(other.body).toMatchObject({ fits_run: 1, answers: { q: { state: 'answered', cache: 'miss', model_ref: modelRef } } });
    // As long as the fit took when it ran (the computation was reused, the wait is not skipped).
    expect(took).toBeGreaterThanOrEqual(fitMs - 5);
    expect(await usage(b.workspaceId)).toMatchObject({ fits: 1, decisions: 1 });

    const again = await svc.post('/v1/ask', ask, b.key);
    expect(again.body).toMatchObject({ fits_run: 0, answers: { q: { cache: 'hit', model_ref: modelRef } } });
    expect(await usage(b.workspaceId)).toMatchObject({ fits: 1, decisions: 2 });
    // The first workspace's view never changed either.
    const mine = await svc.post('/v1/ask', ask, a.key);
    expect(mine.body).toMatchObject({ fits_run: 0, answers: { q: { cache: 'hit' } } });
    expect(await usage(a.workspaceId)).toMatchObject({ fits: 1, decisions: 2 });
  });

  it('reads the same whichever of two workspaces asks first, apart from the ids of the call', async () => {
    const ask = churnAsk(churnRows({ seed: 22, rows: 1500 }), {}, { cases: { ids: ['c00002'] } });
    const [a, b] = [await svc.liveKey(), await svc.liveKey()];
    const ra = await svc.post('/v1/ask', ask, a);
    const rb = await svc.post('/v1/ask', ask, b);
    const strip = (r: any) => {
      const copy = structuredClone(r.body);
      // when the model link expires counts from the call's own time, like the Verdicts' times
      delete copy.answers.q.model_expires_at;
      for (const v of copy.answers.q.verdicts ?? []) {
        delete v.signature;
        delete v.verdict.verdict_id;
        delete v.verdict.computed_at;
        delete v.verdict.expires_at;
      }
      return copy;
    };
    expect(strip(rb)).toEqual(strip(ra));
  });
});

describe('a sample', () => {
  it("is a miss (fits_run 1, free) on a workspace's first ask however many asked it before, then a hit", async () => {
    const ask = {
      data: { dataset_id: 'sample:saas_churn' },
      entity_column: 'customer_id',
      subject_kind: 'org',
      questions: { q: { type: 'yesno', outcome_column: 'churned' } },
      cases: { ids: ['cust_0001'] },
    };
    for (let w = 0; w < 3; w++) {
      const key = await svc.testKey();
      const first = await svc.post('/v1/ask', ask, key);
      expect(first.body).toMatchObject({ fits_run: 1, billable_decisions: 0, free: true, answers: { q: { cache: 'miss' } } });
      const second = await svc.post('/v1/ask', ask, key);
      expect(second.body).toMatchObject({ fits_run: 0, answers: { q: { cache: 'hit' } } });
    }
  });
});
