// idempotency_key (spec 2.6, wire.md "Idempotency") when the first call fails: a 4xx is that body's
// answer and is replayed; a 5xx says "retry", so the next retry with the key runs the call again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, startDatasetService, startHttpsServer, type DatasetService, type HttpsTestServer } from '../datasets/helpers.ts';

const CSV = 'id,x,churned\n' + Array.from({ length: 400 }, (_, i) => `c${i},${i % 10},${(i % 10 >= 6) !== (i % 4 === 0) ? 'yes' : 'no'}`).join('\n') + '\n';

let origin: HttpsTestServer;
let svc: DatasetService;
let key: string;
let failuresLeft = 1;
let served = 0;

beforeAll(async () => {
  origin = await startHttpsServer({
    // fails once (the download fails: 502 fetch_failed, a 5xx), then serves the table
    '/flaky.csv': (_req, res) => {
      served++;
      if (failuresLeft-- > 0) return res.writeHead(503).end('busy');
      res.writeHead(200, { 'content-type': 'text/csv' }).end(CSV);
    },
  });
  svc = await startDatasetService({ allowLoopbackFetchForTests: true, fetchCaPem: origin.cert });
  key = (await svc.liveKey('idem')).key;
});
afterAll(async () => {
  await svc?.close();
  await origin?.close();
});

const ask = (idempotency_key: string, extra: object = {}) => ({
  data: { fetch_url: `https://localhost:${origin.port}/flaky.csv` },
  entity_column: 'id',
  subject_kind: 'other',
  questions: { q: { type: 'yesno', outcome_column: 'churned' } },
  cases: { ids: ['c1'] },
  idempotency_key,
  ...extra,
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
