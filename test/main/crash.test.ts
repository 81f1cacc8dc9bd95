// Durable pending work (issue: datasets and durable state): a process killed with SIGKILL during a
// long fit leaves a task that the next process picks up and finishes; concurrent asks share one fit.
import { describe, expect, it } from 'vitest';
import { bigRows } from '../helpers/big-rows.ts';
import { startChildService } from '../helpers/child-service.ts';
import { startTestService, tempDir } from '../helpers/service.ts';
import { createLiveKey } from '../../host/runtime/keys.ts';
import { openSqliteStore } from '../../host/store/index.ts';

async function post(url: string, p: string, body: unknown, key: string) {
  const res = await fetch(url + p, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

describe('crash safety', () => {
  it('finishes a task after the process that started it was SIGKILLed', async () => {
    const dir = tempDir();
    const store = await openSqliteStore(dir);
    const { key } = await createLiveKey(store, { workspaceName: 'crash', now: Date.now() });
    await store.close();
    const ask = {
      data: { rows: bigRows() },
      entity_column: 'id',
      subject_kind: 'other',
      questions: { q: { type: 'yesno', outcome_column: 'y' } },
      cases: { ids: ['e1', 'e2'] },
    };

    const first = await startChildService(dir);
    const pending = await post(first.url, '/v1/ask', ask, key);
    expect(pending.status).toBe(202);
    const taskId = pending.body.task_id;
    await first.kill();

    const second = await startChildService(dir);
    let done: any;
    for (let i = 0; i < 600 && !done; i++) {
      const r = await post(second.url, '/v1/poll', { task_id: taskId }, key);
      if (r.status === 200) done = r.body;
      else {
        expect(r.status).toBe(202);
        await new Promise((res) => setTimeout(res, 100));
      }
    }
    await second.stop();
    expect(done?.status).toBe('done');
    expect(done.answers.q.state).toBe('answered');
    expect(done.answers.q.cases.map((c: any) => c.entity_id)).toEqual(['e1', 'e2']);
  });

  it('runs one fit for concurrent asks on the same record (single flight)', async () => {
    const svc = await startTestService({ pendingWaitMs: 60_000 });
    try {
      const key = await svc.liveKey('flight');
      const ask = {
        data: { rows: bigRows().slice(0, 4000) },
        entity_column: 'id',
        subject_kind: 'other',
        questions: { q: { type: 'yesno', outcome_column: 'y' } },
        cases: { ids: ['e1'] },
      };
      const replies = await Promise.all([1, 2, 3, 4].map(() => svc.post('/v1/ask', ask, key)));
      expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      expect(replies.reduce((n, r) => n + r.body.fits_run, 0)).toBe(1);
      const refs = new Set(replies.map((r) => r.body.answers.q.model_ref));
      expect(refs.size).toBe(1);
    } finally {
      await svc.close();
    }
  });
});
