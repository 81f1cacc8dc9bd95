// Task events (docs/reference/tasks.md#events): numbered per task, written only by the lease holder, the last one stored with the
// task's final status, read by any connection, and swept with their task.
import { expect, it } from 'vitest';
import type { Store } from '../../host/store/index.ts';
import { describeStores, T0 } from './helpers.ts';

const LEASE = { lease_ms: 30_000 };
const stage = (n: number) => ({ kind: 'stage' as const, data: JSON.stringify({ n }), at: T0 + n });

async function runningTask(store: Store, events = [stage(1)]) {
  return store.createTask({
    id: 'tk_1',
    workspace_id: 'ws_1',
    request: '{}',
    created_at: T0,
    lease: { owner: 'a', lease_until: T0 + 30_000 },
    events,
  });
}

describeStores('task events', ({ openStore, newPlace }) => {
  it('stores the events a call made before it became a task as 1, 2, ..., then appends after them', async () => {
    const store = await openStore();
    await runningTask(store, [stage(1), stage(2)]);
    expect(await store.appendTaskEvents('tk_1', 'a', [stage(3), { kind: 'answer', data: '{"q":"q"}', at: T0 + 4 }])).toBe(true);
    const all = await store.listTaskEvents('tk_1', 0, 100);
    expect(all.map((e) => [e.seq, e.kind, JSON.parse(e.data)])).toEqual([
      [1, 'stage', { n: 1 }],
      [2, 'stage', { n: 2 }],
      [3, 'stage', { n: 3 }],
      [4, 'answer', { q: 'q' }],
    ]);
    expect((await store.listTaskEvents('tk_1', 2, 1)).map((e) => e.seq)).toEqual([3]);
    expect((await store.lastTaskEvent('tk_1', 'stage'))?.seq).toBe(3);
    expect(await store.lastTaskEvent('tk_1', 'done')).toBeNull();
  });

  it('refuses events from a process that does not hold the lease', async () => {
    const store = await openStore();
    await runningTask(store);
    expect(await store.appendTaskEvents('tk_1', 'b', [stage(2)])).toBe(false);
    expect(await store.listTaskEvents('tk_1', 0, 100)).toHaveLength(1);
  });

  it('stores done with the completed status in one step, and nothing after it', async () => {
    const store = await openStore();
    await runningTask(store);
    const done = { kind: 'done' as const, data: '{"status":"done"}', at: T0 + 9 };
    expect(await store.completeTask('tk_1', 'a', '{}', T0 + 9, done)).toBe(true);
    expect((await store.lastTaskEvent('tk_1', 'done'))?.seq).toBe(2);
    // the lease ended with the task: a late event of the old runner is refused
    expect(await store.appendTaskEvents('tk_1', 'a', [stage(3)])).toBe(false);
    // a second completion (another runner) adds no second done
    expect(await store.completeTask('tk_1', 'a', '{}', T0 + 10, done)).toBe(false);
    expect(await store.listTaskEvents('tk_1', 0, 100)).toHaveLength(2);
  });

  it('stores error with the failed status', async () => {
    const store = await openStore();
    await runningTask(store);
    expect(await store.failTask('tk_1', 'a', '{"code":"internal"}', T0 + 5, { kind: 'error', data: '{}', at: T0 + 5 })).toBe(true);
    expect((await store.listTaskEvents('tk_1', 0, 10)).map((e) => e.kind)).toEqual(['stage', 'error']);
  });

  it('a second connection (another node) reads the events the first wrote', async () => {
    const dir = await newPlace();
    const writer = await openStore(dir);
    const reader = await openStore(dir);
    await runningTask(writer);
    await writer.appendTaskEvents('tk_1', 'a', [stage(2)]);
    expect((await reader.listTaskEvents('tk_1', 1, 10)).map((e) => JSON.parse(e.data))).toEqual([{ n: 2 }]);
  });

  it('a runner that claims the task after a crash appends after the events already there', async () => {
    const store = await openStore();
    await runningTask(store, [stage(1), stage(2)]);
    expect(await store.claimTask('tk_1', { owner: 'b', now: T0 + 60_000, ...LEASE })).not.toBeNull();
    expect(await store.appendTaskEvents('tk_1', 'b', [stage(3)])).toBe(true);
    expect((await store.listTaskEvents('tk_1', 0, 10)).map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it('sweeps the events of swept tasks and keeps the others', async () => {
    const store = await openStore();
    await runningTask(store);
    await store.completeTask('tk_1', 'a', '{}', T0, { kind: 'done', data: '{}', at: T0 });
    await store.createTask({ id: 'tk_2', workspace_id: 'ws_1', request: '{}', created_at: T0 + 2 * 86_400_000, events: [stage(1)] });
    await store.sweep(T0 + 2 * 86_400_000);
    expect(await store.listTaskEvents('tk_1', 0, 10)).toEqual([]);
    expect(await store.listTaskEvents('tk_2', 0, 10)).toHaveLength(1);
  });
});
