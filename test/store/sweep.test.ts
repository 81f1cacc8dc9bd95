// The sweeper: everything past its 24 hours goes, everything younger stays.
import { expect, it } from 'vitest';
import { describeStores, HOUR, T0 } from './helpers.ts';

describeStores('sweep', ({ openStore }) => {
  it('removes expired idempotency records, tasks and unused datasets only', async () => {
    const store = await openStore();
    const old = T0 - 25 * HOUR;
    const fresh = T0 - HOUR;
    for (const [key, at] of [
      ['old', old],
      ['fresh', fresh],
    ] as const) {
      await store.putIdempotency({
        workspace_id: 'ws_1',
        operation: 'svc_ask',
        key,
        body_hash: 'h',
        status_code: 200,
        response: '{}',
        task_id: null,
        lease_owner: null,
        lease_until: null,
        created_at: at,
      });
      await store.createTask({ id: `tk_${key}`, workspace_id: 'ws_1', request: '{}', created_at: at });
      await store.createDataset({
        id: `ds_${key}`,
        workspace_id: 'ws_1',
        status: 'open',
        columns: null,
        row_count: 0,
        filename: null,
        created_at: at,
        last_used_at: at,
      });
    }
    // A task begun long ago but still renewing its lease stays.
    await store.createTask({ id: 'tk_running', workspace_id: 'ws_1', request: '{}', created_at: old });
    await store.claimTask('tk_running', { owner: 'a', now: fresh, lease_ms: 60_000 });

    expect(await store.sweep(T0)).toEqual({ idempotency: 1, tasks: 1, datasets: ['ds_old'], answers: 0 });
    expect(await store.getIdempotency('ws_1', 'svc_ask', 'old')).toBeNull();
    expect(await store.getIdempotency('ws_1', 'svc_ask', 'fresh')).not.toBeNull();
    expect(await store.getTask('ws_1', 'tk_old')).toBeNull();
    expect(await store.getTask('ws_1', 'tk_fresh')).not.toBeNull();
    expect(await store.getTask('ws_1', 'tk_running')).not.toBeNull();
    expect(await store.getDataset('ws_1', 'ds_old')).toBeNull();
    expect(await store.getDataset('ws_1', 'ds_fresh')).not.toBeNull();
    expect(await store.sweep(T0)).toEqual({ idempotency: 0, tasks: 0, datasets: [], answers: 0 });
  });

  it('takes a shorter retention when given', async () => {
    const store = await openStore();
    await store.createTask({ id: 'tk_1', workspace_id: 'ws_1', request: '{}', created_at: T0 - 2 * HOUR });
    expect((await store.sweep(T0, HOUR)).tasks).toBe(1);
  });
});
