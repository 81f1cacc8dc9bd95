// The usage ledger counts what spec 1 "Cost" charges: answered fits and answered cases on the
// caller's own data. Refusals, not_yet and sample datasets are free and leave no charge.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLiveKey } from '../../host/operations/keys.ts';
import { loadSampleCsv } from '../../samples/catalog.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc?.close());

async function workspace(name: string) {
  const { key, workspace } = await createLiveKey(svc.services.store, { workspaceName: name, now: Date.now() });
  const usage = () => svc.services.store.getMonthlyUsage(workspace.id, Date.now());
  return { key, usage };
}

const yesno = { q: { type: 'yesno', outcome_column: 'churned' } };

describe('usage ledger', () => {
  it('an answered fit on own data is one fit and one decision per answered case; asking again adds decisions only', async () => {
    const { key, usage } = await workspace('answered');
    const body = { data: { csv: loadSampleCsv('saas_churn') }, entity_column: 'customer_id', subject_kind: 'org', questions: yesno, cases: { ids: ['cust_0001', 'cust_0002'] } };
    const first = await svc.post('/v1/ask', body, key);
    expect(first.body.answers.q.state).toBe('answered');
    expect(first.body.billable_decisions).toBe(2);
    expect(await usage()).toMatchObject({ fits: 1, decisions: 2 });
    const again = await svc.post('/v1/ask', body, key);
    expect(again.body.fits_run).toBe(0);
    expect(await usage()).toMatchObject({ fits: 1, decisions: 4 });
  });

  it('a refused fit and a not_yet fit run, but are not charged', async () => {
    const { key, usage } = await workspace('free');
    const refused = await svc.post(
      '/v1/ask',
      { data: { csv: loadSampleCsv('coin_flips') }, entity_column: 'flip_id', subject_kind: 'other', questions: { q: { type: 'rank', outcome_column: 'responded' } } },
      key,
    );
    expect(refused.status).toBe(200);
    expect(refused.body.answers.q.state).toBe('refused');
    expect(refused.body.fits_run).toBe(1);
    const rows = Array.from({ length: 40 }, (_, i) => ({ id: `r${i}`, x: i % 7, y: i % 3 === 0 ? 'yes' : 'no' }));
    const notYet = await svc.post('/v1/ask', { data: { rows }, entity_column: 'id', subject_kind: 'other', questions: { q: { type: 'rank', outcome_column: 'y' } } }, key);
    expect(notYet.body.answers.q.state).toBe('not_yet');
    expect(notYet.body.fits_run).toBe(1);
    expect(await usage()).toMatchObject({ fits: 0, decisions: 0 });
  });

  it('sample datasets are free: no fit and no decision charged', async () => {
    const { key, usage } = await workspace('samples');
    const r = await svc.post('/v1/ask', { data: { dataset_id: 'sample:saas_churn' }, entity_column: 'customer_id', subject_kind: 'org', questions: yesno, cases: { ids: ['cust_0001'] } }, key);
    expect(r.body.answers.q.state).toBe('answered');
    expect(r.body.billable_decisions).toBe(0);
    expect(await usage()).toMatchObject({ fits: 0, decisions: 0 });
  });
});
