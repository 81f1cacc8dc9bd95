// Task event streams across real node processes on one PostgreSQL database: a
// client connected to one node follows, with the key or through the watch link, a task another node runs:
// its stage events in order, one answer per question, then done, ids counting 1, 2, ... as on one node. A
// key revoked in the shared database (as the keys CLI does, from no node at all) ends its streams on every
// node within seconds.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bigRows } from '../helpers/big-rows.ts';
import { post, startCluster, type TestCluster } from '../helpers/cluster.ts';
import { readSse } from '../helpers/sse.ts';

let c: TestCluster;

beforeAll(async () => {
  // EVENT_POLL_MS short: a stream on a node that does not run the task reads the store this often
  c = await startCluster({ nodes: 2, haproxy: false, env: { PENDING_WAIT_MS: '50', EVENT_POLL_MS: '100' } });
});
afterAll(() => c?.close());

it('streams a task running on one node to a client of another, with the key and through the watch link', async () => {
  const [runner, other] = c.nodes;
  const { key } = await c.liveCaller('events');
  const ask = {
    data: { rows: bigRows().slice(0, 6000) },
    entity_column: 'id',
    subject_kind: 'other',
    questions: { q1: { type: 'yesno', outcome_column: 'y' }, q2: { type: 'score', outcome_column: 'y' } },
    cases: { ids: ['e1', 'e2'] },
  };
  const pending = await post(runner.url, '/v1/ask', ask, key);
  expect(pending.status).toBe(202);
  const taskId: string = pending.body.task_id;

  const keyed = await readSse(`${other.url}/v1/tasks/${taskId}/events`, {
    headers: { authorization: `Bearer ${key}` },
    timeoutMs: 120_000,
  });
  expect(keyed.status).toBe(200);
  expect(keyed.endedByServer).toBe(true);
  const kinds = keyed.events.map((e) => e.event);
  expect(kinds[0]).toBe('stage');
  expect(kinds.slice(kinds.lastIndexOf('stage') + 1)).toEqual(['answer', 'answer', 'done']);
  const ids = keyed.events.map((e) => e.id!);
  for (let i = 1; i < ids.length; i++) expect(ids[i]).toBe(ids[i - 1] + 1);
  expect(keyed.events.filter((e) => e.event === 'answer').map((e) => e.data.question)).toEqual(['q1', 'q2']);

  // the watch link one node made opens on the other (its secret is the cluster's), here from the first event
  const token = new URL(pending.body.watch_url).pathname.split('/').at(-1)!;
  const watched = await readSse(`${other.url}/v1/watch/${token}/events?last_event_id=0`, { timeoutMs: 60_000 });
  expect(watched.status).toBe(200);
  const all = watched.events.map((e) => e.id!);
  expect(all).toEqual(all.map((_, i) => i + 1));
  // the keyed stream began at the stage current when it connected, then went on as the whole stream does
  expect(all.slice(-ids.length)).toEqual(ids);
  expect(watched.events.at(-1)!.event).toBe('done');
});

it('ends a stream on a node within seconds of its key being revoked in the shared database', async () => {
  const { key, workspaceId } = await c.liveCaller('revoked');
  const id = 'tk_0000000000000000000000rvkc';
  const now = Date.now();
  // a task held by a runner that never finishes it: only the revocation can end the stream in time
  await c.store.createTask({
    id,
    workspace_id: workspaceId,
    request: '{}',
    created_at: now,
    lease: { owner: 'elsewhere', lease_until: now + 3_600_000 },
    events: [{ kind: 'stage', data: JSON.stringify({ task_id: id, stage: 'reading_data', step: 'reading' }), at: now }],
  });
  const reading = readSse(`${c.nodes[1].url}/v1/tasks/${id}/events`, { headers: { authorization: `Bearer ${key}` }, timeoutMs: 60_000 });
  await new Promise((r) => setTimeout(r, 500));
  const [record] = await c.store.listApiKeysByWorkspace(workspaceId);
  const revokedAt = Date.now();
  expect(await c.store.revokeApiKey(record.id, revokedAt)).toBe(true);
  const read = await reading;
  console.log(`the stream on the other node ended ${Date.now() - revokedAt} ms after the revocation`);
  expect(read.endedByServer).toBe(true);
  expect(read.events.map((e) => [e.id, e.event])).toEqual([
    [1, 'stage'],
    [1, 'error'],
  ]);
  expect(read.events[1].data).toMatchObject({ task_id: id, code: 'unauthorized' });
});
