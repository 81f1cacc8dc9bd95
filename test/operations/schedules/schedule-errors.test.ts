// docs/reference/schedules.md#schedule, docs/reference/schedules.md#delete, docs/reference/errors.md#codes: every bad svc_schedule / svc_delete_schedule input is a Problem naming
// its field; the key rules (live key with write:outcomes; OAuth refused; test key samples only); a mapping of
// stored datasets cannot be scheduled; a deleted schedule runs no more and a repeat is unknown_schedule; a
// revoked key or an unreachable source halts the schedule (a field, not a problem).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../../host/runtime/keys.ts';
import { scheduleOperation } from '../../../host/operations/schedules/schedule.ts';
import { bodyOnlyRequest } from '../../../host/operations/operation.ts';
import type { TestService } from '../../helpers/service.ts';
import { SAMPLE_LOG, startLogOrigin, startScheduleService, type LogOrigin } from './helpers.ts';

const DAY = 86_400_000;
let origin: LogOrigin;
let down = false;
let svc: TestService;

beforeAll(async () => {
  origin = await startLogOrigin(() => (down ? 503 : SAMPLE_LOG));
  svc = await startScheduleService(origin, {}, { manualClock: true });
}, 60_000);

afterAll(async () => {
  await svc?.close();
  await origin?.server.close();
});

async function mapping(key: string): Promise<string> {
  const r = await svc.post(
    '/v1/map',
    {
      sources: [{ fetch_url: origin.url }],
      answers: { outcome: { offer_id: 'lapsed:customer_events' } },
    },
    key,
  );
  expect(r.body.status, JSON.stringify(r.body).slice(0, 300)).toBe('confirmed');
  return r.body.mapping_id;
}

/**
 * Waits for the schedule's `runs`-th run to be over: the schedule row says so and the run's task is done too. The
 * row is written before the task completes; a test that then moves its clock on by a day makes the still-running
 * task's lease look lapsed, and the task runner would claim it again.
 */
async function settled(ws: string, id: string, runs: number): Promise<any> {
  for (let i = 0; i < 1200; i++) {
    const row = await svc.services.store.getSchedule(ws, id);
    const n = (await svc.services.store.listScheduleRuns(id)).length;
    const task = row?.run_id ? await svc.services.store.getTask(ws, row.run_id) : null;
    const taskOver = task !== null && (task.status === 'done' || task.status === 'failed');
    if (row && row.run_state !== 'running' && n === runs && taskOver) return { row, last: JSON.parse(row.last_run!) };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('no settled run');
}

describe('svc_schedule inputs', () => {
  it('names the field of every bad input', async () => {
    const key = await svc.liveKey('sched-bad', true);
    const good = { mapping_id: 'mp_abcdef12345', cadence: 'weekly', subject_kind: 'org' };
    const cases: Array<[unknown, string]> = [
      [{ cadence: 'weekly', subject_kind: 'org' }, 'mapping_id'],
      [{ ...good, mapping_id: 'map-1' }, 'mapping_id'],
      [{ ...good, cadence: 'hourly' }, 'cadence'],
      [{ ...good, cadence: undefined }, 'cadence'],
      [{ ...good, subject_kind: 'robot' }, 'subject_kind'],
      [{ ...good, subject_kind: 'person' }, 'acknowledge_decision_support'],
      [{ ...good, namespace: 'Bad Space' }, 'namespace'],
      [{ ...good, every: '1w' }, 'every'],
    ];
    for (const [body, field] of cases) {
      const r = await svc.post('/v1/schedule', body, key);
      expect([400, 422], JSON.stringify(r.body)).toContain(r.status);
      expect(r.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(r.body.field ?? r.body.errors?.[0]?.field, JSON.stringify(r.body)).toBe(field);
    }
    for (const [body, field] of [
      [{}, 'schedule_id'],
      [{ schedule_id: 'sc_short' }, 'schedule_id'],
      [{ schedule_id: 'sc_abcdefghijklmnopqrstuvwx', extra: 1 }, 'extra'],
    ] as const) {
      const r = await svc.post('/v1/delete-schedule', body, key);
      expect([400, 422], JSON.stringify(r.body)).toContain(r.status);
      expect(r.body.field, JSON.stringify(r.body)).toBe(field);
    }
  });

  it('refuses an unknown mapping, a mapping of stored datasets, a key without write:outcomes, a test key and an OAuth caller', async () => {
    const { key, workspaceId } = await svc.liveCaller('sched-keys', true);
    const unknown = await svc.post('/v1/schedule', { mapping_id: 'mp_abcdef12345', cadence: 'daily', subject_kind: 'org' }, key);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'unknown_mapping', field: 'mapping_id' });

    const stored = await svc.post(
      '/v1/map',
      { sources: [{ dataset_id: 'sample:customer_events' }], answers: { outcome: { offer_id: 'lapsed:customer_events' } } },
      key,
    );
    expect(stored.body.status).toBe('confirmed');
    const fixed = await svc.post('/v1/schedule', { mapping_id: stored.body.mapping_id, cadence: 'daily', subject_kind: 'org' }, key);
    expect(fixed.status).toBe(422);
    expect(fixed.body).toMatchObject({ code: 'schedule_sources_not_refetchable', field: 'mapping_id' });
    expect(fixed.body.detail).toContain('sample:customer_events');

    const mp = await mapping(key);
    const readOnly = await svc.post(
      '/v1/schedule',
      { mapping_id: mp, cadence: 'daily', subject_kind: 'org' },
      await svc.liveKey('sched-keys-ro', false),
    );
    expect(readOnly.status).toBe(403);
    expect(readOnly.body.code).toBe('scope_required');

    const test = await svc.post('/v1/schedule', { mapping_id: mp, cadence: 'daily', subject_kind: 'org' }, await svc.testKey());
    expect(test.status, JSON.stringify(test.body)).toBe(403);
    expect(['test_key_samples_only', 'scope_required']).toContain(test.body.code);

    // an OAuth sign-in holds write:outcomes (docs/reference/auth.md#capabilities) but cannot lend itself to runs
    const oauth = {
      ...svc.ctx(workspaceId),
      caller: { ...svc.ctx(workspaceId).caller!, via: 'oauth' as const, keyId: null, subject: 'oauth:https://id.example#u1' },
    };
    await expect(
      scheduleOperation.run(oauth, { mapping_id: mp, cadence: 'daily', subject_kind: 'org' }, bodyOnlyRequest()),
    ).rejects.toMatchObject({
      code: 'schedule_key_required',
    });
    expect(await svc.services.store.listSchedules(workspaceId)).toEqual([]);
  });
});

describe('svc_delete_schedule and halts', () => {
  it('a deleted schedule runs no more; a repeat is unknown_schedule; the mapping and model stay', async () => {
    const { key, workspaceId } = await svc.liveCaller('sched-del', true);
    const mp = await mapping(key);
    const made = await svc.post('/v1/schedule', { mapping_id: mp, cadence: 'daily', subject_kind: 'org' }, key);
    const id = made.body.schedule.schedule_id;
    const first = await settled(workspaceId, id, 1);
    expect(first.last.state, JSON.stringify(first.last)).toBe('done');
    const del = await svc.post('/v1/delete-schedule', { schedule_id: id }, key);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ schedule_id: id, deleted: true });
    const again = await svc.post('/v1/delete-schedule', { schedule_id: id }, key);
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ code: 'unknown_schedule', field: 'schedule_id' });
    // another workspace cannot see or delete it either
    const other = await svc.post('/v1/delete-schedule', { schedule_id: id }, await svc.liveKey('sched-del-other', true));
    expect(other.body.code).toBe('unknown_schedule');
    svc.clock.now += 2 * DAY;
    await new Promise((r) => setTimeout(r, 800));
    expect(await svc.services.store.listScheduleRuns(id)).toEqual([]);
    expect(await svc.services.store.getMapping(workspaceId, '', mp)).not.toBeNull();
    const track = await svc.post('/v1/track-record', { model_ref: first.row.model_ref }, key);
    expect(track.status).toBe(200);
  }, 120_000);

  it('a model in use deleted meanwhile is fitted again on unchanged readings (plainly), not skipped and left unable to score', async () => {
    const { key, workspaceId } = await svc.liveCaller('sched-deleted-model', true);
    const mp = await mapping(key);
    const made = await svc.post('/v1/schedule', { mapping_id: mp, cadence: 'daily', subject_kind: 'org' }, key);
    const id = made.body.schedule.schedule_id;
    const first = await settled(workspaceId, id, 1);
    const model = first.row.model_ref;
    expect(model).toMatch(/^mr1_/);
    const del = await svc.post('/v1/delete-model', { model_ref: model }, key);
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    svc.clock.now += 86_400_000 + 60_000;
    const second = await settled(workspaceId, id, 2);
    expect(second.last.state, JSON.stringify(second.last)).toBe('done');
    expect(second.last.steps).toMatchObject({ fit: 'done', drift: 'skipped', score: 'done' });
    expect(second.last.scored).toBeGreaterThan(0);
    // the same readings give the same model back (docs/reference/models.md#delete: an ask brings a deleted model back)
    expect(second.row.model_ref).toBe(model);
    const again = await svc.post('/v1/track-record', { model_ref: model }, key);
    expect(again.status).toBe(200);
  }, 120_000);

  it('halts with credential_revoked when its key is revoked, and with source_unreachable when a source cannot be fetched', async () => {
    const { key, workspaceId } = await svc.liveCaller('sched-halt', true);
    const mp = await mapping(key);
    const a = await svc.post('/v1/schedule', { mapping_id: mp, cadence: 'daily', subject_kind: 'org' }, key);
    await settled(workspaceId, a.body.schedule.schedule_id, 1);
    // a second key of the workspace makes the other schedule, so revoking the first halts only its own
    const { key: second, record } = await issueApiKey(svc.services.store, {
      workspaceId,
      mode: 'live',
      scopes: ['write:outcomes'],
      now: svc.clock.now,
    });
    const b = await svc.post('/v1/schedule', { mapping_id: mp, cadence: 'daily', subject_kind: 'org' }, second);
    await settled(workspaceId, b.body.schedule.schedule_id, 1);

    const firstKeyId = (await svc.services.store.getSchedule(workspaceId, a.body.schedule.schedule_id))!.key_id;
    expect(firstKeyId).not.toBe(record.id);
    await svc.services.store.revokeApiKey(firstKeyId, svc.clock.now);
    down = true;
    svc.clock.now += DAY + 60_000;
    const ha = await settled(workspaceId, a.body.schedule.schedule_id, 2);
    expect(ha.row.state).toBe('halted');
    expect(ha.row.halt_code).toBe('credential_revoked');
    expect(ha.row.next_run_at).toBeNull();
    expect(ha.last.state).toBe('halted');
    const hb = await settled(workspaceId, b.body.schedule.schedule_id, 2);
    expect(hb.row.state).toBe('halted');
    expect(hb.row.halt_code).toBe('source_unreachable');
    expect(hb.last.error.code).toBe('fetch_failed');
    expect(hb.last.steps.map).toBe('failed');
    down = false;
    // halted schedules are not due any more
    svc.clock.now += 3 * DAY;
    await new Promise((r) => setTimeout(r, 800));
    expect(await svc.services.store.listScheduleRuns(a.body.schedule.schedule_id)).toHaveLength(2);
    expect(await svc.services.store.listScheduleRuns(b.body.schedule.schedule_id)).toHaveLength(2);
  }, 180_000);
});
