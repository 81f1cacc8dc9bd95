// The task event writer (host/runtime/events/writer.ts) on a real SQLite store: a burst of a fit's progress is
// stored in a few spaced writes (each a COMMIT that waits for its fsync on the request thread), each step's
// first and latest stage and every answer reach the store, and flush() and close() write at once without
// waiting for the gap.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { TaskEventWriter } from '../../host/runtime/events/writer.ts';
import { TaskEventHub } from '../../host/runtime/events/hub.ts';
import { openSqliteStore, type Store } from '../../host/store/index.ts';
import type { Services } from '../../host/runtime/services.ts';
import type { StageData } from '../../host/runtime/events/types.ts';
import { tempDir } from '../helpers/service.ts';

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A store with one running task of owner 'a', and a count of the writes of its events (each `delayMs` late: a store over the network). */
async function setUp(delayMs = 0) {
  const dir = tempDir();
  dirs.push(dir);
  const store = await openSqliteStore(dir);
  stores.push(store);
  await store.createTask({
    id: 'tk_1',
    workspace_id: 'ws_1',
    request: '{}',
    created_at: Date.now(),
    lease: { owner: 'a', lease_until: Date.now() + 60_000 },
  });
  const writes: number[] = [];
  const writeTimes: number[] = [];
  const append = store.appendTaskEvents.bind(store);
  const counted: Store = Object.create(store);
  counted.appendTaskEvents = (id, owner, events) => {
    writes.push(events.length);
    writeTimes.push(performance.now());
    if (delayMs === 0) return append(id, owner, events);
    return new Promise((resolve) => setTimeout(resolve, delayMs)).then(() => append(id, owner, events));
  };
  const services = { store: counted, now: Date.now, events: new TaskEventHub(Date.now), log: pino({ level: 'silent' }) };
  return { store, writes, writeTimes, services: services as unknown as Services };
}

const stage = (done: number): StageData => ({ stage: 'asking', step: 'fitting', message: `bag ${done}`, elapsed_ms: done, facts: {} });
/** The task's stored events as `kind:message` (stage) or `kind:question` (answer). */
const stored = async (store: Store) =>
  (await store.listTaskEvents('tk_1', 0, 1000)).map((e) => {
    const d = JSON.parse(e.data) as { message?: string; question?: string };
    return `${e.kind}:${d.message ?? d.question}`;
  });

describe('TaskEventWriter', () => {
  it('stores a burst of progress in spaced writes, the latest snapshot of each step and every answer kept', async () => {
    const { store, writes, writeTimes, services } = await setUp();
    const writer = new TaskEventWriter(services, 200);
    writer.attach('tk_1', 'a');
    const t0 = performance.now();
    for (let i = 1; i <= 40; i++) writer.stage(stage(i));
    writer.stage({ ...stage(41), step: 'deciding', message: 'deciding' });
    writer.stage({ ...stage(42), step: 'scoring', message: 'scoring q1' });
    writer.stage({ ...stage(43), step: 'scoring', message: 'scoring q1' });
    writer.answer({ question: 'q1', state: 'answered', decision: 'actionable' });
    for (let i = 0; i < 200 && writes.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 250));
    // the first event went at once; one write after the gap carries each later step's first snapshot, the
    // latest of each step, and the answer
    expect(writes).toEqual([1, 5]);
    expect(writeTimes[0] - t0).toBeLessThan(100);
    expect(writeTimes[1] - writeTimes[0]).toBeGreaterThanOrEqual(199);
    expect(await stored(store)).toEqual([
      'stage:bag 1',
      'stage:bag 40',
      'stage:deciding',
      'stage:scoring q1',
      'stage:scoring q1',
      'answer:q1',
    ]);
    const elapsed = (await store.listTaskEvents('tk_1', 0, 10)).map((e) => JSON.parse(e.data).elapsed_ms);
    expect(elapsed.slice(0, 5)).toEqual([1, 40, 41, 42, 43]);
    await writer.close();
  });

  it("keeps each step's first snapshot when the step ends within one gap (a watcher sees bag 1 of n)", async () => {
    const { store, services } = await setUp();
    const writer = new TaskEventWriter(services, 200);
    writer.attach('tk_1', 'a');
    writer.stage({ ...stage(0), step: 'reading', message: 'reading' });
    for (let i = 1; i <= 8; i++) writer.stage(stage(i));
    writer.stage({ ...stage(9), message: 'checking pair terms' });
    writer.stage({ ...stage(10), step: 'deciding', message: 'deciding' });
    await writer.close();
    expect(await stored(store)).toEqual(['stage:reading', 'stage:bag 1', 'stage:checking pair terms', 'stage:deciding']);
  });

  it('flush and close write what waits at once, without waiting for the gap', async () => {
    const { store, writes, services } = await setUp();
    const writer = new TaskEventWriter(services, 60_000);
    writer.attach('tk_1', 'a');
    writer.stage(stage(1));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(writes).toEqual([1]);
    writer.stage(stage(2));
    writer.stage(stage(3));
    const t0 = performance.now();
    await writer.flush();
    expect(writes).toEqual([1, 1]);
    writer.answer({ question: 'q1', state: 'answered', decision: 'actionable' });
    await writer.close();
    expect(performance.now() - t0).toBeLessThan(5_000);
    expect(writes).toEqual([1, 1, 1]);
    expect(await stored(store)).toEqual(['stage:bag 1', 'stage:bag 3', 'answer:q1']);
    // closed: later events are not written
    writer.stage(stage(4));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(writes).toHaveLength(3);
  });

  it('flush returns while a busy fit keeps reporting (a pending reply is not held)', async () => {
    const { store, services } = await setUp(5);
    const writer = new TaskEventWriter(services, 60_000);
    writer.attach('tk_1', 'a');
    let bag = 0;
    // a new step every event: none replaces another, so the queue is never empty for long
    const busy = setInterval(() => writer.stage({ ...stage(++bag), step: bag % 2 ? 'binning' : 'fitting' }), 1);
    try {
      await new Promise((resolve) => setTimeout(resolve, 30));
      const before = bag;
      await writer.flush();
      expect(bag).toBeGreaterThan(before); // events came while it wrote
      expect((await store.listTaskEvents('tk_1', 0, 10_000)).length).toBeGreaterThanOrEqual(before);
    } finally {
      clearInterval(busy);
    }
    await writer.close();
    expect((await store.listTaskEvents('tk_1', 0, 10_000)).length).toBe(bag);
  });
});
