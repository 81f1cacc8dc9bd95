// Tasks: born running under a lease or claimed with one (exclusive, across connections), attempts,
// renewal, hand-back, completion and failure.
import { expect, it } from 'vitest';
import { describeStores, T0 } from './helpers.ts';

const LEASE = { lease_ms: 30_000 };

describeStores('tasks', ({ openStore, newPlace }) => {
  it('creates a pending task and gets it within its workspace', async () => {
    const store = await openStore();
    const t = await store.createTask({ id: 'tk_1', workspace_id: 'ws_1', request: '{"q":1}', created_at: T0 });
    expect(t).toMatchObject({ status: 'pending', stage: null, lease_owner: null, result: null, attempts: 0, updated_at: T0 });
    expect(await store.getTask('ws_1', 'tk_1')).toEqual(t);
    expect(await store.getTask('ws_2', 'tk_1')).toBeNull();
  });

  it('lets exactly one of two concurrent claims win', async () => {
    const store = await openStore();
    await store.createTask({ id: 'tk_1', workspace_id: 'ws_1', request: '{}', created_at: T0 });
    const [a, b] = await Promise.all([
      store.claimTask('tk_1', { owner: 'a', now: T0, ...LEASE }),
      store.claimTask('tk_1', { owner: 'b', now: T0, ...LEASE }),
    ]);
    expect([a, b].filter(Boolean)).toHaveLength(1);
    expect(a).toMatchObject({ status: 'running', lease_owner: 'a', lease_until: T0 + 30_000 });
  });

  it('lets exactly one of two processes’ connections claim the same task', async () => {
    const dir = await newPlace();
    const one = await openStore(dir);
    const two = await openStore(dir);
    await one.createTask({ id: 'tk_1', workspace_id: 'ws_1', request: '{}', created_at: T0 });
    const first = await two.claimNextTask({ owner: 'two', now: T0, ...LEASE });
    const second = await one.claimNextTask({ owner: 'one', now: T0 + 1, ...LEASE });
    expect(first?.id).toBe('tk_1');
    expect(second).toBeNull();
  });

  it('creates a task already running under its creator’s lease, so another process’s runner cannot claim it first', async () => {
    const dir = await newPlace();
    const one = await openStore(dir);
    const two = await openStore(dir);
    const t = await one.createTask({
      id: 'tk_1',
      workspace_id: 'ws_1',
      request: '{}',
      created_at: T0,
      lease: { owner: 'one', lease_until: T0 + 30_000 },
    });
    expect(t).toMatchObject({ status: 'running', lease_owner: 'one', lease_until: T0 + 30_000, attempts: 1 });
    expect(await two.getTask('ws_1', 'tk_1')).toEqual(t);
    // a runner in the other process, polling at the very moment of creation, finds nothing to claim
    expect(await two.claimNextTask({ owner: 'two', now: T0, ...LEASE })).toBeNull();
    expect(await one.renewTaskLease('tk_1', { owner: 'one', now: T0 + 10_000, ...LEASE })).toBe(true);
    expect(await one.completeTask('tk_1', 'one', '{}', T0 + 20_000)).toBe(true);
  });

  it('counts every claim as an attempt; a hand-back is claimable at once and not counted', async () => {
    const store = await openStore();
    await store.createTask({
      id: 'tk_1',
      workspace_id: 'ws_1',
      request: '{}',
      created_at: T0,
      lease: { owner: 'a', lease_until: T0 + 30_000 },
    });
    expect(await store.claimTask('tk_1', { owner: 'b', now: T0 + 30_001, ...LEASE })).toMatchObject({ attempts: 2, lease_owner: 'b' });
    expect(await store.claimTask('tk_1', { owner: 'c', now: T0 + 60_002, ...LEASE })).toMatchObject({ attempts: 3, lease_owner: 'c' });
    expect(await store.releaseTask('tk_1', 'b', T0 + 60_003)).toBe(false); // not b's any more
    expect(await store.releaseTask('tk_1', 'c', T0 + 60_003)).toBe(true);
    expect(await store.getTask('ws_1', 'tk_1')).toMatchObject({ status: 'pending', lease_owner: null, lease_until: null, attempts: 2 });
    expect(await store.claimNextTask({ owner: 'd', now: T0 + 60_004, ...LEASE })).toMatchObject({ id: 'tk_1', attempts: 3 });
  });

  it('points the in-flight idempotency record at a new task in the same transaction, never over a stored reply', async () => {
    const store = await openStore();
    const idem = (key: string, status_code: number, response: string | null) => ({
      workspace_id: 'ws_1',
      operation: 'svc_ask',
      key,
      body_hash: 'h',
      status_code,
      response,
      task_id: null,
      lease_owner: status_code === 0 ? 'a' : null,
      lease_until: status_code === 0 ? T0 + 15_000 : null,
      created_at: T0,
    });
    await store.putIdempotency(idem('k1', 0, null));
    await store.putIdempotency(idem('k2', 200, '{"done":1}'));
    const lease = { owner: 'a', lease_until: T0 + 30_000 };
    await store.createTask({
      id: 'tk_1',
      workspace_id: 'ws_1',
      request: '{}',
      created_at: T0,
      lease,
      idempotency: { operation: 'svc_ask', key: 'k1', status_code: 202, response: '{"task_id":"tk_1"}' },
    });
    await store.createTask({
      id: 'tk_2',
      workspace_id: 'ws_1',
      request: '{}',
      created_at: T0,
      lease,
      idempotency: { operation: 'svc_ask', key: 'k2', status_code: 202, response: '{"task_id":"tk_2"}' },
    });
    expect(await store.getIdempotency('ws_1', 'svc_ask', 'k1')).toMatchObject({
      status_code: 202,
      response: '{"task_id":"tk_1"}',
      task_id: 'tk_1',
      lease_owner: null,
      lease_until: null,
    });
    expect(await store.getIdempotency('ws_1', 'svc_ask', 'k2')).toMatchObject({ status_code: 200, response: '{"done":1}', task_id: null });
  });

  it('points the in-flight record at a task queued without a lease (the creator named as its owner)', async () => {
    const store = await openStore();
    await store.putIdempotency({
      workspace_id: 'ws_1',
      operation: 'svc_ask',
      key: 'kq',
      body_hash: 'h',
      status_code: 0,
      response: null,
      task_id: null,
      lease_owner: 'a',
      lease_until: T0 + 15_000,
      created_at: T0,
    });
    // no thread free: the task waits in the store with no lease, but the call's record still becomes its 202
    const task = await store.createTask({
      id: 'tk_q',
      workspace_id: 'ws_1',
      request: '{}',
      created_at: T0,
      idempotency: { operation: 'svc_ask', key: 'kq', status_code: 202, response: '{"task_id":"tk_q"}', owner: 'a' },
    });
    expect(task.status).toBe('pending');
    expect(await store.getIdempotency('ws_1', 'svc_ask', 'kq')).toMatchObject({ status_code: 202, task_id: 'tk_q', lease_owner: null });
  });

  it('leaves an in-flight record another process took over alone when the first one goes pending late', async () => {
    const store = await openStore();
    // 'a' started the call; its lease ran out and 'b' took the record over and runs the call itself
    await store.putIdempotency({
      workspace_id: 'ws_1',
      operation: 'svc_ask',
      key: 'k1',
      body_hash: 'h',
      status_code: 0,
      response: null,
      task_id: null,
      lease_owner: 'b',
      lease_until: T0 + 15_000,
      created_at: T0,
    });
    await store.createTask({
      id: 'tk_a',
      workspace_id: 'ws_1',
      request: '{}',
      created_at: T0,
      lease: { owner: 'a', lease_until: T0 + 30_000 },
      idempotency: { operation: 'svc_ask', key: 'k1', status_code: 202, response: '{"task_id":"tk_a"}' },
    });
    expect(await store.getIdempotency('ws_1', 'svc_ask', 'k1')).toMatchObject({ status_code: 0, task_id: null, lease_owner: 'b' });
    expect(await store.getTask('ws_1', 'tk_a')).toMatchObject({ status: 'running', lease_owner: 'a' });
  });

  it('forgets a key on request (a 5xx reply is not kept for its retries)', async () => {
    const store = await openStore();
    await store.putIdempotency({
      workspace_id: 'ws_1',
      operation: 'svc_ask',
      key: 'k1',
      body_hash: 'h',
      status_code: 202,
      response: '{}',
      task_id: 'tk_1',
      lease_owner: null,
      lease_until: null,
      created_at: T0,
    });
    expect(await store.deleteIdempotency('ws_1', 'svc_ask', 'k2')).toBe(false);
    expect(await store.deleteIdempotency('ws_2', 'svc_ask', 'k1')).toBe(false);
    expect(await store.deleteIdempotency('ws_1', 'svc_ask', 'k1')).toBe(true);
    expect(await store.getIdempotency('ws_1', 'svc_ask', 'k1')).toBeNull();
  });

  it('lets another owner take over once the lease has expired, and the old owner can no longer finish', async () => {
    const store = await openStore();
    await store.createTask({ id: 'tk_1', workspace_id: 'ws_1', request: '{}', created_at: T0 });
    await store.claimTask('tk_1', { owner: 'a', now: T0, ...LEASE });
    expect(await store.claimTask('tk_1', { owner: 'b', now: T0 + 29_999, ...LEASE })).toBeNull();
    expect(await store.claimTask('tk_1', { owner: 'b', now: T0 + 30_001, ...LEASE })).toMatchObject({ lease_owner: 'b' });
    expect(await store.completeTask('tk_1', 'a', '{}', T0 + 30_002)).toBe(false);
    expect(await store.renewTaskLease('tk_1', { owner: 'a', now: T0 + 30_002, ...LEASE })).toBe(false);
  });

  it('renews the lease and records the stage', async () => {
    const store = await openStore();
    await store.createTask({ id: 'tk_1', workspace_id: 'ws_1', request: '{}', created_at: T0 });
    await store.claimTask('tk_1', { owner: 'a', now: T0, ...LEASE });
    expect(await store.renewTaskLease('tk_1', { owner: 'a', now: T0 + 20_000, stage: 'fitting', ...LEASE })).toBe(true);
    expect(await store.getTask('ws_1', 'tk_1')).toMatchObject({ stage: 'fitting', lease_until: T0 + 50_000, updated_at: T0 + 20_000 });
    expect(await store.claimTask('tk_1', { owner: 'b', now: T0 + 40_000, ...LEASE })).toBeNull();
  });

  it('completes and fails tasks held by the caller; finished tasks are not claimable', async () => {
    const store = await openStore();
    for (const id of ['tk_1', 'tk_2']) await store.createTask({ id, workspace_id: 'ws_1', request: '{}', created_at: T0 });
    expect(await store.completeTask('tk_1', 'a', '{"status":"done"}', T0)).toBe(false); // not claimed yet
    await store.claimTask('tk_1', { owner: 'a', now: T0, ...LEASE });
    await store.claimTask('tk_2', { owner: 'a', now: T0, ...LEASE });
    expect(await store.completeTask('tk_1', 'a', '{"status":"done"}', T0 + 1)).toBe(true);
    expect(await store.failTask('tk_2', 'a', '{"code":"internal"}', T0 + 2)).toBe(true);
    expect(await store.getTask('ws_1', 'tk_1')).toMatchObject({ status: 'done', result: '{"status":"done"}', lease_owner: null });
    expect(await store.getTask('ws_1', 'tk_2')).toMatchObject({ status: 'failed', problem: '{"code":"internal"}' });
    expect(await store.claimNextTask({ owner: 'b', now: T0 + 10 * 60_000, ...LEASE })).toBeNull();
  });

  it('lists unfinished tasks, oldest first', async () => {
    const store = await openStore();
    await store.createTask({ id: 'tk_b', workspace_id: 'ws_1', request: '{}', created_at: T0 + 1 });
    await store.createTask({ id: 'tk_a', workspace_id: 'ws_2', request: '{}', created_at: T0 });
    await store.createTask({ id: 'tk_c', workspace_id: 'ws_1', request: '{}', created_at: T0 + 2 });
    await store.claimTask('tk_c', { owner: 'a', now: T0, ...LEASE });
    await store.completeTask('tk_c', 'a', '{}', T0 + 3);
    await store.claimTask('tk_b', { owner: 'a', now: T0, ...LEASE });
    expect((await store.listUnfinishedTasks()).map((t) => [t.id, t.status])).toEqual([
      ['tk_a', 'pending'],
      ['tk_b', 'running'],
    ]);
  });
});
