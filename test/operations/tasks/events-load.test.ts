// Task event streams under load (docs/guides/pending-asks.md): 200 clients on one pending task's events,
// half of them on a key that is revoked mid-stream, and one client that never reads. Every client still
// reading gets every event; the revoked key's streams end with an `error` event while the others go on;
// cutting every stream at once leaves the last reader its events; and once all are gone the server's
// connections and the process's open handles are back where they started. Each stream is its own socket.
import http from 'node:http';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { openSqliteStore, type Store } from '../../../host/store/index.ts';
import { createLiveKey } from '../../../host/runtime/keys.ts';

const TASK = 'tk_0000000000000000000000load';
const CLIENTS = 200;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One event stream on a socket of its own; the events as they come, or nothing read at all (`reading` false). */
class Stream {
  text = '';
  status = 0;
  endedByServer = false;
  private req: http.ClientRequest;
  private res?: http.IncomingMessage;
  readonly opened: Promise<void>;
  constructor(url: string, key: string, reading = true) {
    this.req = http.get(url, { agent: false, headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' } });
    this.opened = new Promise((resolve, reject) => {
      this.req.once('response', (res) => {
        this.res = res;
        this.status = res.statusCode ?? 0;
        if (reading) res.on('data', (d: Buffer) => (this.text += d.toString()));
        else res.pause(); // never read: what the server writes to it waits in the sockets' buffers
        res.once('end', () => (this.endedByServer = true));
        res.once('error', () => undefined);
        resolve();
      });
      this.req.once('error', reject);
    });
  }
  /** `event: <name>` blocks received, in order. */
  events(): Array<{ event: string; data: any }> {
    return this.text
      .split('\n\n')
      .map((block) => ({ event: /^event: (.*)$/m.exec(block)?.[1], data: /^data: (.*)$/m.exec(block)?.[1] }))
      .filter((e): e is { event: string; data: string } => e.event !== undefined && e.data !== undefined)
      .map((e) => ({ event: e.event, data: JSON.parse(e.data) }));
  }
  steps(): string[] {
    return this.events()
      .filter((e) => e.event === 'stage')
      .map((e) => e.data.step);
  }
  cut(): void {
    this.req.destroy();
    this.res?.destroy();
  }
}

let node: TestService;
let other: Store;
let keyA: string;
let keyB: string;
let keyAId: string;

const stage = (step: string) => ({
  kind: 'stage' as const,
  data: JSON.stringify({ task_id: TASK, stage: 'asking', step }),
  at: Date.now(),
});

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}
/** The heap in use after a full collection (the streams' state gone or not). */
function heapAfterGc(): number {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
  return process.memoryUsage().heapUsed;
}
const connections = () => new Promise<number>((resolve, reject) => node.server.getConnections((e, n) => (e ? reject(e) : resolve(n))));
const handles = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap' || r === 'TCPServerWrap').length;

beforeAll(async () => {
  // streams last two minutes here, so only the test (or a revocation) ends them
  node = await startTestService({ eventPollMs: 50, eventHeartbeatMs: 500, eventStreamMaxMs: 120_000 });
  other = await openSqliteStore(node.dataDir);
  const a = await createLiveKey(node.services.store, { workspaceName: 'events-load', now: Date.now() });
  const b = await createLiveKey(node.services.store, { workspaceName: 'events-load', now: Date.now() });
  expect(b.workspace.id).toBe(a.workspace.id);
  [keyA, keyB, keyAId] = [a.key, b.key, a.record.id];
  const now = Date.now();
  // held by another process that never finishes it: the task stays pending for the whole test
  await other.createTask({
    id: TASK,
    workspace_id: a.workspace.id,
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

describe('200 clients on one pending task', () => {
  it('keep their events through a revocation, a client that never reads, and all being cut at once', async () => {
    const url = `${node.url}/v1/tasks/${TASK}/events`;
    await sleep(200);
    const baseline = { connections: await connections(), handles: handles(), heap: heapAfterGc() };

    const onA = Array.from({ length: CLIENTS / 2 }, () => new Stream(url, keyA));
    const onB = Array.from({ length: CLIENTS / 2 }, () => new Stream(url, keyB));
    const stalled = new Stream(url, keyB, false);
    const all = [...onA, ...onB];
    await Promise.all([...all, stalled].map((s) => s.opened));
    expect(all.every((s) => s.status === 200)).toBe(true);
    await until('every stream to get the first event', () => all.every((s) => s.steps().length === 1));

    // an event reaches all 200
    expect(await other.appendTaskEvents(TASK, 'node-b', [stage('fitting')])).toBe(true);
    await until('every stream to get the second event', () => all.every((s) => s.steps().length === 2));
    expect(new Set(all.map((s) => s.steps().join()))).toEqual(new Set(['reading,fitting']));

    // key A is revoked: its 100 streams end with an error event, key B's go on
    expect(await other.revokeApiKey(keyAId, Date.now())).toBe(true);
    await until('the revoked key streams to end', () => onA.every((s) => s.endedByServer));
    for (const s of onA) expect(s.events().at(-1)).toMatchObject({ event: 'error', data: { code: 'unauthorized' } });
    expect(await other.appendTaskEvents(TASK, 'node-b', [stage('scoring')])).toBe(true);
    await until('key B streams to get the third event', () => onB.every((s) => s.steps().length === 3));
    expect(onB.some((s) => s.endedByServer)).toBe(false);

    // all but one of key B's readers cut at once; the last one (and the stalled one) stay
    const [keeper, ...cut] = onB;
    for (const s of cut) s.cut();
    expect(await other.appendTaskEvents(TASK, 'node-b', [stage('writing')])).toBe(true);
    await until('the last reader to get the fourth event', () => keeper.steps().length === 4);
    expect(keeper.steps()).toEqual(['reading', 'fitting', 'scoring', 'writing']);
    expect(keeper.endedByServer).toBe(false);
    // the server let go of the cut ones: the keeper and the stalled client are all it holds beyond baseline
    await until('the cut connections to close on the server', async () => (await connections()) === baseline.connections + 2);
    const held = heapAfterGc();

    keeper.cut();
    stalled.cut();
    await until('every connection to close on the server', async () => (await connections()) === baseline.connections);
    await until('open sockets to return to the baseline', () => handles() <= baseline.handles);
    await sleep(200);
    const after = heapAfterGc();
    // what 200 streams held is released (a few MB of slack for the test's own strings and the store's caches)
    expect(after - baseline.heap).toBeLessThan(8 * 2 ** 20);
    console.log(
      `${CLIENTS} streams + 1 stalled: heap after GC at start ${(baseline.heap / 2 ** 20).toFixed(1)} MB, ` +
        `with 2 streams left ${(held / 2 ** 20).toFixed(0)} MB, all gone ${(after / 2 ** 20).toFixed(0)} MB; ` +
        `sockets ${baseline.handles} -> ${handles()}`,
    );

    // and the service answers as before
    expect((await fetch(`${node.url}/healthz`)).status).toBe(200);
  }, 60_000);
});
