// Durable pending work (issue: datasets and durable state): a process killed with SIGKILL during a
// long fit leaves a task that the next process picks up and finishes; concurrent asks share one fit.
import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestService, tempDir } from '../helpers/service.ts';
import { createLiveKey } from '../../host/operations/keys.ts';
import { openSqliteStore } from '../../host/store/index.ts';

const root = path.resolve(import.meta.dirname, '../..');
const children: ChildProcess[] = [];
afterAll(() => children.forEach((c) => c.kill('SIGKILL')));

/** Starts `host/main.ts` in its own process and resolves with its URL once it listens. */
function startProcess(dataDir: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'host/main.ts'], {
    cwd: root,
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir, PENDING_WAIT_MS: '50', TASK_LEASE_MS: '1500', LOG_LEVEL: 'info', BASE_URL: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      try {
        const rec = JSON.parse(line);
        if (rec.msg === 'listening') resolve({ url: rec.url, child });
      } catch {
        /* not a log line */
      }
    });
    child.once('exit', (code) => reject(new Error(`service exited early with ${code}`)));
  });
}

/** A seeded table of 10,000 rows x 24 columns: long enough to fit that a 50 ms wait turns pending. */
function bigRows(): Array<Record<string, number | string>> {
  let s = 99;
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  return Array.from({ length: 10_000 }, (_, i) => {
    const row: Record<string, number | string> = { id: `e${i}` };
    let z = -1;
    for (let j = 0; j < 24; j++) {
      const v = Math.round(rnd() * 1000) / 10;
      row[`x${j}`] = v;
      if (j < 4) z += (v - 50) / 40;
    }
    row.y = rnd() < 1 / (1 + Math.exp(-z)) ? 1 : 0;
    return row;
  });
}

async function post(url: string, p: string, body: unknown, key: string) {
  const res = await fetch(url + p, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

describe('crash safety', () => {
  it('finishes a task after the process that started it was SIGKILLed', async () => {
    const dir = tempDir();
    const store = await openSqliteStore(dir);
    const { key } = await createLiveKey(store, { workspaceName: 'crash', now: Date.now() });
    await store.close();
    const ask = { data: { rows: bigRows() }, entity_column: 'id', subject_kind: 'other', questions: { q: { type: 'yesno', outcome_column: 'y' } }, cases: { ids: ['e1', 'e2'] } };

    const first = await startProcess(dir);
    const pending = await post(first.url, '/v1/ask', ask, key);
    expect(pending.status).toBe(202);
    const taskId = pending.body.task_id;
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));

    const second = await startProcess(dir);
    let done: any;
    for (let i = 0; i < 600 && !done; i++) {
      const r = await post(second.url, '/v1/poll', { task_id: taskId }, key);
      if (r.status === 200) done = r.body;
      else {
        expect(r.status).toBe(202);
        await new Promise((res) => setTimeout(res, 100));
      }
    }
    second.child.kill('SIGTERM');
    expect(done?.status).toBe('done');
    expect(done.answers.q.state).toBe('answered');
    expect(done.answers.q.cases.map((c: any) => c.entity_id)).toEqual(['e1', 'e2']);
  });

  it('runs one fit for concurrent asks on the same record (single flight)', async () => {
    const svc = await startTestService({ pendingWaitMs: 60_000 });
    try {
      const key = await svc.liveKey('flight');
      const ask = { data: { rows: bigRows().slice(0, 4000) }, entity_column: 'id', subject_kind: 'other', questions: { q: { type: 'yesno', outcome_column: 'y' } }, cases: { ids: ['e1'] } };
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
