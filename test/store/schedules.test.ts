// Schedules (docs/reference/schedules.md#runs, docs/reference/schedules.md#delete; migration 11): a period's run starts once however many dispatchers race for
// it (the claim moves next_run_at on in the transaction that queues the run's task and keeps one run row per
// period), no run starts while the last one runs, a run records only while it is the schedule's, a run whose
// task ended unrecorded is found, and deleting erases the row. Both dialects.
import { expect, it } from 'vitest';
import type { ScheduleRecord } from '../../host/store/index.ts';
import { describeStores, HOUR, T0 } from './helpers.ts';

const schedule = (id: string, over: Partial<ScheduleRecord> = {}): ScheduleRecord => ({
  schedule_id: id,
  workspace_id: 'ws_1',
  namespace: '',
  mapping_id: 'mp_abcdef',
  cadence: 'weekly',
  subject_kind: 'org',
  acknowledged: false,
  key_id: 'key_1',
  scopes: ['write:outcomes'],
  sealed_headers: 'v1.a.b.c',
  state: 'active',
  halt_code: null,
  model_ref: null,
  fit_hash: null,
  anchor_at: T0,
  next_run_at: T0,
  run_id: null,
  run_state: null,
  last_run: null,
  created_at: T0,
  ...over,
});

const run = (id: string, now = T0) => ({ run_id: id, request: '{"operation":"svc_schedule"}', last_run: `{"run_id":"${id}"}`, now });

describeStores('schedules', ({ openStore }) => {
  it('starts each period once among racing dispatchers, and not while the last run runs', async () => {
    const store = await openStore();
    await store.putSchedule(schedule('sc_aaaaaaaaaaaaaaaaaaaaaa'));
    expect((await store.dueSchedules(T0, 10)).map((s) => s.schedule_id)).toEqual(['sc_aaaaaaaaaaaaaaaaaaaaaa']);
    expect(await store.dueSchedules(T0 - 1, 10)).toEqual([]);
    const tries = await Promise.all(
      ['tk_1', 'tk_2', 'tk_3', 'tk_4', 'tk_5'].map((id) =>
        store.startScheduleRun('sc_aaaaaaaaaaaaaaaaaaaaaa', T0, T0 + 168 * HOUR, run(id)),
      ),
    );
    expect(tries.filter(Boolean)).toHaveLength(1);
    const s = (await store.getSchedule('ws_1', 'sc_aaaaaaaaaaaaaaaaaaaaaa'))!;
    expect(s.next_run_at).toBe(T0 + 168 * HOUR);
    expect(s.run_state).toBe('running');
    expect(await store.runningScheduleRuns()).toBe(1);
    const runs = await store.listScheduleRuns('sc_aaaaaaaaaaaaaaaaaaaaaa');
    expect(runs).toEqual([{ period_at: T0, run_id: s.run_id, started_at: T0 }]);
    // its task is queued for any runner
    const task = await store.getTask('ws_1', s.run_id!);
    expect(task?.status).toBe('pending');
    // the next period, due while the run still runs: not started
    expect(await store.startScheduleRun('sc_aaaaaaaaaaaaaaaaaaaaaa', T0 + 168 * HOUR, T0 + 336 * HOUR, run('tk_6'))).toBe(false);
    // only the schedule's own run records; then the next period starts
    expect(await store.updateScheduleRun('sc_aaaaaaaaaaaaaaaaaaaaaa', 'tk_other', { last_run: '{}', run_state: 'done' })).toBe(false);
    expect(
      await store.updateScheduleRun('sc_aaaaaaaaaaaaaaaaaaaaaa', s.run_id!, { last_run: '{"x":1}', run_state: 'done', model_ref: 'mr1_x' }),
    ).toBe(true);
    expect(await store.startScheduleRun('sc_aaaaaaaaaaaaaaaaaaaaaa', T0 + 168 * HOUR, T0 + 336 * HOUR, run('tk_7', T0 + 168 * HOUR))).toBe(
      true,
    );
    expect((await store.listScheduleRuns('sc_aaaaaaaaaaaaaaaaaaaaaa')).map((r) => r.run_id)).toEqual([s.run_id, 'tk_7']);
    expect((await store.getSchedule('ws_1', 'sc_aaaaaaaaaaaaaaaaaaaaaa'))!.model_ref).toBe('mr1_x');
  });

  it('finds runs whose task ended or vanished unrecorded; stopped and halted schedules are never due; delete erases', async () => {
    const store = await openStore();
    await store.putSchedule(schedule('sc_bbbbbbbbbbbbbbbbbbbbbb'));
    await store.putSchedule(schedule('sc_cccccccccccccccccccccc', { state: 'halted', halt_code: 'credential_revoked', next_run_at: null }));
    await store.putSchedule(schedule('sc_dddddddddddddddddddddd', { state: 'stopped', next_run_at: T0 - HOUR }));
    expect((await store.dueSchedules(T0 + HOUR, 10)).map((s) => s.schedule_id)).toEqual(['sc_bbbbbbbbbbbbbbbbbbbbbb']);
    expect(await store.startScheduleRun('sc_bbbbbbbbbbbbbbbbbbbbbb', T0, T0 + 24 * HOUR, run('tk_b1'))).toBe(true);
    expect(await store.lostScheduleRuns()).toEqual([]);
    // the task given up (failed) without the run recording its end
    const claimed = await store.claimTask('tk_b1', { owner: 'node-a', now: T0, lease_ms: 60_000 });
    expect(claimed).not.toBeNull();
    await store.failTask('tk_b1', 'node-a', '{"code":"internal"}', T0);
    expect((await store.lostScheduleRuns()).map((s) => s.schedule_id)).toEqual(['sc_bbbbbbbbbbbbbbbbbbbbbb']);
    expect(await store.listSchedules('ws_1')).toHaveLength(3);
    expect(await store.deleteSchedule('ws_1', 'sc_bbbbbbbbbbbbbbbbbbbbbb')).toBe(true);
    expect(await store.deleteSchedule('ws_1', 'sc_bbbbbbbbbbbbbbbbbbbbbb')).toBe(false);
    expect(await store.getSchedule('ws_1', 'sc_bbbbbbbbbbbbbbbbbbbbbb')).toBeNull();
    expect(await store.listScheduleRuns('sc_bbbbbbbbbbbbbbbbbbbbbb')).toEqual([]);
    expect(await store.deleteSchedule('ws_2', 'sc_cccccccccccccccccccccc')).toBe(false);
    const c = (await store.getSchedule('ws_1', 'sc_cccccccccccccccccccccc'))!;
    expect(c).toEqual(schedule('sc_cccccccccccccccccccccc', { state: 'halted', halt_code: 'credential_revoked', next_run_at: null }));
  });
});
