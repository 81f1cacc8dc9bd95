// docs/reference/schedules.md#runs: a schedule run by a test clock through three periods, its node restarted
// between them. The logs are fetched from a loopback https origin (with a header the mapping keeps sealed)
// that gains a week of events before the second period and none before the third: the first run fits
// plainly; the second refits with refit_of, reads drift, acts on it by the rule and reports the outcomes
// closed since the first; the third skips the fit (the labelled readings are unchanged) and scores with
// the model in use. Each period runs once, whatever the ticks and the restart.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, type TestService } from '../../helpers/service.ts';
import { SAMPLE_LOG, startLogOrigin, startScheduleService, type LogOrigin } from './helpers.ts';

const DAY = 86_400_000;
const SAMPLE = SAMPLE_LOG.trim().split('\n');
const SECRET = 'Bearer origin-secret-42';

/** The sample log's events up to and including `last` (ISO date). */
function eventsUpTo(last: string): string {
  const [header, ...rows] = SAMPLE;
  return [header, ...rows.filter((r) => r.split(',')[1] <= last)].join('\n') + '\n';
}

let origin: LogOrigin;
let served = eventsUpTo('2024-08-25');
let dataDir: string;
let svc: TestService;
const clock = { now: Date.parse('2024-09-02T06:00:00Z') };

async function start(): Promise<TestService> {
  const s = await startScheduleService(
    origin,
    { dataDir },
    // one clock for both nodes, moved before the restarted node starts dispatching
    { now: () => clock.now },
  );
  return s;
}

async function waitForRun(s: TestService, ws: string, scheduleId: string, runs: number): Promise<any> {
  for (let i = 0; i < 1200; i++) {
    const row = await s.services.store.getSchedule(ws, scheduleId);
    const last = row?.last_run ? JSON.parse(row.last_run) : null;
    // the row says the run is over before the run's task completes; the test's clock must not jump a week while
    // that task still holds its lease, or the lease looks lapsed and the task runner claims the task again
    const task = row?.run_id ? await s.services.store.getTask(ws, row.run_id) : null;
    const taskOver = task !== null && (task.status === 'done' || task.status === 'failed');
    if (row && row.run_state !== 'running' && last && taskOver && (await runsOf(s, scheduleId)) === runs) return { row, last };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the scheduled run did not finish');
}

/** The runs the schedule has had (one row per period in the store). */
async function runsOf(s: TestService, scheduleId: string): Promise<number> {
  return (await s.services.store.listScheduleRuns(scheduleId)).length;
}

beforeAll(async () => {
  origin = await startLogOrigin((req) => (req.headers.authorization === SECRET ? served : 401));
  dataDir = tempDir('oq-schedule-');
  svc = await start();
}, 60_000);

afterAll(async () => {
  await svc?.close();
  await origin?.server.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('svc_schedule: three periods, one node restart', () => {
  it('runs each period once, refits by the drift rule, reports closed outcomes, skips an unchanged fit', async () => {
    const { key, workspaceId: ws } = await svc.liveCaller('sched', true);
    const url = origin.url;
    const map = await svc.post(
      '/v1/map',
      {
        sources: [{ fetch_url: url, fetch_headers: { authorization: SECRET } }],
        answers: { outcome: { offer_id: 'lapsed:customer_events' } },
      },
      key,
    );
    expect(map.status, JSON.stringify(map.body)).toBe(200);
    expect(map.body.status).toBe('confirmed');
    // the header is kept sealed: not in the stored mapping's text
    const kept = await svc.services.store.getMapping(ws, '', map.body.mapping_id);
    expect(kept!.request).not.toContain('origin-secret-42');
    expect(kept!.request).toContain('sealed_headers');

    const made = await svc.post('/v1/schedule', { mapping_id: map.body.mapping_id, cadence: 'weekly', subject_kind: 'org' }, key);
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const scheduleId = made.body.schedule.schedule_id;
    expect(scheduleId).toMatch(/^sc_[0-9a-z]{20,40}$/);
    expect(made.body.schedule.state).toBe('active');
    expect(made.body.schedule.last_run.state).toBe('running');
    expect(made.body.watch_url).toMatch(/\/watch\//);
    expect(made.body.schedule.next_run_at).toBe(new Date(clock.now + 7 * DAY).toISOString());

    // period 1: a plain fit; nothing to compare or report yet
    const p1 = await waitForRun(svc, ws, scheduleId, 1);
    expect(p1.last.state, JSON.stringify(p1.last)).toBe('done');
    expect(p1.last.steps).toEqual({ map: 'done', fit: 'done', drift: 'skipped', score: 'done', report: 'skipped' });
    expect(p1.last.fits_run).toBe(1);
    expect(p1.last.as_of).toBe('2024-08-25T00:00:00.000Z');
    expect(p1.row.model_ref).toMatch(/^mr1_/);
    expect(p1.last.scored).toBeGreaterThan(0);
    const firstModel = p1.row.model_ref;
    // docs/reference/journeys.md#describe: svc_describe with the key lists the schedule and its latest run; without a key, none
    const described = await svc.post('/v1/describe', {}, key);
    expect(described.body.schedules).toEqual([
      {
        schedule_id: scheduleId,
        mapping_id: map.body.mapping_id,
        cadence: 'weekly',
        state: 'active',
        next_run_at: made.body.schedule.next_run_at,
        last_run: p1.last,
      },
    ]);
    expect((await svc.post('/v1/describe', {})).body.schedules).toBeUndefined();
    const stranger = await svc.post('/v1/describe', {}, 'svck_live_notakey');
    expect(stranger.status).toBe(200);
    expect(stranger.body.schedules).toBeUndefined();
    // ticks within the period start nothing more
    await new Promise((r) => setTimeout(r, 600));
    expect(await runsOf(svc, scheduleId)).toBe(1);

    // period 2: a week of new events, the node restarted; the due run starts once on the new node
    await svc.close();
    served = eventsUpTo('2024-09-01');
    clock.now = Date.parse('2024-09-09T06:30:00Z');
    svc = await start();
    const p2 = await waitForRun(svc, ws, scheduleId, 2);
    expect(p2.last.state, JSON.stringify(p2.last)).toMatch(/^(done|stopped)$/);
    expect(p2.last.steps.fit, JSON.stringify(p2.last)).toBe('done');
    expect(p2.last.steps.drift).toBe('done');
    expect(p2.last.closed_since).toBe('2024-08-25T00:00:00.000Z');
    expect(p2.last.at).toBe('2024-09-09T06:30:00.000Z');
    const rec = p2.last.drift.recommendation;
    expect(['keep', 'refit', 'abandon']).toContain(rec);
    // the rule: keep stays on the first model, refit switches, abandon stops the schedule
    if (rec === 'keep') expect(p2.row.model_ref).toBe(firstModel);
    if (rec === 'refit') expect(p2.row.model_ref).not.toBe(firstModel);
    if (rec === 'abandon') expect(p2.row.state).toBe('stopped');
    // the outcomes closed since the first run's as_of, reported to the first model once each
    expect(p2.last.steps.report, JSON.stringify(p2.last)).toBe('done');
    expect(p2.last.reported).toBeGreaterThan(0);
    const track = await svc.post('/v1/track-record', { model_ref: firstModel }, key);
    expect(track.status).toBe(200);
    expect(JSON.stringify(track.body)).toContain('"model_ref"');
    if (rec === 'abandon') return;

    // period 3: the origin has nothing new; the fit is skipped, the model in use scores
    clock.now = Date.parse('2024-09-16T07:00:00Z');
    const p3 = await waitForRun(svc, ws, scheduleId, 3);
    expect(p3.last.state, JSON.stringify(p3.last)).toBe('done');
    expect(p3.last.steps.fit).toBe('skipped');
    expect(p3.last.fits_run).toBe(0);
    expect(p3.last.steps.score).toBe('done');
    expect(p3.last.scored).toBeGreaterThan(0);
    expect(p3.row.model_ref).toBe(p2.row.model_ref);
    expect(p3.last.steps.report).toBe('done');
    expect(p3.last.reported).toBe(0);
    await new Promise((r) => setTimeout(r, 600));
    expect(await runsOf(svc, scheduleId)).toBe(3);
    expect(origin.fetches()).toBeGreaterThanOrEqual(4); // the map, then once per run
  }, 240_000);
});
