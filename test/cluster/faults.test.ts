// The cluster under faults, real processes (docs/guides/more-than-one-machine.md): asks keep coming through
// HAProxy while one node is killed with SIGKILL and while PostgreSQL is stopped for 10 s and started again.
// Three clients, each in its own workspace, send an ask and poll it to its end before the next. Every reply is
// an answer (200), a pending (202) or a 503 with Retry-After, with no exception: a call in flight on the node
// as it is killed gets the proxy's 503 node_unavailable (deploy/haproxy.cfg, decision 0087), never a 502 or a
// closed connection, and the client sends it again after Retry-After with the same idempotency_key; no task is
// lost (every ask reaches its answer); and the usage ledger never bills an ask twice. The counts are printed.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bigRows } from '../helpers/big-rows.ts';
import { post, startCluster, type TestCluster } from '../helpers/cluster.ts';

type Client = { key: string; workspaceId: string };
import { createDatabase, startPostgres, type PostgresServer } from '../helpers/postgres.ts';

let server: PostgresServer;
let c: TestCluster;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  server = await startPostgres();
  c = await startCluster({
    databaseUrl: await createDatabase(server.url, 'faults'),
    env: { PENDING_WAIT_MS: '300', TASK_LEASE_MS: '3000', FIT_WORKERS: '1' },
  });
});
afterAll(async () => {
  await c?.close();
  await server?.destroy();
});

/** Ask `i`: its own record (so its own fit) and its own idempotency_key. */
const ask = (i: number) => ({
  data: { rows: bigRows().slice(0, 600 + 10 * i) },
  entity_column: 'id',
  subject_kind: 'other',
  questions: { q: { type: 'yesno', outcome_column: 'y' } },
  cases: { ids: ['e1', 'e2'] },
  idempotency_key: `faults-${i}`,
});

it('through a node killed and a database stopped for 10 s: only answers, pendings and 503s; no task lost or billed twice', async () => {
  const proxy = c.proxy!.url;
  const statuses: Record<string, number> = {};
  const bad: string[] = [];
  const pending = new Map<number, string>();
  const answered = new Set<number>();
  let sending = true;
  let next = 0;
  /** Calls whose node died under them: the proxy's 503 node_unavailable, sent again like any other 503. */
  let lostWithNode = 0;

  /** One call through the proxy, sent again after each 503 (the same idempotency_key); its last reply. */
  const call = async (who: Client, what: string, path: string, body: unknown): Promise<{ status: number; body: any } | null> => {
    for (;;) {
      let r: Awaited<ReturnType<typeof post>>;
      try {
        r = await post(proxy, path, body, who.key);
      } catch (err) {
        statuses.connection_error = (statuses.connection_error ?? 0) + 1;
        bad.push(`${what}: no reply (${(err as Error).cause ?? err})`);
        return null;
      }
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      if (r.status === 200 || r.status === 202) return r;
      if (r.status === 503 && Number(r.headers.get('retry-after')) > 0) {
        if (r.body?.code === 'node_unavailable') lostWithNode++;
        // again after a moment (Retry-After, capped so the test stays short)
        await sleep(Math.min(1000, Number(r.headers.get('retry-after')) * 1000));
        continue;
      }
      bad.push(`${what}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      return null;
    }
  };
  // A client as the docs describe one, in its own workspace: an ask, its pending task polled to the end, the next.
  const worker = async (who: Client) => {
    while (sending) {
      const i = next++;
      let r = await call(who, `ask ${i}`, '/v1/ask', ask(i));
      if (r?.status === 202) {
        pending.set(i, r.body.task_id);
        while (r?.status === 202) {
          await sleep(200);
          r = await call(who, `poll ${i}`, '/v1/poll', { task_id: pending.get(i) });
        }
      }
      if (r?.status === 200) {
        expect(r.body.status, `ask ${i}`).toBe('done');
        answered.add(i);
      }
    }
  };
  const clients = await Promise.all([1, 2, 3].map(() => c.liveCaller('faults')));
  const workers = clients.map((who) => worker(who));

  await sleep(3000);
  await c.nodes[0].kill();
  await sleep(3000);
  await server.stop('fast');
  await sleep(10_000);
  await server.start();
  await sleep(5000);
  sending = false;
  await Promise.all(workers);

  console.log(
    `${next} asks, ${answered.size} answered, ${pending.size} of them after a pending; replies ${JSON.stringify(statuses)}, ${lostWithNode} of the 503s node_unavailable (a call lost with the killed node)`,
  );
  expect(bad).toEqual([]);
  // every ask got its answer, the killed node's tasks taken over by the others
  expect(answered.size).toBe(next);
  expect(statuses[503] ?? 0).toBeGreaterThan(0); // the outage was seen

  // the ledger: never more fits than asks, nor more decisions than two per answered ask
  await sleep(1500); // the nodes write the ledger once a second
  const db = new pg.Client({ connectionString: c.databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query('SELECT kind, SUM(count)::int AS n FROM usage_ledger WHERE workspace_id = ANY($1) GROUP BY kind', [
      clients.map((x) => x.workspaceId),
    ]);
    const billed = Object.fromEntries(rows.map((r) => [r.kind, r.n]));
    console.log(`billed ${JSON.stringify(billed)}`);
    expect(billed.fit ?? 0).toBeLessThanOrEqual(answered.size);
    expect(billed.decision ?? 0).toBeLessThanOrEqual(2 * answered.size);
    // and what was billed is most of it (a killed node may lose its last second, never more)
    expect(billed.decision ?? 0).toBeGreaterThan(0);
  } finally {
    await db.end();
  }
}, 240_000);
