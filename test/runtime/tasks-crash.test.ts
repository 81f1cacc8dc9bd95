// Pending work across real process deaths (docs/reference/tasks.md#pending,
// "Idempotency"): an idempotency_key whose first call was SIGKILLed is taken over by the retry; a
// retry after a kill once pending points at the same task; a task whose process dies at every start
// is given up after 3 starts with a problem that poll and the retry both return.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bigRows } from '../helpers/big-rows.ts';
import { startChildService } from '../helpers/child-service.ts';
import { tempDir } from '../helpers/service.ts';
import { createLiveKey } from '../../host/runtime/keys.ts';
import { MAX_TASK_ATTEMPTS } from '../../host/runtime/tasks.ts';
import { openSqliteStore, type Store } from '../../host/store/index.ts';

const ROWS = bigRows();
const ask = (idempotency_key: string) => ({
  data: { rows: ROWS },
  entity_column: 'id',
  subject_kind: 'other',
  questions: { q: { type: 'yesno', outcome_column: 'y' } },
  cases: { ids: ['e1', 'e2'] },
  idempotency_key,
});

async function setup(): Promise<{ dir: string; key: string; workspaceId: string }> {
  const dir = tempDir();
  const store = await openSqliteStore(dir);
  const { key, record } = await createLiveKey(store, { workspaceName: 'pending-crash', now: Date.now() });
  await store.close();
  return { dir, key, workspaceId: record.workspace_id };
}

/** Reads the store file from this (test) process while the services write it (WAL). */
async function withStore<T>(dir: string, fn: (s: Store) => Promise<T>): Promise<T> {
  const store = await openSqliteStore(dir);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('idempotency keys and tasks across SIGKILL', () => {
  it('a retry with the key of a call killed before it replied runs the call (no 60 s wait, no 503), then replays it', async () => {
    const { dir, key, workspaceId } = await setup();
    try {
      // A long pending wait: the first call never replies before the kill. Its key's record is in flight
      // (0) until the fit's task is made, then points at that task (202): the kill may land in either, as a
      // crash can (which one is a race: both are checked), and the retry must run or finish the call either way.
      const env = { PENDING_WAIT_MS: '120000', TASK_LEASE_MS: '1500' };
      const first = await startChildService(dir, env);
      const lost = first.post('/v1/ask', ask('crash-1'), key).catch((err: unknown) => err);
      await until('the key recorded', () =>
        withStore(dir, async (s) => [0, 202].includes((await s.getIdempotency(workspaceId, 'svc_ask', 'crash-1'))?.status_code ?? -1)),
      );
      await first.kill();
      expect(await lost).toBeInstanceOf(Error); // the connection died with the process
      const left = await withStore(dir, (s) => s.getIdempotency(workspaceId, 'svc_ask', 'crash-1'));
      expect([0, 202]).toContain(left!.status_code); // killed before it replied
      if (left!.status_code === 0) expect(left!.response).toBeNull();

      const second = await startChildService(dir, env);
      const t0 = Date.now();
      let retry = await second.post('/v1/ask', ask('crash-1'), key);
      // its reply, whichever it is, without the 60 s wait on a first call still in flight
      expect(Date.now() - t0).toBeLessThan(30_000);
      if (left!.status_code === 202) {
        // Killed after its task was made: the key points at that task, and the retry gets it at once, as any
        // retry of a pending ask does (docs/reference/tasks.md); the next process takes the task over when
        // its lease lapses and finishes it. (In flight, 0: the retry runs the call itself and answers 200.)
        expect(retry.status).toBe(202);
        expect(retry.headers.get('idempotent-replayed')).toBe('true');
        expect(retry.body.task_id).toBe(left!.task_id);
        retry = await until('the task to finish', async () => {
          const r = await second.post('/v1/poll', { task_id: left!.task_id }, key);
          if (r.status !== 200) expect(r.status).toBe(202);
          return r.status === 200 && r;
        });
      }
      expect(retry.status).toBe(200);
      expect(retry.body.answers.q.state).toBe('answered');
      expect(retry.body.fits_run).toBe(1);
      const again = await second.post('/v1/ask', ask('crash-1'), key);
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(retry.body);
      await second.kill();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a retry after a kill once the ask went pending gets the same task, which the next process finishes', async () => {
    const { dir, key } = await setup();
    try {
      // The first process's 4 s lease keeps the task unclaimed while the second starts and the retry is sent.
      const first = await startChildService(dir, { PENDING_WAIT_MS: '50', TASK_LEASE_MS: '4000' });
      const pending = await first.post('/v1/ask', ask('crash-2'), key);
      expect(pending.status).toBe(202);
      const taskId = pending.body.task_id;
      await first.kill();

      const second = await startChildService(dir, { PENDING_WAIT_MS: '50', TASK_LEASE_MS: '1500' });
      const retry = await second.post('/v1/ask', ask('crash-2'), key);
      expect(retry.status).toBe(202);
      expect(retry.body).toEqual(pending.body);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      const done = await until('the task to finish', async () => {
        const r = await second.post('/v1/poll', { task_id: taskId }, key);
        if (r.status !== 200) expect(r.status).toBe(202);
        return r.status === 200 && r.body;
      });
      expect(done.answers.q.state).toBe('answered');
      expect(done.fits_run).toBe(1);
      const replay = await second.post('/v1/ask', ask('crash-2'), key);
      expect(replay.status).toBe(200);
      expect(replay.body).toEqual(done);
      await second.kill();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it(`a task whose process dies at each of ${MAX_TASK_ATTEMPTS} starts is given up: poll and the retry get the problem`, async () => {
    const { dir, key, workspaceId } = await setup();
    try {
      // 3 s, not 1.5: each start is killed right after its "resuming task" line, and on a loaded machine that
      // line can reach the test after a short lease has lapsed, letting the process claim the task again
      // (attempts 3 where this expects 2) before the kill lands.
      const env = { PENDING_WAIT_MS: '50', TASK_LEASE_MS: '3000' };
      const first = await startChildService(dir, env);
      const pending = await first.post('/v1/ask', ask('crash-3'), key);
      expect(pending.status).toBe(202);
      const taskId = pending.body.task_id;
      await first.kill();
      // Starts 2 and 3: each next process claims the task and dies while running it.
      for (let attempt = 2; attempt <= MAX_TASK_ATTEMPTS; attempt++) {
        const next = await startChildService(dir, env);
        const resumed = await next.waitForLog((rec) => rec.msg === 'resuming task' && rec.task_id === taskId);
        expect(resumed.attempt).toBe(attempt);
        await next.kill();
        expect(await withStore(dir, (s) => s.getTask(workspaceId, taskId))).toMatchObject({ status: 'running', attempts: attempt });
      }

      const last = await startChildService(dir, env);
      await last.waitForLog((rec) => rec.msg === 'task given up after repeated crashes' && rec.task_id === taskId);
      expect(last.logs.some((rec) => rec.msg === 'resuming task')).toBe(false);
      const polled = await last.post('/v1/poll', { task_id: taskId }, key);
      expect(polled.status).toBe(500);
      expect(polled.body.code).toBe('internal');
      expect(polled.body.detail).toContain(`started ${MAX_TASK_ATTEMPTS} times`);
      expect(polled.body.detail).toMatch(/out of memory/);
      // the key replays the same problem instead of a fourth start
      const retry = await last.post('/v1/ask', ask('crash-3'), key);
      expect(retry.status).toBe(500);
      expect(retry.body.detail).toBe(polled.body.detail);
      expect(await withStore(dir, (s) => s.getTask(workspaceId, taskId))).toMatchObject({
        status: 'failed',
        attempts: MAX_TASK_ATTEMPTS + 1,
      });
      await last.kill();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
