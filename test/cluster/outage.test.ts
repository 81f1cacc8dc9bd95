// PostgreSQL going away under real node processes, on a server of this file's own (pg_ctl stop and
// start would take the run's shared server from every other file): unreachable at start, a node says so in one
// line naming DATABASE_URL and exits non-zero; lost while 3 nodes serve behind HAProxy, every call gets the
// nodes' own 503 problem with its code and remedy, no node crashes, nothing half-written is left, and every
// node serves again on its own once the database is back.
import { spawn } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { post, startCluster, type TestCluster } from '../helpers/cluster.ts';
import { createDatabase, freePort, startPostgres, type PostgresServer } from '../helpers/postgres.ts';

const root = path.resolve(import.meta.dirname, '../..');
let server: PostgresServer;
let c: TestCluster;
const METRICS_TOKEN = 'outage-metrics-token-0123456789';

beforeAll(async () => {
  server = await startPostgres();
  c = await startCluster({
    databaseUrl: await createDatabase(server.url, 'outage'),
    env: { PENDING_WAIT_MS: '60000', FIT_WORKERS: '1', METRICS_TOKEN },
  });
});
afterAll(async () => {
  await c?.close();
  await server?.destroy();
});

const sampleAsk = {
  data: { dataset_id: 'sample:saas_churn' },
  entity_column: 'customer_id',
  subject_kind: 'org',
  questions: { q: { type: 'yesno', outcome_column: 'churned' } },
  cases: { ids: ['cust_0001'] },
};

it('refuses to start when PostgreSQL is unreachable: one line naming DATABASE_URL, exit code 1', async () => {
  const url = `postgres://app:secret@127.0.0.1:${await freePort()}/nowhere`;
  const child = spawn(process.execPath, ['--import', 'tsx', 'host/main.ts'], {
    cwd: root,
    env: { ...process.env, PORT: '0', DATABASE_URL: url, DATA_DIR: path.join(server.dir, 'unused'), LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(code).toBe(1);
  const lines = stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/DATABASE_URL \(postgres:\/\/app@127\.0\.0\.1:\d+\/nowhere\)/);
  expect(lines[0]).toMatch(/ECONNREFUSED/);
  expect(lines[0]).not.toContain('secret');
});

it('answers 503 store_unavailable with a remedy while PostgreSQL is down, crashes nothing, writes nothing, and serves again once it is back', async () => {
  const { key, workspaceId } = await c.liveCaller('outage');
  const bases = [...c.nodes.map((n) => n.url), c.proxy!.url];
  for (const base of bases) expect((await post(base, '/v1/ask', sampleAsk, key)).status).toBe(200);

  await server.stop('fast');
  for (const base of bases) {
    const r = await post(base, '/v1/ask', sampleAsk, key);
    expect(r.status).toBe(503);
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(r.body).toMatchObject({ code: 'store_unavailable', status: 503 });
    expect(r.body.remedy).toMatch(/reconnects by itself/);
    const added = await post(base, '/v1/add-dataset', { rows: [{ id: 'a', x: 1 }] }, key);
    expect(added.status).toBe(503);
    expect(added.body.code).toBe('store_unavailable');
    // still alive: the process answers its health check (and HAProxy keeps sending it the calls)
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    // but not ready: /readyz asks the store
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await ready.json()).status).toBe('not_ready');
  }
  // what the operator's scraper sees: the store's failed calls
  const metrics = await (await fetch(`${c.nodes[0].url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const storeErrors = metrics.split('\n').filter((l) => l.startsWith('oq_store_errors_total{'));
  expect(storeErrors.reduce((n, l) => n + Number(l.split(' ')[1]), 0)).toBeGreaterThan(0);
  expect(metrics).toMatch(/^oq_refusals_total\{operation="\/v1\/ask",status="503"\} [1-9]/m);
  for (const n of c.nodes) expect(n.child.exitCode).toBeNull();

  await server.start();
  for (const base of bases) {
    let status = 0;
    for (let i = 0; i < 300 && status !== 200; i++) {
      status = (await post(base, '/v1/ask', sampleAsk, key)).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  }
  // the add-dataset calls refused during the outage left no dataset and no piece behind
  const db = new pg.Client({ connectionString: c.databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query(
      'SELECT (SELECT COUNT(*) FROM datasets WHERE workspace_id = $1) AS datasets, (SELECT COUNT(*) FROM dataset_pieces p JOIN datasets d ON d.id = p.dataset_id WHERE d.workspace_id = $1) AS pieces',
      [workspaceId],
    );
    expect(rows[0]).toEqual({ datasets: '0', pieces: '0' });
  } finally {
    await db.end();
  }
  expect((await post(c.nodes[0].url, '/v1/add-dataset', { rows: [{ id: 'a', x: 1 }] }, key)).status).toBe(200);
});
