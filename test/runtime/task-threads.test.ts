// Task threads (docs/guides/overload.md, host/runtime/task-threads.ts): a stored record too large for the request thread is read,
// typed and fitted on a task thread (the request thread never holds it), and a task that outgrows its
// thread's heap (TASK_MEMORY_MB) fails alone with record_too_large while the service keeps answering.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { REQUEST_THREAD_READ_CELLS } from '../../host/operations/datasets/read.ts';

/** A seeded CSV of `rows` rows: id, 10 numbers, a yes/no outcome (12 columns). */
function csvOf(rows: number): string {
  let s = 7;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const lines = ['id,x0,x1,x2,x3,x4,x5,x6,x7,x8,x9,y'];
  for (let i = 0; i < rows; i++) {
    const x = Array.from({ length: 10 }, () => Math.round(rnd() * 1000) / 10);
    const z = -1 + (x[0] - 50) / 25 + (x[1] > 70 ? 1 : 0);
    // Written with two decimals (12.30), not as JavaScript writes the number: parseCsv keeps these columns as
    // text, a string per cell, so the 400,000-row record below still outgrows a 96 MiB task heap.
    lines.push(`c${i},${x.map((v) => v.toFixed(2)).join(',')},${rnd() < 1 / (1 + Math.exp(-z)) ? 'yes' : 'no'}`);
  }
  return `${lines.join('\n')}\n`;
}

async function stored(svc: TestService, key: string, csv: string): Promise<string> {
  const add = await svc.post('/v1/add-dataset', { upload: true }, key);
  const put = await fetch(add.body.upload_url, { method: 'PUT', headers: { 'content-type': 'text/csv' }, body: csv });
  expect(put.status).toBe(200);
  return add.body.dataset_id;
}

const askOn = (datasetId: string) => ({
  data: { dataset_id: datasetId },
  entity_column: 'id',
  subject_kind: 'other',
  questions: { q: { type: 'yesno', outcome_column: 'y' } },
  cases: { ids: ['c1'] },
});

// Polls every 250 ms: a task that runs a minute on a loaded machine must not spend the workspace's 600
// requests a minute (RATE_LIMIT_PER_MINUTE) on polls, or the test's next ask gets 429.
async function answerOf(svc: TestService, key: string, r: { status: number; body: any }): Promise<{ status: number; body: any }> {
  for (let i = 0; i < 800 && r.status === 202; i++) {
    await new Promise((res) => setTimeout(res, 250));
    r = await svc.post('/v1/poll', { task_id: r.body.task_id }, key);
  }
  return r;
}

describe('a large stored record', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ pendingWaitMs: 0 });
  });
  afterAll(() => svc?.close());

  it('is read on a task thread: the ask goes pending at once and the request thread never holds the table', async () => {
    const rows = Math.ceil(REQUEST_THREAD_READ_CELLS / 12) + 1000;
    const { key } = await svc.liveCaller('large');
    const id = await stored(svc, key, csvOf(rows));
    const first = await svc.post('/v1/ask', askOn(id), key);
    expect(first.status).toBe(202);
    const done = await answerOf(svc, key, first);
    expect(done.status).toBe(200);
    expect(done.body.record).toMatchObject({ rows, columns: 12 });
    expect(svc.services.records.sealed.get(id)).toBeUndefined();
    // Its fit is made now, but the record is still too large for the request thread: the next ask is a task too.
    const again = await answerOf(svc, key, await svc.post('/v1/ask', askOn(id), key));
    expect(again.body).toMatchObject({ fits_run: 0, answers: { q: { cache: 'hit' } } });
    expect(svc.services.records.sealed.get(id)).toBeUndefined();
  });

  it('a small one is read on the request thread and kept there', async () => {
    const { key } = await svc.liveCaller('small');
    const id = await stored(svc, key, csvOf(2000));
    const first = await answerOf(svc, key, await svc.post('/v1/ask', askOn(id), key));
    expect(first.status).toBe(200);
    const again = await svc.post('/v1/ask', askOn(id), key);
    expect(again.status).toBe(200);
    expect(svc.services.records.sealed.get(id)).toBeDefined();
  });
});

describe('a task past its heap', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ pendingWaitMs: 0, taskMemoryMb: 96, fitWorkers: 1 });
  });
  afterAll(() => svc?.close());

  it('fails alone with 422 record_too_large; the service keeps answering and the next task runs', async () => {
    const { key } = await svc.liveCaller('heap');
    const small = await stored(svc, key, csvOf(1500));
    expect((await answerOf(svc, key, await svc.post('/v1/ask', askOn(small), key))).status).toBe(200);

    const big = await stored(svc, key, csvOf(400_000));
    const r = await answerOf(svc, key, await svc.post('/v1/ask', askOn(big), key));
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'record_too_large' });
    expect(r.body.detail).toMatch(/96 MiB/);
    expect(r.body.remedy).toMatch(/TASK_MEMORY_MB/);

    expect((await svc.post('/v1/describe', {})).status).toBe(200);
    const other = await stored(svc, key, csvOf(1600));
    const next = await answerOf(svc, key, await svc.post('/v1/ask', askOn(other), key));
    expect(next.status).toBe(200);
    expect(next.body.answers.q.state).toBe('answered');
  });
});
