// The usage ledger counts what docs/reference/limits.md#cost charges: answered fits and answered cases on the
// caller's own data. Refusals, not_yet and sample datasets are free and leave no charge.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLiveKey } from '../../host/runtime/keys.ts';
import { loadSampleCsv } from '../../samples/catalog.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc?.close());

async function workspace(name: string) {
  const { key, workspace } = await createLiveKey(svc.services.store, { workspaceName: name, now: Date.now() });
  const usage = async () => {
    await svc.services.usage.flush(); // the meter writes once a second; read what this call counted
    return svc.services.store.getMonthlyUsage(workspace.id, Date.now());
  };
  return { key, usage };
}

const yesno = { q: { type: 'yesno', outcome_column: 'churned' } };

describe('usage ledger', () => {
  it('an answered fit on own data is one fit and one decision per answered case; asking again adds decisions only', async () => {
    const { key, usage } = await workspace('answered');
    const body = {
      data: { csv: loadSampleCsv('saas_churn') },
      entity_column: 'customer_id',
      subject_kind: 'org',
      questions: yesno,
      cases: { ids: ['cust_0001', 'cust_0002'] },
    };
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
      {
        data: { csv: loadSampleCsv('coin_flips') },
        entity_column: 'flip_id',
        subject_kind: 'other',
        questions: { q: { type: 'rank', outcome_column: 'responded' } },
      },
      key,
    );
    expect(refused.status).toBe(200);
    expect(refused.body.answers.q.state).toBe('refused');
    expect(refused.body.fits_run).toBe(1);
    const rows = Array.from({ length: 40 }, (_, i) => ({ id: `r${i}`, x: i % 7, y: i % 3 === 0 ? 'yes' : 'no' }));
    const notYet = await svc.post(
      '/v1/ask',
      { data: { rows }, entity_column: 'id', subject_kind: 'other', questions: { q: { type: 'rank', outcome_column: 'y' } } },
      key,
    );
    expect(notYet.body.answers.q.state).toBe('not_yet');
    expect(notYet.body.fits_run).toBe(1);
    expect(await usage()).toMatchObject({ fits: 0, decisions: 0 });
  });

  it('sample datasets are free: no fit and no decision charged', async () => {
    const { key, usage } = await workspace('samples');
    const r = await svc.post(
      '/v1/ask',
      {
        data: { dataset_id: 'sample:saas_churn' },
        entity_column: 'customer_id',
        subject_kind: 'org',
        questions: yesno,
        cases: { ids: ['cust_0001'] },
      },
      key,
    );
    expect(r.body.answers.q.state).toBe('answered');
    expect(r.body.billable_decisions).toBe(0);
    expect(await usage()).toMatchObject({ fits: 0, decisions: 0 });
  });
});

describe('the usage meter', () => {
  it('writes one row per workspace, kind and month; keeps counts a failed write could not store; writes the rest on close', async () => {
    const { UsageMeter } = await import('../../host/runtime/usage-meter.ts');
    const rows: Array<{ workspace_id: string; kind: string; count: number; at: number }> = [];
    let failNext = false;
    const store = {
      async recordUsage(e: (typeof rows)[number]) {
        if (failNext) {
          failNext = false;
          throw new Error('disk full');
        }
        rows.push({ ...e });
      },
    } as unknown as ConstructorParameters<typeof UsageMeter>[0];
    const errors: unknown[] = [];
    const meter = new UsageMeter(store, (e) => errors.push(e), 60_000);
    const jan31 = Date.UTC(2026, 0, 31, 23, 59, 59);
    const feb1 = Date.UTC(2026, 1, 1, 0, 0, 1);
    meter.add('ws', 'decision', 2, jan31);
    meter.add('ws', 'decision', 3, jan31 - 1000);
    meter.add('ws', 'decision', 5, feb1);
    meter.add('ws', 'fit', 1, feb1);
    meter.add('other', 'decision', 7, feb1);
    meter.add('ws', 'fit', 0, feb1); // nothing to count
    meter.add('ws', 'decision', 6, feb1, 'acme'); // docs/reference/ask.md#namespace: a namespace is metered apart
    await meter.flush();
    expect(rows).toEqual([
      { workspace_id: 'ws', namespace: '', kind: 'decision', count: 5, at: jan31 },
      { workspace_id: 'ws', namespace: '', kind: 'decision', count: 5, at: feb1 },
      { workspace_id: 'ws', namespace: '', kind: 'fit', count: 1, at: feb1 },
      { workspace_id: 'other', namespace: '', kind: 'decision', count: 7, at: feb1 },
      { workspace_id: 'ws', namespace: 'acme', kind: 'decision', count: 6, at: feb1 },
    ]);
    rows.length = 0;
    meter.add('ws', 'decision', 4, feb1);
    failNext = true;
    await meter.flush();
    expect(rows).toEqual([]);
    expect(errors).toHaveLength(1);
    meter.add('ws', 'decision', 1, feb1);
    await meter.close();
    expect(rows).toEqual([{ workspace_id: 'ws', namespace: '', kind: 'decision', count: 5, at: feb1 }]);
  });

  it('a service that stops writes the counts it still held', async () => {
    const { tempDir } = await import('../helpers/service.ts');
    const dir = tempDir();
    const first = await startTestService({ dataDir: dir });
    const { key, workspace } = await createLiveKey(first.services.store, { workspaceName: 'close', now: Date.now() });
    const r = await first.post(
      '/v1/ask',
      {
        data: { csv: loadSampleCsv('saas_churn') },
        entity_column: 'customer_id',
        subject_kind: 'org',
        questions: yesno,
        cases: { ids: ['cust_0001', 'cust_0002', 'cust_0003'] },
      },
      key,
    );
    expect(r.body.billable_decisions).toBe(3);
    await first.close(); // no flush before: close writes them
    const second = await startTestService({ dataDir: dir });
    try {
      expect(await second.services.store.getMonthlyUsage(workspace.id, Date.now())).toMatchObject({ fits: 1, decisions: 3 });
    } finally {
      await second.close();
    }
  });
});
