// docs/reference/schedules.md#runs "an interrupted run resumes next tick without double billing": the node running a scheduled
// run stops while the run's fit is under way; the next node takes the run's task over and resumes it: the
// map step replays its stored reply (the source is not fetched again), the fit is run and billed once, and
// the period still has one run.
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempDir, type TestService } from '../../helpers/service.ts';
import { startLogOrigin, startScheduleService, type LogOrigin } from './helpers.ts';

let origin: LogOrigin;
let dataDir: string;
let svc: TestService;

const start = () =>
  startScheduleService(
    origin,
    // a short lease, so the next node takes the task over soon after the first stops
    { dataDir, taskLeaseMs: 1500 },
    // one clock for both nodes, set before the second starts claiming tasks
    { now: () => clock.now },
  );
const clock = { now: Date.parse('2025-01-06T06:00:00Z') };

beforeAll(async () => {
  origin = await startLogOrigin();
  dataDir = tempDir('oq-schedule-resume-');
  svc = await start();
}, 60_000);

afterAll(async () => {
  await svc?.close();
  await origin?.server.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it('resumes a run whose node stopped mid-fit: no second fetch, one fit billed, one run for the period', async () => {
  const { key, workspaceId } = await svc.liveCaller('sched-resume', true);
  const m = await svc.post(
    '/v1/map',
    {
      sources: [{ fetch_url: origin.url }],
      answers: { outcome: { offer_id: 'lapsed:customer_events' } },
    },
    key,
  );
  expect(m.body.status).toBe('confirmed');
  const fetchedByMap = origin.fetches();
  const made = await svc.post('/v1/schedule', { mapping_id: m.body.mapping_id, cadence: 'weekly', subject_kind: 'org' }, key);
  const id = made.body.schedule.schedule_id;
  // stop the node as soon as the run is fitting
  let seen: any = null;
  for (let i = 0; i < 3000 && !(seen && seen.steps.fit === 'running'); i++) {
    const row = await svc.services.store.getSchedule(workspaceId, id);
    seen = row?.last_run ? JSON.parse(row.last_run) : null;
    if (seen?.state !== 'running') break;
    await new Promise((r) => setTimeout(r, 10));
  }
  expect(seen.steps, JSON.stringify(seen)).toMatchObject({ map: 'done', fit: 'running' });
  expect(origin.fetches()).toBe(fetchedByMap + 1);
  await svc.close();

  clock.now = Date.parse('2025-01-06T06:05:00Z');
  svc = await start();
  let row: any = null;
  for (let i = 0; i < 1200; i++) {
    row = await svc.services.store.getSchedule(workspaceId, id);
    if (row.run_state !== 'running') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const last = JSON.parse(row.last_run);
  expect(last.state, JSON.stringify(last)).toBe('done');
  expect(last.run_id).toBe(seen.run_id);
  expect(last.steps).toMatchObject({ map: 'done', fit: 'done', score: 'done' });
  // the map step was replayed, not fetched again
  expect(origin.fetches(), JSON.stringify(last)).toBe(fetchedByMap + 1);
  expect(await svc.services.store.listScheduleRuns(id)).toHaveLength(1);
  // one fit billed for the period
  await svc.services.usage.flush();
  const usage = await svc.services.store.getMonthlyUsage(workspaceId, clock.now);
  expect(usage.fits, JSON.stringify(usage)).toBe(1);
}, 180_000);
