// An event stream opened with a key that is then revoked (docs/guides/pending-asks.md, "A stream whose key is
// revoked"): it ends with an `error` event carrying the problem a request with that key gets (401
// unauthorized), its id the last one sent; every stream of the key ends, and a stream of another key goes on.
// The task is held by another process (its own connection to the same store), which never finishes it, and
// the key is revoked through that connection, as the keys CLI does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { readSse, type SseRead } from '../../helpers/sse.ts';
import { openSqliteStore, type Store } from '../../../host/store/index.ts';

const TASK = 'tk_0000000000000000000000rvk1';
let node: TestService;
let other: Store;
let caller: { key: string; workspaceId: string };

const stage = (step: string) => ({
  kind: 'stage' as const,
  data: JSON.stringify({ task_id: TASK, stage: 'asking', step }),
  at: Date.now(),
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  // streams last a minute here, so only the revocation can end them in the test's time
  node = await startTestService({ eventPollMs: 50, eventHeartbeatMs: 500, eventStreamMaxMs: 60_000 });
  caller = await node.liveCaller('revoked');
  other = await openSqliteStore(node.dataDir);
  const now = Date.now();
  await other.createTask({
    id: TASK,
    workspace_id: caller.workspaceId,
    request: '{}',
    created_at: now,
    lease: { owner: 'node-b', lease_until: now + 3_600_000 },
    events: [{ kind: 'stage', data: JSON.stringify({ task_id: TASK, stage: 'reading_data', step: 'reading' }), at: now }],
  });
});
afterAll(async () => {
  await other?.close();
  await node?.close();
});

describe('a task event stream whose key is revoked', () => {
  it('ends with an error event (unauthorized) within seconds, its id the last one sent', async () => {
    const url = `${node.url}/v1/tasks/${TASK}/events`;
    const streams: Array<Promise<SseRead>> = [1, 2].map(() =>
      readSse(url, { headers: { authorization: `Bearer ${caller.key}` }, timeoutMs: 30_000 }),
    );
    await sleep(400);
    expect(await other.appendTaskEvents(TASK, 'node-b', [stage('fitting')])).toBe(true);
    await sleep(400);

    const [key] = await other.listApiKeysByWorkspace(caller.workspaceId);
    const revokedAt = Date.now();
    expect(await other.revokeApiKey(key.id, revokedAt)).toBe(true);

    for (const read of await Promise.all(streams)) {
      expect(read.status).toBe(200);
      expect(read.endedByServer).toBe(true);
      const last = read.events.at(-1)!;
      expect(last.event).toBe('error');
      expect(last.data).toMatchObject({ task_id: TASK, code: 'unauthorized' });
      expect(last.data.detail).toMatch(/revoked/);
      expect(last.data.remedy).toBeTruthy();
      expect(last.data.doc_url).toMatch(/\/problems\/unauthorized$/);
      // the id is the last event's: a client reconnecting with a valid key loses nothing
      expect(read.events.map((e) => [e.id, e.event])).toEqual([
        [1, 'stage'],
        [2, 'stage'],
        [2, 'error'],
      ]);
    }
    console.log(`streams ended ${Date.now() - revokedAt} ms after the revocation (a check per second per key)`);

    // and a new request with the key is refused as the stream was
    const again = await fetch(url, { headers: { authorization: `Bearer ${caller.key}` } });
    expect(again.status).toBe(401);
    expect(((await again.json()) as { code: string }).code).toBe('unauthorized');
  });

  it("another key's stream goes on", async () => {
    const fresh = await node.liveCaller('revoked-other');
    const id = 'tk_0000000000000000000000rvk2';
    const now = Date.now();
    await other.createTask({
      id,
      workspace_id: fresh.workspaceId,
      request: '{}',
      created_at: now,
      lease: { owner: 'node-b', lease_until: now + 3_600_000 },
      events: [{ kind: 'stage', data: JSON.stringify({ task_id: id, stage: 'reading_data', step: 'reading' }), at: now }],
    });
    const read = await readSse(`${node.url}/v1/tasks/${id}/events`, { headers: { authorization: `Bearer ${fresh.key}` }, timeoutMs: 2500 });
    expect(read.endedByServer).toBe(false); // still open when the client gave up
    expect(read.events.map((e) => e.event)).toEqual(['stage']);
  });
});
