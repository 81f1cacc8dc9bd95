// Admission control (docs/guides/overload.md, host/runtime/admission.ts) over real HTTP, with one task thread: past a
// workspace's share of tasks an ask is 429 workspace_busy, past the queue of waiting tasks 503 server_busy,
// both with Retry-After and retry_after_ms; work that waits is a pending task in the store (not a request
// held in memory) that the runner starts once the thread is free; asks whose fits exist are never refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bigRows } from '../helpers/big-rows.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ fitWorkers: 1, workspaceTasksMax: 2, taskQueueMax: 1, pendingWaitMs: 0 });
});
afterAll(() => svc?.close());

const base = bigRows().slice(0, 5000);
/** A cold ask: a 5,000-row table with one cell changed, so each `n` is a record of its own (its own fit). */
const coldAsk = (n: number) => ({
  data: { rows: base.map((r, i) => (i === 0 ? { ...r, x0: 1000 + n } : r)) },
  entity_column: 'id',
  subject_kind: 'other',
  questions: { q: { type: 'yesno', outcome_column: 'y' } },
  cases: { ids: ['e1'] },
});

async function untilDone(taskId: string, key: string): Promise<any> {
  for (let i = 0; i < 2400; i++) {
    const r = await svc.post('/v1/poll', { task_id: taskId }, key);
    if (r.status !== 202) return r;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`task ${taskId} did not finish`);
}

function expectBusy(r: { status: number; body: any; headers: Headers }, status: number, code: string): void {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body.code).toBe(code);
  expect(r.body.retry_after_ms).toBeGreaterThan(0);
  expect(Number(r.headers.get('retry-after'))).toBe(Math.ceil(r.body.retry_after_ms / 1000));
  expect(r.body.remedy).toMatch(/svc_poll|Retry-After/);
}

describe('admission of cold asks', () => {
  it('runs one, queues one in the store, refuses the workspace past its share (429) and the queue past its bound (503)', async () => {
    const a = await svc.liveCaller('adm-a');
    const b = await svc.liveCaller('adm-b');
    // b has a fit before the load: a sample it asked once (its first ask there may be a task).
    const sample = { data: { dataset_id: 'sample:saas_churn' }, entity_column: 'customer_id', subject_kind: 'org' };
    const sampleAsk = { ...sample, questions: { q: { type: 'yesno', outcome_column: 'churned' } }, cases: { ids: ['cust_0001'] } };
    const warm = await svc.post('/v1/ask', sampleAsk, b.key);
    if (warm.status === 202) expect((await untilDone(warm.body.task_id, b.key)).status).toBe(200);
    else expect(warm.status).toBe(200);

    const first = await svc.post('/v1/ask', coldAsk(1), a.key);
    const second = await svc.post('/v1/ask', coldAsk(2), a.key);
    expect([first.status, second.status]).toEqual([202, 202]);
    // The second waits as a pending task with its request in the store, not in this process's memory.
    const queued = await svc.services.store.getTask(a.workspaceId, second.body.task_id);
    expect(queued).toMatchObject({ status: 'pending', lease_owner: null });
    expect(JSON.parse(queued!.request).body.data.rows).toHaveLength(5000);

    expectBusy(await svc.post('/v1/ask', coldAsk(3), a.key), 429, 'workspace_busy');
    expectBusy(await svc.post('/v1/ask', coldAsk(4), b.key), 503, 'server_busy');
    expect(await svc.services.store.countUnfinishedTasks(b.workspaceId)).toEqual({ pending: 1, workspace: 0 });

    // Meanwhile an ask whose fit b already has is answered at once, on the request thread: no task.
    const cached = await svc.post('/v1/ask', sampleAsk, b.key);
    expect(cached.status).toBe(200);
    expect(cached.body.fits_run).toBe(0);

    // Both of a's tasks finish, the queued one on the thread the first frees.
    for (const r of [first, second]) {
      const done = await untilDone(r.body.task_id, a.key);
      expect(done.status).toBe(200);
      expect(done.body.answers.q.state).toBe('answered');
    }
    expect(await svc.services.store.countUnfinishedTasks(a.workspaceId)).toEqual({ pending: 0, workspace: 0 });
    // Once there is room, the refused asks go through.
    const again = await svc.post('/v1/ask', coldAsk(4), b.key);
    expect([200, 202]).toContain(again.status);
    if (again.status === 202) expect((await untilDone(again.body.task_id, b.key)).status).toBe(200);
  });
});

describe('the body budget', () => {
  it('refuses a body past BODY_MEMORY_MB while others are held (503 server_busy), never one alone', async () => {
    const small = await startTestService({ bodyMemoryBytes: 1024 * 1024 });
    try {
      const key = await small.liveKey();
      const held = small.services.admission.reserveBody();
      held.grow(900 * 1024); // another request's body, still being worked on
      const r = await small.post('/v1/add-dataset', { rows: base.slice(0, 2000) }, key);
      expectBusy(r, 503, 'server_busy');
      expect(r.headers.get('connection')).toBe('close');
      held.release();
      const alone = await small.post('/v1/add-dataset', { rows: base.slice(0, 2000) }, key);
      expect(alone.status).toBe(200);
      expect(small.services.admission.heldBodyBytes).toBe(0);
    } finally {
      await small.close();
    }
  });
});
