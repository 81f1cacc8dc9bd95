// Tasks across real node processes on one PostgreSQL database: a node killed with SIGKILL mid-fit
// loses no task (each of its tasks is taken over by exactly one other node once its lease ran out, a poll on
// any node gets the answer, an idempotent retry on another node gets the same task), and leases are judged
// on the database's clock: a node whose own clock is an hour fast takes over nothing that is alive.
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bigRows } from '../helpers/big-rows.ts';
import { pollUntilDone, post, startCluster, type TestCluster } from '../helpers/cluster.ts';

const LEASE_MS = 3000;
let c: TestCluster;

beforeAll(async () => {
  c = await startCluster({
    haproxy: false,
    env: { PENDING_WAIT_MS: '50', TASK_LEASE_MS: String(LEASE_MS), FIT_WORKERS: '1' },
  });
});
afterAll(() => c?.close());

/** An ask on its own record (n rows of the seeded table): a fit of a second or more, so it goes pending. */
function bigAsk(n: number, extra: Record<string, unknown> = {}) {
  return {
    data: { rows: bigRows().slice(0, n) },
    entity_column: 'id',
    subject_kind: 'other',
    questions: { q: { type: 'yesno', outcome_column: 'y' } },
    cases: { ids: ['e1', 'e2'] },
    ...extra,
  };
}

const resumesOf = (taskId: string) =>
  c.nodes.flatMap((n, i) =>
    n.logs.filter((l) => l.msg === 'resuming task' && l.task_id === taskId).map((l) => ({ node: i, attempt: l.attempt })),
  );

it('loses no task of a node killed with SIGKILL mid-fit: each is taken over once, and any node answers its poll', async () => {
  const [first, ...others] = c.nodes;
  const { key, workspaceId } = await c.liveCaller('kill');
  const asks = [bigAsk(6000, { idempotency_key: 'kill-1' }), bigAsk(4000), bigAsk(4500)];
  const replies = await Promise.all(asks.map((a) => post(first.url, '/v1/ask', a, key)));
  expect(replies.map((r) => r.status)).toEqual([202, 202, 202]);
  const ids: string[] = replies.map((r) => r.body.task_id);
  await first.kill();

  // The idempotent retry on another node is the same task, not a second one.
  const retry = await post(others[0].url, '/v1/ask', asks[0], key);
  expect(retry.status).toBe(202);
  expect(retry.body.task_id).toBe(ids[0]);

  const done = await Promise.all(ids.map((id) => pollUntilDone([others[0].url, others[1].url], id, key, 120_000)));
  for (const r of done) {
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('done');
    expect(r.body.answers.q.state).toBe('answered');
  }
  const attempts: number[] = [];
  for (const id of ids) {
    // started by the killed node (attempt 1) or queued there for a thread (FIT_WORKERS 1), then taken by
    // exactly one other node (attempt 2, or 1 for a task that never started), never by two. The killed node
    // may itself have claimed one from the queue (a 'resuming task' line of attempt 1) when its runner's tick
    // beat the ask's own hand-off to its thread: that is its first start, not a takeover.
    const resumes = resumesOf(id);
    const ownClaims = resumes.filter((r) => r.node === 0);
    expect(ownClaims.length).toBeLessThanOrEqual(1);
    for (const r of ownClaims) expect(r.attempt).toBe(1);
    const taken = resumes.filter((r) => r.node !== 0);
    expect(taken).toHaveLength(1);
    const stored = (await c.store.getTask(workspaceId, id))?.attempts;
    expect(taken[0].attempt).toBe(stored);
    attempts.push(stored!);
  }
  // the one the killed node was running when it died
  expect(attempts.filter((a) => a === 2)).toHaveLength(1);
  // The retry after the end replays the final answer the taking node stored.
  const after = await post(others[1].url, '/v1/ask', asks[0], key);
  expect(after.status).toBe(200);
  expect(after.headers.get('idempotent-replayed')).toBe('true');
  expect(after.body.answers.q.model_ref).toBe(done[0].body.answers.q.model_ref);
});

it("judges leases on the database's clock: a node whose clock is an hour fast takes over no live task", async () => {
  const skewed = await c.addNode({
    NODE_OPTIONS: `--import ${path.resolve(import.meta.dirname, '../helpers/skewed-clock.mjs')}`,
    TEST_CLOCK_SKEW_MS: String(3_600_000),
  });
  // It noticed (and corrected) its clock.
  const warned = await skewed.waitForLog((l) => typeof l.offset_ms === 'number');
  expect(warned.offset_ms as number).toBeLessThan(-3_599_000);
  expect(warned.offset_ms as number).toBeGreaterThan(-3_601_000);

  const healthy = c.nodes[1];
  const { key, workspaceId } = await c.liveCaller('skew');
  const pending = await post(healthy.url, '/v1/ask', bigAsk(8000), key);
  expect(pending.status).toBe(202);
  const id: string = pending.body.task_id;
  // Polled on the skewed node: it reads the task, and never claims it while its owner renews the lease.
  const done = await pollUntilDone([skewed.url], id, key, 120_000);
  expect(done.status).toBe(200);
  expect(done.body.answers.q.state).toBe('answered');
  // The skewed node claimed nothing. The healthy node may start its own task from the queue (attempt 1: its
  // thread was still busy with a task the test above left it), which is a start, not a takeover.
  const skewedIndex = c.nodes.indexOf(skewed);
  expect(resumesOf(id).filter((r) => r.node === skewedIndex)).toEqual([]);
  expect(resumesOf(id).every((r) => r.attempt === 1)).toBe(true);
  expect((await c.store.getTask(workspaceId, id))?.attempts).toBe(1);
});
