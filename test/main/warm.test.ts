// WARM_THREADS (host/main.ts): a service starts its task thread and fit workers as it begins to listen, so
// the first ask finds them ready; the thread it warmed is the one that runs that ask. Off, nothing starts
// before the first task. Counts, not times: threadCounts() says which threads exist.
import { afterEach, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { churnAsk, churnRows } from '../helpers/churn.ts';

let svc: TestService | undefined;
afterEach(async () => {
  await svc?.close();
  svc = undefined;
});

async function askOnce(s: TestService) {
  const rows = churnRows({ seed: 5, rows: 1200 });
  const key = await s.liveKey();
  const r = await s.post('/v1/ask', churnAsk(rows, {}, { cases: { ids: [String(rows[0].customer_id)] } }), key);
  expect(r.status).toBe(200);
  expect(r.body.answers.q.state).toBe('answered');
}

describe('warm threads', () => {
  it('on: one task thread and every fit worker start without a request, and the first ask runs on them', async () => {
    svc = await startTestService({ warmThreads: true, fitWorkers: 2 });
    // settles once the thread has opened its services and each worker has compiled the engine
    await svc.warmed;
    expect(svc.threadCounts()).toEqual({ taskThreadsStarted: 1, taskThreads: 1, fitWorkers: 2 });
    await askOnce(svc);
    // the warmed thread ran it: no thread or worker was started for the ask
    expect(svc.threadCounts()).toEqual({ taskThreadsStarted: 1, taskThreads: 1, fitWorkers: 2 });
  });

  it('off: nothing starts until the first ask needs it', async () => {
    svc = await startTestService({ warmThreads: false, fitWorkers: 2 });
    await svc.warmed;
    expect(svc.threadCounts()).toEqual({ taskThreadsStarted: 0, taskThreads: 0, fitWorkers: 0 });
    await askOnce(svc);
    expect(svc.threadCounts().taskThreadsStarted).toBe(1);
    expect(svc.threadCounts().fitWorkers).toBeGreaterThanOrEqual(1);
  });

  it('a service closed while its threads are still starting closes cleanly', async () => {
    const s = await startTestService({ warmThreads: true, fitWorkers: 2 });
    await s.close();
    expect(s.threadCounts().taskThreads).toBe(0);
    await s.warmed; // settles: threads that ended count as done
  });
});
