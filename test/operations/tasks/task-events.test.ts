// svc_task_events (docs/reference/tasks.md#events) over real HTTP: a pending ask's stage events in order, its answers and done;
// a dropped connection resumed with Last-Event-ID without loss or repeats; a failing task's error; the
// progress a poll carries; and events of a task another process runs, read through the shared store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { bigRows } from '../../helpers/big-rows.ts';
import { readSse, type SseEvent } from '../../helpers/sse.ts';
import { openSqliteStore, type Store } from '../../../host/store/index.ts';

const STEPS = ['reading', 'shaping', 'binning', 'fitting', 'deciding', 'scoring', 'signing'];
const STAGES = ['reading_data', 'reading_shape', 'asking'];
const rows = bigRows();

/** An ask on its own record (`drop` rows fewer), so no test finds another's fit in the store. */
function ask(questions: Record<string, unknown>, drop = 0, extra: Record<string, unknown> = {}) {
  const data = { rows: rows.slice(0, rows.length - drop) };
  return { data, entity_column: 'id', subject_kind: 'org', questions, cases: { ids: ['e1', 'e2', 'e3'] }, ...extra };
}
const ONE_FIT = { q1: { type: 'yesno', outcome_column: 'y' }, q2: { type: 'score', outcome_column: 'y' } };

let svc: TestService;
let key: string;
const events = (taskId: string) => `${svc.url}/v1/tasks/${taskId}/events`;
const auth = () => ({ authorization: `Bearer ${key}` });

async function pendingAsk(body: unknown): Promise<{ task_id: string; watch_url: string; [k: string]: unknown }> {
  const r = await svc.post('/v1/ask', body, key);
  expect(r.status).toBe(202);
  return r.body;
}

const isLast = (e: SseEvent) => e.event === 'done' || e.event === 'error';

beforeAll(async () => {
  svc = await startTestService({ pendingWaitMs: 50 });
  key = await svc.liveKey();
});
afterAll(() => svc.close());

describe('GET /v1/tasks/{task_id}/events', () => {
  let first: { task_id: string };
  let read: Awaited<ReturnType<typeof readSse>>;
  beforeAll(async () => {
    first = await pendingAsk(ask(ONE_FIT));
    read = await readSse(events(first.task_id), { headers: auth() });
  });

  it('streams text/event-stream that the server ends after done', () => {
    expect(read.status).toBe(200);
    expect(read.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(read.headers.get('cache-control')).toMatch(/no-cache/);
    expect(read.endedByServer).toBe(true);
    expect(read.events.at(-1)!.event).toBe('done');
  });

  it('starts with the current stage, then stages in the order of the fit, one answer per question, then done', () => {
    const kinds = read.events.map((e) => e.event);
    expect(kinds[0]).toBe('stage');
    const lastStage = kinds.lastIndexOf('stage');
    expect(kinds.slice(lastStage + 1)).toEqual(['answer', 'answer', 'done']);
    const steps = read.events.filter((e) => e.event === 'stage').map((e) => e.data.step as string);
    expect(steps.every((s) => STEPS.includes(s))).toBe(true);
    // never back to an earlier step up to the answers; then scoring and signing question by question
    const fit = steps.slice(0, steps.indexOf('scoring')).map((s) => STEPS.indexOf(s));
    expect(fit).toEqual([...fit].sort((a, b) => a - b));
    expect(steps.slice(steps.indexOf('scoring'))).toEqual(['scoring', 'signing', 'scoring', 'signing']);
    const seen = new Set(read.events.filter((e) => e.event === 'stage').map((e) => e.data.step));
    for (const step of ['fitting', 'deciding', 'scoring', 'signing']) expect(seen, step).toContain(step);
  });

  it('every event has an integer id, increasing by one after the first', () => {
    const ids = read.events.map((e) => e.id!);
    expect(ids.every(Number.isInteger)).toBe(true);
    for (let i = 2; i < ids.length; i++) expect(ids[i]).toBe(ids[i - 1] + 1);
  });

  it('stage events carry the spec fields, the facts so far and the bags of the fit (docs/reference/tasks.md#events)', () => {
    const stages = read.events.filter((e) => e.event === 'stage').map((e) => e.data);
    for (const d of stages) {
      expect(d.task_id).toBe(first.task_id);
      expect(STAGES).toContain(d.stage);
      expect(typeof d.message).toBe('string');
      expect(Number.isInteger(d.elapsed_ms)).toBe(true);
      // the task thread's first event may come before its read of the record (a fresh stream starts there)
      if (d.step !== 'reading') expect(d.facts.rows).toBe(10_000);
    }
    expect(stages.filter((d) => d.step !== 'reading').length).toBeGreaterThan(0);
    const fitting = stages.filter((d) => d.step === 'fitting' && d.bags !== undefined);
    expect(fitting.length).toBeGreaterThan(0);
    expect(fitting.some((d) => /fitting bag \d+ of \d+/.test(d.message))).toBe(true);
    const last = stages.at(-1);
    expect(last.facts).toMatchObject({ rows: 10_000, outcome: 'y', bootstrap: false });
    expect(last.facts.training_rows + last.facts.held_out_rows).toBe(10_000);
    expect(last).toMatchObject({ frac: 1, fit: 1, of: 1 });
    const fracs = stages.filter((d) => d.frac !== undefined).map((d) => d.frac);
    expect(fracs).toEqual([...fracs].sort((a, b) => a - b));
  });

  it('answer events say each question’s state and decision and carry no chance', async () => {
    const answers = read.events.filter((e) => e.event === 'answer').map((e) => e.data);
    expect(answers.map((a) => a.question)).toEqual(['q1', 'q2']);
    const done = await svc.post('/v1/poll', { task_id: first.task_id }, key);
    for (const a of answers) {
      const full = done.body.answers[a.question];
      expect(a).toMatchObject({
        task_id: first.task_id,
        state: full.state,
        decision: full.state === 'answered' ? 'actionable' : full.state,
      });
      expect(JSON.stringify(a)).not.toMatch(/"p"|cases|reasons":\[\{/);
    }
  });

  it('done names a result_url that answers, with the key, exactly as svc_poll does', async () => {
    const done = read.events.at(-1)!.data;
    expect(done).toEqual({ task_id: first.task_id, status: 'done', result_url: `${svc.url}/v1/tasks/${first.task_id}` });
    const viaUrl = await fetch(done.result_url, { headers: auth() });
    expect(viaUrl.status).toBe(200);
    const poll = await svc.post('/v1/poll', { task_id: first.task_id }, key);
    expect(await viaUrl.json()).toEqual(poll.body);
  });

  it('a finished task’s stream from the start replays every event; from its done it is 204', async () => {
    const all = await readSse(`${events(first.task_id)}?last_event_id=0`, { headers: auth() });
    expect(all.events.map((e) => e.id)).toEqual(all.events.map((_, i) => i + 1));
    expect(all.events.slice(-read.events.length + 1)).toEqual(read.events.slice(1));
    const doneId = read.events.at(-1)!.id!;
    const again = await fetch(events(first.task_id), { headers: { ...auth(), 'last-event-id': String(doneId) } });
    expect(again.status).toBe(204);
    expect(await again.text()).toBe('');
  });

  it('an unknown task, another workspace’s task and a malformed Last-Event-ID are problems', async () => {
    const unknown = await fetch(events('tk_00000000000000000000000000'), { headers: auth() });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).code).toBe('unknown_task');
    const other = await fetch(events(first.task_id), { headers: { authorization: `Bearer ${await svc.liveKey()}` } });
    expect(other.status).toBe(404);
    const bad = await fetch(events(first.task_id), { headers: { ...auth(), 'last-event-id': 'seven' } });
    expect(bad.status).toBe(422);
    expect(await bad.json()).toMatchObject({ code: 'invalid_request', field: 'Last-Event-ID' });
  });
});

describe('a call of two fits', () => {
  it('counts its fits: fit k of 2, frac over both, each fit’s outcome in the facts', async () => {
    const two = await pendingAsk(
      ask({ q1: { type: 'yesno', outcome_column: 'y' }, q2: { type: 'yesno', outcome_column: 'y', outcome_is_desirable: false } }, 1),
    );
    const read = await readSse(`${events(two.task_id)}?last_event_id=0`, { headers: auth() });
    const stages = read.events.filter((e) => e.event === 'stage').map((e) => e.data);
    expect(stages.some((d) => d.of === 2 && d.fit === 1)).toBe(true);
    expect(stages.some((d) => d.of === 2 && d.fit === 2)).toBe(true);
    expect(stages.some((d) => /^Fit 2 of 2 \(y\)/.test(d.message))).toBe(true);
    expect(stages.at(-1)).toMatchObject({ frac: 1, of: 2 });
    expect(read.events.at(-1)!.event).toBe('done');
  });
});

describe('a dropped connection', () => {
  it('resumes with Last-Event-ID: nothing lost, nothing repeated', async () => {
    const t = await pendingAsk(ask(ONE_FIT, 2));
    const one = await readSse(events(t.task_id), { headers: auth(), stopAfter: (e) => e.event === 'stage' && e.data.step === 'fitting' });
    expect(one.endedByServer).toBe(false);
    const lastId = one.events.at(-1)!.id!;
    const two = await readSse(events(t.task_id), { headers: { ...auth(), 'last-event-id': String(lastId) } });
    expect(two.events.at(-1)!.event).toBe('done');
    const ids = [...one.events, ...two.events].map((e) => e.id!);
    for (let i = 2; i < ids.length; i++) expect(ids[i]).toBe(ids[i - 1] + 1);
    // the same events the store holds from the first one received
    const all = await readSse(`${events(t.task_id)}?last_event_id=${ids[0] - 1}`, { headers: auth() });
    expect([...one.events, ...two.events]).toEqual(all.events);
  });
});

describe('a task that fails', () => {
  it('ends its stream with error: code, detail, remedy and doc_url of the problem', async () => {
    // the fit runs; scoring a case row that lacks the model's columns then fails (row_not_scoreable)
    const t = await pendingAsk(ask({ q: { type: 'yesno', outcome_column: 'y' } }, 3, { cases: { rows: [{ id: 'new', x0: 5 }] } }));
    const read = await readSse(`${events(t.task_id)}?last_event_id=0`, { headers: auth() });
    const last = read.events.at(-1)!;
    expect(last.event).toBe('error');
    expect(last.data).toMatchObject({ task_id: t.task_id, code: 'row_not_scoreable', doc_url: `${svc.url}/problems/row_not_scoreable` });
    expect(last.data.detail).toMatch(/x1/);
    expect(typeof last.data.remedy).toBe('string');
    expect(read.events.filter((e) => e.event === 'answer')).toEqual([]);
    const poll = await svc.post('/v1/poll', { task_id: t.task_id }, key);
    expect(poll.body).toMatchObject({ code: 'row_not_scoreable', detail: last.data.detail });
  }, 60_000);
}, 60_000);

describe('svc_poll while pending', () => {
  it('carries stage, elapsed_ms, watch_url and progress, the same as the latest stage event', async () => {
    const t = await pendingAsk(ask({ q: { type: 'rank', outcome_column: 'y', top_k: 3 } }, 4, { cases: undefined }));
    expect(t).toMatchObject({ status: 'pending', stage: expect.any(String), watch_url: expect.stringMatching(/\/watch\//) });
    expect(t.progress).toMatchObject({ stage: expect.any(String), frac: expect.any(Number), facts_so_far: expect.any(Object) });
    const seen: any[] = [];
    for (let i = 0; i < 200; i++) {
      const r = await svc.post('/v1/poll', { task_id: t.task_id }, key);
      if (r.status === 200) break;
      seen.push(r.body);
      await new Promise((res) => setTimeout(res, 25));
    }
    expect(seen.length).toBeGreaterThan(0);
    for (const p of seen) {
      expect(STAGES).toContain(p.stage);
      expect(STEPS).toContain(p.progress.stage);
      expect(p.watch_url).toBe(t.watch_url);
    }
    const fitting = seen.find((p) => p.progress.stage === 'fitting');
    if (fitting) expect(fitting.progress).toMatchObject({ of: 1, fit: 1, facts_so_far: { rows: 9_996, outcome: 'y' } });
  }, 60_000);
});

describe('a task another process runs', () => {
  let node: TestService;
  let other: Store;
  let caller: { key: string; workspaceId: string };
  beforeAll(async () => {
    node = await startTestService({ eventPollMs: 50, eventHeartbeatMs: 150, eventStreamMaxMs: 1500 });
    caller = await node.liveCaller();
    // the other process: its own connection to the same database, holding the task's lease
    other = await openSqliteStore(node.dataDir);
    const now = Date.now();
    await other.createTask({
      id: 'tk_0000000000000000000000elsw',
      workspace_id: caller.workspaceId,
      request: '{}',
      created_at: now,
      lease: { owner: 'node-b', lease_until: now + 3_600_000 },
      events: [
        {
          kind: 'stage',
          data: JSON.stringify({ task_id: 'tk_0000000000000000000000elsw', stage: 'reading_data', step: 'reading' }),
          at: now,
        },
      ],
    });
  });
  afterAll(async () => {
    await other.close();
    await node.close();
  });
  const url = () => `${node.url}/v1/tasks/tk_0000000000000000000000elsw/events`;

  it('is streamed from the shared store: its events arrive as the other process writes them, with heartbeats between', async () => {
    const reading = readSse(url(), { headers: { authorization: `Bearer ${caller.key}` } });
    const stage = (step: string) => ({
      kind: 'stage' as const,
      data: JSON.stringify({ task_id: 'x', stage: 'asking', step }),
      at: Date.now(),
    });
    await new Promise((r) => setTimeout(r, 400));
    expect(await other.appendTaskEvents('tk_0000000000000000000000elsw', 'node-b', [stage('fitting')])).toBe(true);
    await new Promise((r) => setTimeout(r, 400));
    await other.appendTaskEvents('tk_0000000000000000000000elsw', 'node-b', [stage('deciding')]);
    const read = await reading;
    // the stream closed at eventStreamMaxMs; a heartbeat came while nothing happened
    expect(read.endedByServer).toBe(true);
    expect(read.comments).toContain('heartbeat');
    expect(read.events.map((e) => [e.id, e.data.step])).toEqual([
      [1, 'reading'],
      [2, 'fitting'],
      [3, 'deciding'],
    ]);
  });

  it('a reconnect after the close goes on from Last-Event-ID, and the stream ends at the done the other process stores', async () => {
    const reading = readSse(url(), { headers: { authorization: `Bearer ${caller.key}`, 'last-event-id': '3' } });
    await new Promise((r) => setTimeout(r, 200));
    const done = {
      kind: 'done' as const,
      data: JSON.stringify({ task_id: 'tk_0000000000000000000000elsw', status: 'done' }),
      at: Date.now(),
    };
    expect(await other.completeTask('tk_0000000000000000000000elsw', 'node-b', '{"status":"done"}', Date.now(), done)).toBe(true);
    const read = await reading;
    expect(read.events.map((e) => [e.id, e.event])).toEqual([[4, 'done']]);
    expect(read.events[0].data.result_url).toBe(`${node.url}/v1/tasks/tk_0000000000000000000000elsw`);
  });
});
