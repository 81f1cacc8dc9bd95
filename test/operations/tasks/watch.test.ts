// svc_watch_events (docs/reference/tasks.md#watch): a pending ask's watch_url streams its task without a key, its done without
// result_url; the link stops after 24 hours (410), a made-up one is 404, and watchers of one task are limited.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { bigRows } from '../../helpers/big-rows.ts';
import { readSse } from '../../helpers/sse.ts';
import { TaskEventHub, WATCH_OPEN_AT_ONCE } from '../../../host/runtime/events/hub.ts';

const DAY = 24 * 60 * 60 * 1000;

let svc: TestService;
let key: string;
let pending: { task_id: string; watch_url: string };
const eventsOf = (watchUrl: string) => watchUrl.replace('/watch/', '/v1/watch/') + '/events';

beforeAll(async () => {
  svc = await startTestService({ pendingWaitMs: 50 }, { manualClock: true });
  key = await svc.liveKey();
  const r = await svc.post(
    '/v1/ask',
    {
      data: { rows: bigRows() },
      entity_column: 'id',
      subject_kind: 'org',
      questions: { q: { type: 'yesno', outcome_column: 'y' } },
      cases: { ids: ['e1'] },
    },
    key,
  );
  expect(r.status).toBe(202);
  pending = r.body;
});
afterAll(() => svc.close());

describe('a watch link', () => {
  it('is {site_url}/watch/<token> on this service', () => {
    expect(pending.watch_url).toMatch(new RegExp(`^${svc.url}/watch/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{43}$`));
  });

  it('streams the task with no key: stages, the answer, and done without result_url', async () => {
    const read = await readSse(eventsOf(pending.watch_url));
    expect(read.status).toBe(200);
    expect(read.events[0].event).toBe('stage');
    expect(read.events.filter((e) => e.event === 'answer').map((e) => e.data.question)).toEqual(['q']);
    const done = read.events.at(-1)!;
    expect(done.event).toBe('done');
    expect(done.data).toEqual({ task_id: pending.task_id, status: 'done' });
    // the same events the key's stream gives, but the result's URL
    const from = read.events[0].id! - 1;
    const keyed = await readSse(`${svc.url}/v1/tasks/${pending.task_id}/events?last_event_id=${from}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(keyed.events.slice(0, -1)).toEqual(read.events.slice(0, -1));
    expect(keyed.events.at(-1)!.data.result_url).toBe(`${svc.url}/v1/tasks/${pending.task_id}`);
  });

  it('resumes from Last-Event-ID, and 204 once the client holds done', async () => {
    const all = await readSse(`${eventsOf(pending.watch_url)}?last_event_id=0`);
    const doneId = all.events.at(-1)!.id!;
    const tail = await readSse(eventsOf(pending.watch_url), { headers: { 'last-event-id': String(doneId - 1) } });
    expect(tail.events.map((e) => e.id)).toEqual([doneId]);
    const res = await fetch(eventsOf(pending.watch_url), { headers: { 'last-event-id': String(doneId) } });
    expect(res.status).toBe(204);
  });

  it('a token this service did not make, or one changed by a character, is 404 unknown_link', async () => {
    for (const url of [`${svc.url}/v1/watch/nope/events`, eventsOf(pending.watch_url.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')))]) {
      const res = await fetch(url);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/problem\+json/);
      expect((await res.json()).code).toBe('unknown_link');
    }
  });

  it('limits opens per task to 60 a minute (429 watch_streams_limited with Retry-After and retry_after_ms)', async () => {
    let limited: Response | null = null;
    for (let i = 0; i < 70 && !limited; i++) {
      const res = await fetch(eventsOf(pending.watch_url), { headers: { 'last-event-id': '1' } });
      if (res.status === 429) limited = res;
      else await res.text();
    }
    expect(limited).not.toBeNull();
    const body = await limited!.json();
    expect(body).toMatchObject({ code: 'watch_streams_limited', status: 429 });
    expect(body.retry_after_ms).toBeGreaterThan(0);
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // the next minute opens again
    svc.clock.now += 60_000;
    const again = await fetch(eventsOf(pending.watch_url), { headers: { 'last-event-id': '1' } });
    expect(again.status).toBe(200);
    await again.text();
  });

  it('stops working after 24 hours: 410 watch_link_expired', async () => {
    svc.clock.now += DAY;
    const res = await fetch(eventsOf(pending.watch_url));
    expect(res.status).toBe(410);
    expect((await res.json()).code).toBe('watch_link_expired');
  });
});

describe('watchers of one task', () => {
  it(`are at most ${WATCH_OPEN_AT_ONCE} open at once; a closed one frees its place`, async () => {
    const hub = new TaskEventHub(() => 0);
    const slots = [];
    for (let i = 0; i < WATCH_OPEN_AT_ONCE; i++) slots.push(await hub.openWatch('tk_a'));
    expect(slots.every((s) => s.ok)).toBe(true);
    const sixth = await hub.openWatch('tk_a');
    expect(sixth).toMatchObject({ ok: false, why: 'open' });
    expect((await hub.openWatch('tk_b')).ok).toBe(true); // per task
    (slots[0] as { release: () => void }).release();
    (slots[0] as { release: () => void }).release(); // twice frees once
    expect((await hub.openWatch('tk_a')).ok).toBe(true);
    expect((await hub.openWatch('tk_a')).ok).toBe(false);
  });
});
