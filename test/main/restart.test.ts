// Determinism across restarts (issue: the service): the same ask after a restart on the same data
// directory reuses the stored fit and gives the same model_ref, p, reasons and quality.
import { describe, expect, it } from 'vitest';
import { startTestService, tempDir } from '../helpers/service.ts';
import { loadSampleCsv } from '../../samples/catalog.ts';

describe('restart', () => {
  it('gives the same answer from the stored fit after a restart', async () => {
    const dir = tempDir();
    const ask = {
      data: { csv: loadSampleCsv('saas_churn') },
      entity_column: 'customer_id',
      subject_kind: 'org',
      questions: { q: { type: 'yesno', outcome_column: 'churned' } },
      cases: { ids: ['cust_0001', 'cust_0002', 'cust_0003'] },
    };
    const first = await startTestService({ dataDir: dir });
    const key = await first.liveKey('acme');
    const a = await first.post('/v1/ask', ask, key);
    await first.close();
    const second = await startTestService({ dataDir: dir });
    const b = await second.post('/v1/ask', ask, key);
    await second.close();
    expect(a.status).toBe(200);
    expect(a.body.fits_run).toBe(1);
    expect(b.body.fits_run).toBe(0);
    expect(b.body.answers.q.cache).toBe('hit');
    const strip = (x: any) => ({ ...x, cache: undefined, verdicts: undefined });
    expect(strip(b.body.answers.q)).toEqual(strip(a.body.answers.q));
    expect(b.body.answers.q.model_ref).toBe(a.body.answers.q.model_ref);
    // billed: three answered cases each time (inline data is not a sample)
    expect(a.body.billable_decisions).toBe(3);
  });
});
