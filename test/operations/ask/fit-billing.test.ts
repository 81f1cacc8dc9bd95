// docs/reference/limits.md#cost Cost: a chargeable fit is billed when the workspace is given it (host/operations/ask/fits.ts linked),
// not when its ask ends. An ask that fails after its fit (no case could be scored) has still given the
// workspace the model, so the fit is billed once and the next ask, a hit, bills no fit; before, neither did.
// The same rule keeps a resumed scheduled run at one fit billed (test/operations/schedules/schedule-resume.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { churnAsk, churnRows } from '../../helpers/churn.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

const usage = async (workspaceId: string) => {
  await svc.services.usage.flush();
  return svc.services.store.getMonthlyUsage(workspaceId, Date.now());
};

describe('fit billing', () => {
  it('bills an answered fit once, even when its first ask fails after fitting', async () => {
    const { key, workspaceId } = await svc.liveCaller('billing');
    const rows = churnRows({ seed: 21, rows: 1200 });
    // cases that lack every column the model uses: the fit runs and is answered, then no case can be scored
    const failed = await svc.post('/v1/ask', churnAsk(rows, {}, { cases: { rows: [{ customer_id: 'new_1' }] } }), key);
    expect(failed.status).toBe(422);
    expect(failed.body.code).toBe('row_not_scoreable');
    expect((await usage(workspaceId)).fits).toBe(1);

    const ok = await svc.post('/v1/ask', churnAsk(rows, {}, { cases: { ids: [String(rows[0].customer_id)] } }), key);
    expect(ok.status).toBe(200);
    expect(ok.body.answers.q.state).toBe('answered');
    expect(ok.body.answers.q.cache).toBe('hit');
    expect(ok.body.fits_run).toBe(0);
    expect((await usage(workspaceId)).fits).toBe(1);
  });

  it('bills no fit that was refused', async () => {
    const { key, workspaceId } = await svc.liveCaller('billing-noise');
    const rows = churnRows({ seed: 22, rows: 1200, pattern: 'noise' });
    const r = await svc.post('/v1/ask', churnAsk(rows, {}, { cases: { ids: [String(rows[0].customer_id)] } }), key);
    expect(r.status).toBe(200);
    expect(r.body.answers.q.state).toBe('refused');
    expect(r.body.fits_run).toBe(1);
    expect((await usage(workspaceId)).fits).toBe(0);
  });
});
