// Stored datasets end to end (issue: datasets and durable state): 25,000 rows in 3 pieces, an ask,
// a restart of the process, the same ask again from the stored fit.
import { describe, expect, it } from 'vitest';
import { startTestService, tempDir } from '../helpers/service.ts';

function rows(from: number, to: number): Array<Record<string, string | number>> {
  const out: Array<Record<string, string | number>> = [];
  for (let i = from; i < to; i++) {
    // deterministic per row id, so pieces can be made in any order
    const h = (i * 2654435761) % 4294967296;
    const x = h % 100;
    const c = ['a', 'b', 'c'][h % 3];
    const u = ((h >>> 8) % 1000) / 1000;
    const p = 0.1 + 0.5 * (x / 100) + (c === 'a' ? 0.2 : 0);
    out.push({ id: `row${i}`, x, c, noise: (h >>> 4) % 37, y: u < p ? 'yes' : 'no' });
  }
  return out;
}

describe('stored datasets', () => {
  it('stores 25,000 rows in 3 pieces, answers, and answers the same after a restart', async () => {
    const dir = tempDir();
    const ask = (dataset_id: string) => ({
      data: { dataset_id },
      entity_column: 'id',
      subject_kind: 'other',
      questions: { q: { type: 'yesno', outcome_column: 'y' } },
      cases: { ids: ['row1', 'row24999'] },
    });
    const first = await startTestService({ pendingWaitMs: 60_000 }, dir);
    const key = await first.liveKey('store');
    const a = await first.post('/v1/add-dataset', { rows: rows(0, 10_000) }, key);
    expect(a.status).toBe(200);
    expect(a.body.status).toBe('open');
    const id = a.body.dataset_id;
    const b = await first.post('/v1/add-dataset', { dataset_id: id, rows: rows(10_000, 20_000) }, key);
    const c = await first.post('/v1/add-dataset', { dataset_id: id, rows: rows(20_000, 25_000) }, key);
    expect(c.body.rows).toBe(25_000);
    expect(b.status).toBe(200);
    const one = await first.post('/v1/ask', ask(id), key);
    expect(one.status).toBe(200);
    expect(one.body.dataset_id).toBe(id);
    expect(one.body.record.rows).toBe(25_000);
    expect(one.body.fits_run).toBe(1);
    expect(one.body.answers.q.state).toBe('answered');
    // the first ask sealed it
    const late = await first.post('/v1/add-dataset', { dataset_id: id, rows: rows(25_000, 25_001) }, key);
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('dataset_sealed');
    await first.close();

    const second = await startTestService({ pendingWaitMs: 60_000 }, dir);
    const two = await second.post('/v1/ask', ask(id), key);
    await second.close();
    expect(two.body.fits_run).toBe(0);
    expect(two.body.answers.q.cache).toBe('hit');
    expect(two.body.answers.q.model_ref).toBe(one.body.answers.q.model_ref);
    expect(two.body.answers.q.cases).toEqual(one.body.answers.q.cases);
  });
});
