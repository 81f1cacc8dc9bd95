// RunningService.close() (host/main.ts) with pending work: the task runner stops, and a task still
// running is handed back to the store (not failed by the fits the closing pool kills), so the next
// service claims it at once and finishes it (docs/reference/tasks.md#pending).
import fs from 'node:fs';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../host/main.ts';
import { createLiveKey } from '../../host/runtime/keys.ts';
import { openSqliteStore } from '../../host/store/index.ts';
import { bigRows } from '../helpers/big-rows.ts';
import { tempDir } from '../helpers/service.ts';

// long enough to fit that close() comes while the fit runs
const ask = {
  data: { rows: bigRows() },
  entity_column: 'id',
  subject_kind: 'other',
  questions: { q: { type: 'yesno', outcome_column: 'y' } },
  cases: { ids: ['e1'] },
};

async function start(dir: string, lines: Array<Record<string, unknown>>): Promise<RunningService> {
  const log = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  // pendingWaitMs 0: the ask turns pending at once. A 1.2 s lease: the runner ticks every 400 ms. A
  // shorter lease lapsed on a loaded CI machine while the event loop parsed the body, and this
  // service's own runner then reclaimed its task, counting a second attempt.
  return startService(
    { port: 0, dataDir: dir, pendingWaitMs: 0, taskLeaseMs: 1200 },
    { hostname: '127.0.0.1', log, env: { ...process.env, BASE_URL: '' } },
  );
}

async function post(svc: RunningService, p: string, body: unknown, key: string) {
  const res = await fetch(svc.url + p, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

describe('close() with pending work', () => {
  it('stops the task runner and hands a running task back; the next service claims and finishes it', async () => {
    const dir = tempDir();
    try {
      const linesA: Array<Record<string, unknown>> = [];
      const a = await start(dir, linesA);
      const { key, record } = await createLiveKey(a.services.store, { workspaceName: 'close', now: Date.now() });
      const pending = await post(a, '/v1/ask', ask, key);
      expect(pending.status).toBe(202);
      const taskId = pending.body.task_id as string;
      await a.close();

      // Three runner intervals later: nothing of the closed service ran (no runner on its closed store),
      // and the task is pending again, unleased, its interrupted start not counted, not failed.
      await new Promise((r) => setTimeout(r, 1200));
      expect(linesA.filter((l) => l.msg === 'task runner' || l.msg === 'task failed')).toEqual([]);
      const store = await openSqliteStore(dir);
      try {
        expect(await store.getTask(record.workspace_id, taskId)).toMatchObject({
          status: 'pending',
          lease_owner: null,
          lease_until: null,
          attempts: 0,
          problem: null,
        });
      } finally {
        await store.close();
      }

      const linesB: Array<Record<string, unknown>> = [];
      const b = await start(dir, linesB);
      try {
        let done: { status: number; body: any } | undefined;
        for (let i = 0; i < 600 && !done; i++) {
          const r = await post(b, '/v1/poll', { task_id: taskId }, key);
          if (r.status === 200) done = r;
          else {
            expect(r.status).toBe(202);
            await new Promise((res) => setTimeout(res, 50));
          }
        }
        expect(done?.body.answers.q.state).toBe('answered');
        expect(linesB.find((l) => l.msg === 'resuming task' && l.task_id === taskId)).toMatchObject({ attempt: 1 });
      } finally {
        await b.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
