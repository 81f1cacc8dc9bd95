// docs/reference/schedules.md#schedule across nodes: three node processes on one PostgreSQL, each looking for due
// schedules every 100 ms, start each period's run exactly once between them; the run is a task any node may
// run. The schedule's source is refused by the nodes' fetch rules (a private address), so every run halts
// with source_unreachable, which is what lets the test make the next period due by hand (the nodes keep
// time on the database's clock, which a test cannot move).
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { post, startCluster, type TestCluster } from '../helpers/cluster.ts';

let cluster: TestCluster;
let db: pg.Client;

beforeAll(async () => {
  cluster = await startCluster({ nodes: 3, env: { SCHEDULE_TICK_MS: '100' } });
  db = new pg.Client({ connectionString: cluster.databaseUrl });
  await db.connect();
}, 120_000);

afterAll(async () => {
  await db?.end();
  await cluster?.close();
});

async function settledRuns(scheduleId: string, runs: number): Promise<any> {
  for (let i = 0; i < 600; i++) {
    const r = await db.query('SELECT state, halt_code, run_state, last_run FROM schedules WHERE schedule_id = $1', [scheduleId]);
    const n = (await cluster.store.listScheduleRuns(scheduleId)).length;
    if (r.rows[0].run_state !== 'running' && n >= runs) return { row: r.rows[0], runs: n };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('no settled run');
}

it('starts each period once among three nodes, across four periods', async () => {
  const { key, workspaceId } = await cluster.liveCaller('sched-cluster', true);
  // a confirmed mapping whose one source the nodes may not fetch (as svc_map would keep it)
  await cluster.store.putMapping({
    workspace_id: workspaceId,
    namespace: '',
    mapping_id: 'mp_cluster_schedule',
    request: JSON.stringify({
      request: {
        sources: [{ fetch_url: 'https://10.255.255.1/customer_events.csv' }],
        answers: { entity: [], outcome: { offer_id: 'lapsed:customer_events' } },
        reading: { snapshot_every: '1w', horizon: { value: 30, unit: 'days' } },
      },
      manifest: {},
    }),
    created_at: Date.now(),
  });
  const base = cluster.proxy!.url;
  const made = await post(base, '/v1/schedule', { mapping_id: 'mp_cluster_schedule', cadence: 'daily', subject_kind: 'org' }, key);
  expect(made.status, JSON.stringify(made.body)).toBe(200);
  const id = made.body.schedule.schedule_id;
  let s = await settledRuns(id, 1);
  expect(s.row.state).toBe('halted');
  expect(s.row.halt_code).toBe('source_unreachable');
  for (let period = 2; period <= 4; period++) {
    // the next period falls due now: every node sees it within 100 ms
    await db.query(
      "UPDATE schedules SET state = 'active', halt_code = NULL, next_run_at = (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT - $2 WHERE schedule_id = $1",
      [id, period],
    );
    s = await settledRuns(id, period);
    // several ticks of every node later, still one run for the period
    await new Promise((resolve) => setTimeout(resolve, 700));
    const runs = await cluster.store.listScheduleRuns(id);
    expect(runs, `period ${period}`).toHaveLength(period);
    expect(new Set(runs.map((r) => r.run_id)).size).toBe(period);
    expect(JSON.parse(s.row.last_run).state).toBe('halted');
  }
  // the runs ran as tasks, each finished once
  const runIds = (await cluster.store.listScheduleRuns(id)).map((r) => r.run_id);
  const tasks = await db.query('SELECT status, attempts FROM tasks WHERE id = ANY($1)', [runIds]);
  expect(tasks.rows).toHaveLength(4);
  for (const t of tasks.rows) expect(t).toMatchObject({ status: 'done', attempts: 1 });
}, 180_000);
