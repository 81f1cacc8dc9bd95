// idempotency_key (docs/reference/README.md#idempotency) when the first call fails: a 4xx is that body's
// answer and is replayed; a 5xx says "retry", so the next retry with the key runs the call again.
import { startTestService, type TestService } from '../helpers/service.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, startHttpsServer, type HttpsTestServer } from '../operations/datasets/helpers.ts';

const CSV =
  'id,x,churned\n' +
  Array.from({ length: 400 }, (_, i) => `c${i},${i % 10},${i % 10 >= 6 !== (i % 4 === 0) ? 'yes' : 'no'}`).join('\n') +
  '\n';

let origin: HttpsTestServer;
let svc: TestService;
let key: string;
let failuresLeft = 1;
let served = 0;
let pendingFailuresLeft = 1; // the pending test's own path, so its background retry cannot touch the others'

beforeAll(async () => {
  origin = await startHttpsServer({
    // fails once (the download fails: 502 fetch_failed, a 5xx), then serves the table
    '/flaky-pending.csv': (_req, res) => {
      if (pendingFailuresLeft-- > 0) return res.writeHead(503).end('busy');
      res.writeHead(200, { 'content-type': 'text/csv' }).end(CSV);
    },
    '/flaky.csv': (_req, res) => {
      served++;
      if (failuresLeft-- > 0) return res.writeHead(503).end('busy');
      res.writeHead(200, { 'content-type': 'text/csv' }).end(CSV);
    },
  });
  svc = await startTestService({ allowLoopbackFetchForTests: true, fetchCaPem: origin.cert }, { manualClock: true });
  key = (await svc.liveCaller('idem')).key;
});
afterAll(async () => {
  await svc?.close();
  await origin?.close();
});

const ask = (idempotency_key: string, extra: object = {}, file = 'flaky.csv') => ({
  data: { fetch_url: `https://localhost:${origin.port}/${file}` },
  entity_column: 'id',
  subject_kind: 'other',
  questions: { q: { type: 'yesno', outcome_column: 'churned' } },
  cases: { ids: ['c1'] },
  idempotency_key,
  ...extra,
});

describe('idempotency after a pending call fails', () => {
  it('a pending ask that fails with a 5xx is not replayed: the retry with the same key runs the call again', async () => {
    // no wait: the ask goes pending at once, then its download fails (502 fetch_failed on the task)
    const quick = await startTestService(
      { allowLoopbackFetchForTests: true, fetchCaPem: origin.cert, pendingWaitMs: 0 },
      { manualClock: true },
    );
    try {
      const k = (await quick.liveCaller('idem-pending')).key;
      const first = await post(quick.url, '/v1/ask', ask('pending-then-502', {}, 'flaky-pending.csv'), k);
      expect(first.status).toBe(202);
      let polled = first;
      for (let i = 0; i < 200 && polled.status === 202; i++) {
        await new Promise((r) => setTimeout(r, 25));
        polled = await post(quick.url, '/v1/poll', { task_id: first.body.task_id }, k);
      }
      expect(polled.status).toBe(502);
      expect(polled.body.code).toBe('fetch_failed');
      const retry = await post(quick.url, '/v1/ask', ask('pending-then-502', {}, 'flaky-pending.csv'), k);
      expect(retry.status).toBe(202);
      expect(retry.body.task_id).not.toBe(first.body.task_id); // a new call, not the failed one replayed
    } finally {
      await quick.close();
    }
  });
});

describe('idempotency after a failed first call', () => {
  it('a 5xx first call is not replayed: the retry with the same key runs the call and is answered', async () => {
    failuresLeft = 1;
    const first = await post(svc.url, '/v1/ask', ask('retry-after-502'), key);
    expect(first.status).toBe(502);
    expect(first.body.code).toBe('fetch_failed');
    const retry = await post(svc.url, '/v1/ask', ask('retry-after-502'), key);
    expect(retry.status).toBe(200);
    expect(retry.body.answers.q.state).toBe('answered');
    const again = await post(svc.url, '/v1/ask', ask('retry-after-502'), key);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(retry.body); // now replayed: the first reply, not a new call
    expect(served).toBe(2);
  });

  it('a 4xx first call is the answer to that body and is replayed as it was', async () => {
    const bad = ask('replay-422', { cases: { ids: ['nobody'] } });
    const first = await post(svc.url, '/v1/ask', bad, key);
    expect(first.status).toBe(422);
    expect(first.body.code).toBe('unknown_case_id');
    const before = served;
    const retry = await post(svc.url, '/v1/ask', bad, key);
    expect(retry.status).toBe(422);
    expect(retry.body.code).toBe('unknown_case_id');
    expect(served).toBe(before); // nothing downloaded again
  });
});
