// No caller is dropped (docs/guides/overload.md, "Connections"): the fuzz mix (every operation of the table
// and /mcp, bodies from test/fuzz/bodies.ts, some padded to hundreds of KB, any credential and content type)
// sent over keep-alive connections three ways: Node's fetch (undici's connection pool), node:http's
// keep-alive Agent, and raw sockets that send request after request on one connection. Every request gets a
// whole HTTP reply: a connection may end only after a reply that said `Connection: close`. Seeded
// (FUZZ_SEED); the counts (requests, replies per status, connection errors) are printed.
import http from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../host/operations/index.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Connection } from '../helpers/raw-http.ts';
import { bodyText } from './bodies.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 36);
/** Requests per operation and per transport. */
const PER_OPERATION = Number(process.env.FUZZ_RUNS ?? 6);
/** Connections each transport keeps open at once. */
const CONNECTIONS = 4;

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

let svc: TestService;
let keys: Record<string, string | undefined>;
let connectionsOpened = 0;
beforeAll(async () => {
  svc = await startTestService({
    pendingWaitMs: 200,
    fetchTimeoutMs: 2000,
    rateLimitPerMinute: 1_000_000,
    registerLimitPerHour: 1_000_000,
  });
  svc.server.on('connection', () => connectionsOpened++);
  keys = { live: await svc.liveKey('conn-fuzz'), test: await svc.testKey(), bogus: `svck_live_${'x'.repeat(40)}`, none: undefined };
});
afterAll(() => svc?.close());

/** The mix: per operation (and /mcp), bodies as the fuzzer makes them; one in four padded past 100 KB. */
function mix(seed: number): Sent[] {
  const out: Sent[] = [];
  const targets = [
    ...OPERATIONS.map((op) => ({ op, method: op.method, path: op.path, stream: op.body === 'stream' })),
    { op: OPERATIONS.find((o) => o.name === 'svc_ask')!, method: 'POST', path: '/mcp', stream: false },
  ];
  targets.forEach((t, i) => {
    const arb = fc.record({
      body: bodyText(t.op),
      pad: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 100_000, max: 400_000 }) }),
      who: fc.constantFrom('live', 'test', 'bogus', 'none'),
      token: fc.string({ minLength: 1, maxLength: 30 }),
      type: fc.constantFrom('application/json', 'application/json', 'text/csv', 'text/plain'),
    });
    for (const s of fc.sample(arb, { seed: seed + i, numRuns: PER_OPERATION })) {
      const path = t.path
        .replace(':token', encodeURIComponent(s.token))
        .replace(':task_id', encodeURIComponent(s.token))
        .replace(/:index\{[^}]*\}/, String(s.pad % 3));
      const body = t.method === 'GET' && s.pad === 0 ? Buffer.alloc(0) : Buffer.from(s.body + ' '.repeat(s.pad));
      const headers: Record<string, string> = { 'content-type': t.stream ? 'text/csv' : s.type };
      if (t.path === '/mcp') headers.accept = 'application/json, text/event-stream';
      if (keys[s.who]) headers.authorization = `Bearer ${keys[s.who]}`;
      if (t.path === '/mcp') {
        const mcpBody = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"svc_ask","arguments":${s.body}}}`;
        out.push({ method: 'POST', path, headers, body: Buffer.from(mcpBody + ' '.repeat(s.pad)) });
      } else out.push({ method: t.method, path, headers, body });
    }
  });
  return out;
}

interface Tally {
  sent: number;
  statuses: Record<number, number>;
  connectionErrors: string[];
  /** Replies that are not what every reply must be (a 5xx other than 503 with Retry-After, a bare error). */
  bad: string[];
}
const newTally = (): Tally => ({ sent: 0, statuses: {}, connectionErrors: [], bad: [] });

function record(t: Tally, r: Sent, status: number, headers: Record<string, string | undefined>, text: string): void {
  t.statuses[status] = (t.statuses[status] ?? 0) + 1;
  const what = `${r.method} ${r.path.slice(0, 60)} (${r.body.length} bytes) -> ${status} ${text.slice(0, 160)}`;
  if (status >= 500) {
    const retryAfter = Number(headers['retry-after']);
    const fetchFailed = status === 502 && text.includes('"fetch_failed"');
    if (!(status === 503 && retryAfter > 0) && !fetchFailed) t.bad.push(what);
  }
  if (status >= 400 && r.path !== '/mcp' && !/^application\/problem\+json/.test(headers['content-type'] ?? ''))
    t.bad.push(`not a Problem: ${what}`);
}

/** Runs `each` over `items` with `n` at a time. */
async function pool<T>(items: T[], n: number, each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await each(items[next++]);
    }),
  );
}

const tallies: Record<string, Tally> = {};
afterAll(() => {
  const all = Object.values(tallies);
  const line = (name: string, t: Tally) =>
    `${name}: ${t.sent} requests, ${t.connectionErrors.length} connection errors, replies ${JSON.stringify(t.statuses)}`;
  console.log([...Object.entries(tallies).map(([n, t]) => line(n, t)), `connections opened: ${connectionsOpened}`].join('\n'));
  expect(all.length).toBeGreaterThan(0);
});

function expectClean(t: Tally): void {
  expect(t.connectionErrors, 'requests that got no whole reply').toEqual([]);
  expect(t.bad).toEqual([]);
  expect(Object.values(t.statuses).reduce((a, b) => a + b, 0)).toBe(t.sent);
}

describe.concurrent('the fuzz mix over keep-alive connections', () => {
  it("Node's fetch (undici's pool): every request a whole reply", async () => {
    const t = (tallies.fetch = newTally());
    const before = connectionsOpened;
    const requests = mix(SEED);
    await pool(requests, CONNECTIONS, async (r) => {
      t.sent++;
      try {
        const res = await fetch(svc.url + r.path, {
          method: r.method,
          headers: r.headers,
          // fetch sends no body with a GET (the other two clients do)
          ...(r.method === 'GET' ? {} : { body: new Uint8Array(r.body) }),
        });
        const text = await res.text();
        record(
          t,
          r,
          res.status,
          { 'content-type': res.headers.get('content-type') ?? undefined, 'retry-after': res.headers.get('retry-after') ?? undefined },
          text,
        );
      } catch (err) {
        t.connectionErrors.push(`${r.method} ${r.path.slice(0, 60)} (${r.body.length} bytes): ${(err as Error).cause ?? err}`);
      }
    });
    expectClean(t);
    // The pool reused its connections rather than opening one per request.
    expect(connectionsOpened - before).toBeLessThan(requests.length / 2);
  });

  it("node:http's keep-alive Agent: every request a whole reply", async () => {
    const t = (tallies.agent = newTally());
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    try {
      await pool(mix(SEED + 1000), CONNECTIONS, async (r) => {
        t.sent++;
        await new Promise<void>((resolve) => {
          const req = http.request(
            svc.url + r.path,
            { method: r.method, headers: { ...r.headers, 'content-length': String(r.body.length) }, agent },
            (res) => {
              const chunks: Buffer[] = [];
              res.on('data', (c: Buffer) => chunks.push(c));
              res.on('end', () => {
                record(t, r, res.statusCode ?? 0, res.headers as Record<string, string>, Buffer.concat(chunks).toString());
                resolve();
              });
              res.on('error', (err) => {
                t.connectionErrors.push(`${r.method} ${r.path.slice(0, 60)}: reply cut: ${err.message}`);
                resolve();
              });
            },
          );
          req.on('error', (err) => {
            t.connectionErrors.push(`${r.method} ${r.path.slice(0, 60)} (${r.body.length} bytes): ${err.message}`);
            resolve();
          });
          req.end(r.body);
        });
      });
    } finally {
      agent.destroy();
    }
    expectClean(t);
  });

  it('raw sockets, request after request on each connection: every request a whole reply', async () => {
    const t = (tallies.raw = newTally());
    const requests = mix(SEED + 2000);
    const lanes = Array.from({ length: CONNECTIONS }, (_, i) => requests.filter((_r, j) => j % CONNECTIONS === i));
    await Promise.all(
      lanes.map(async (lane) => {
        let conn = await Connection.open(svc.url);
        try {
          for (const r of lane) {
            t.sent++;
            conn.send(r.method, r.path, { ...r.headers, 'content-length': String(r.body.length) }, r.body);
            try {
              const reply = await conn.reply();
              record(t, r, reply.status, reply.headers, reply.body);
              if (reply.headers.connection === 'close') {
                await conn.closed();
                conn.close();
                conn = await Connection.open(svc.url);
              }
            } catch (err) {
              t.connectionErrors.push(`${r.method} ${r.path.slice(0, 60)} (${r.body.length} bytes): ${(err as Error).message}`);
              conn.close();
              conn = await Connection.open(svc.url);
            }
          }
        } finally {
          conn.close();
        }
      }),
    );
    expectClean(t);
  });
});
