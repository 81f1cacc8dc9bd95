// Stored datasets end to end (issue: datasets and durable state): 25,000 rows in 3 pieces, an ask,
// a restart as a new process (which must read the pieces back from SQLite), the same ask again from
// the stored fit; a deleted dataset and another workspace's answer as unknown_dataset.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startChildService } from '../../helpers/child-service.ts';
import { startTestService, tempDir } from '../../helpers/service.ts';
import { createLiveKey } from '../../../host/runtime/keys.ts';
import { openSqliteStore } from '../../../host/store/index.ts';

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

const ask = (dataset_id: string, ids = ['row1', 'row24999']) => ({
  data: { dataset_id },
  entity_column: 'id',
  subject_kind: 'other',
  questions: { q: { type: 'yesno', outcome_column: 'y' } },
  cases: { ids },
});

describe('stored datasets', () => {
  it('stores 25,000 rows in 3 pieces, answers, and a new process answers the same from the stored pieces and fit', async () => {
    const dir = tempDir();
    try {
      const store = await openSqliteStore(dir);
      const { key } = await createLiveKey(store, { workspaceName: 'store', now: Date.now() });
      await store.close();
      const env = { PENDING_WAIT_MS: '60000' };

      const first = await startChildService(dir, env);
      const a = await first.post('/v1/add-dataset', { rows: rows(0, 10_000) }, key);
      expect(a.status).toBe(200);
      expect(a.body.status).toBe('open');
      const id = a.body.dataset_id;
      const b = await first.post('/v1/add-dataset', { dataset_id: id, rows: rows(10_000, 20_000) }, key);
      const c = await first.post('/v1/add-dataset', { dataset_id: id, rows: rows(20_000, 25_000) }, key);
      expect(b.status).toBe(200);
      expect(c.body.rows).toBe(25_000);
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
      expect(await first.stop()).toBe(0);

      // A new process has no parsed table in memory: the record comes from the pieces in SQLite.
      const second = await startChildService(dir, env);
      const two = await second.post('/v1/ask', ask(id), key);
      await second.stop();
      expect(two.status).toBe(200);
      expect(two.body.record).toEqual(one.body.record);
      expect(two.body.fits_run).toBe(0);
      expect(two.body.answers.q.cache).toBe('hit');
      expect(two.body.answers.q.model_ref).toBe(one.body.answers.q.model_ref);
      expect(two.body.answers.q.cases.map((x: any) => [x.entity_id, x.p])).toEqual(
        one.body.answers.q.cases.map((x: any) => [x.entity_id, x.p]),
      );
      expect(two.body.answers.q.cases).toEqual(one.body.answers.q.cases);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an ask on a deleted dataset, or on another workspace’s, is 404 unknown_dataset at data.dataset_id', async () => {
    const svc = await startTestService({ pendingWaitMs: 60_000 });
    try {
      const [mine, theirs] = [await svc.liveKey('owner'), await svc.liveKey('other')];
      const added = await svc.post('/v1/add-dataset', { rows: rows(0, 2000) }, mine);
      const id = added.body.dataset_id;
      // asked once, so this process holds its parsed table: neither refusal may be served from it
      expect((await svc.post('/v1/ask', ask(id, ['row1']), mine)).status).toBe(200);
      const other = await svc.post('/v1/ask', ask(id, ['row1']), theirs);
      expect(other.status).toBe(404);
      expect(other.body).toMatchObject({ code: 'unknown_dataset', field: 'data.dataset_id' });
      expect((await svc.post('/v1/delete-dataset', { dataset_id: id }, mine)).status).toBe(200);
      const gone = await svc.post('/v1/ask', ask(id, ['row1']), mine);
      expect(gone.status).toBe(404);
      expect(gone.body).toMatchObject({ code: 'unknown_dataset', field: 'data.dataset_id' });
      expect(gone.headers.get('content-type')).toContain('application/problem+json');
    } finally {
      await svc.close();
    }
  });
});
