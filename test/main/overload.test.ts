// The critical crash of docs/guides/overload.md, as a test: many cold asks at once, far above what the fit threads can take,
// against the real service in its own process. Every request is answered 200, 202, or 503/429 with
// Retry-After (never a reset or a 5xx of another kind), the process stays under its memory bound and alive,
// and every ask it accepted (202) is finished.
import fs from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { openSqliteStore } from '../../host/store/index.ts';
import { createLiveKey } from '../../host/runtime/keys.ts';
import { startChildService } from '../helpers/child-service.ts';
import { tempDir } from '../helpers/service.ts';

const dir = tempDir('overload-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const WORKSPACES = 3;
const ASKS_PER_WORKSPACE = 20;
/** Peak RSS the process must stay under with this configuration (2 threads of 512 MiB heap at most). */
const RSS_BOUND_MB = 1500;

/** A cold ask of its own (a record no other ask sends): 5,000 rows x 25 columns, seeded by `n`. */
function coldAsk(n: number): string {
  let s = 1000 + n;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const rows = Array.from({ length: 5000 }, (_, i) => {
    const row: Record<string, number | string> = { id: `e${i}` };
    let z = -1;
    for (let j = 0; j < 23; j++) {
      const v = Math.round(rnd() * 1000) / 10;
      row[`x${j}`] = v;
      if (j < 3) z += (v - 50) / 30;
    }
    row.y = rnd() < 1 / (1 + Math.exp(-z)) ? 'yes' : 'no';
    return row;
  });
  return JSON.stringify({
    data: { rows },
    entity_column: 'id',
    subject_kind: 'other',
    questions: { q: { type: 'yesno', outcome_column: 'y' } },
    cases: { ids: ['e1'] },
  });
}

function statusOf(pid: number): { rssMb: number; hwmMb: number } {
  const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);
  return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 };
}

it('answers every cold ask far above capacity with 200, 202 or 503/429 and Retry-After, under its memory bound, and stays up', async () => {
  const store = await openSqliteStore(dir);
  const keys: string[] = [];
  try {
    for (let w = 0; w < WORKSPACES; w++) keys.push((await createLiveKey(store, { workspaceName: `load-${w}`, now: Date.now() })).key);
  } finally {
    await store.close();
  }
  const svc = await startChildService(dir, {
    FIT_WORKERS: '2',
    TASK_MEMORY_MB: '512',
    PENDING_WAIT_MS: '200',
    WORKSPACE_TASKS_MAX: '3',
    TASK_QUEUE_MAX: '4',
    RATE_LIMIT_PER_MINUTE: '100000',
  });
  try {
    const pid = svc.child.pid!;
    const bodies = Array.from({ length: WORKSPACES * ASKS_PER_WORKSPACE }, (_, n) => coldAsk(n));
    const replies = await Promise.all(
      bodies.map(async (body, n) => {
        const key = keys[n % WORKSPACES];
        try {
          const res = await fetch(`${svc.url}/v1/ask`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
            body,
          });
          return { key, status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as any };
        } catch (err) {
          return { key, status: 0, retryAfter: null, body: { error: String(err) } };
        }
      }),
    );
    const counts = new Map<number, number>();
    for (const r of replies) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
    expect(
      [...counts.keys()].every((s) => [200, 202, 429, 503].includes(s)),
      JSON.stringify([...counts]),
    ).toBe(true);
    expect((counts.get(429) ?? 0) + (counts.get(503) ?? 0)).toBeGreaterThan(0); // the load was past capacity
    for (const r of replies.filter((x) => x.status === 429 || x.status === 503)) {
      expect(r.body.code).toBe(r.status === 429 ? 'workspace_busy' : 'server_busy');
      expect(Number(r.retryAfter)).toBeGreaterThan(0);
      expect(r.body.retry_after_ms).toBeGreaterThan(0);
    }

    // Every accepted ask is finished, and the process never went past its bound.
    for (const r of replies.filter((x) => x.status === 202)) {
      let polled = { status: 202 };
      for (let i = 0; i < 3000 && polled.status === 202; i++) {
        await new Promise((res) => setTimeout(res, 50));
        polled = await svc.post('/v1/poll', { task_id: r.body.task_id }, r.key);
      }
      expect(polled.status).toBe(200);
    }
    expect((await svc.post('/v1/describe', {}, keys[0])).status).toBe(200);
    const { hwmMb } = statusOf(pid);
    expect(hwmMb).toBeLessThan(RSS_BOUND_MB);
    expect(svc.logs.filter((l) => l.msg === 'unhandled error')).toEqual([]);
  } finally {
    await svc.stop();
  }
});
