// A reply made before the request's body was read (docs/guides/overload.md, "Connections"): every route that
// reads no body (register_agent, the GET routes, the pages) and every early reply (401, 403, 404, 405, 415,
// 429, a bad upload link) gets a body of about 300 KB over one keep-alive connection, and the next request on
// that same connection, a second later, must get a whole reply. A body the service will not read past its limit is answered with
// `Connection: close` and the connection ends cleanly after the reply. Over a raw socket, so nothing
// between the test and the server opens a second connection behind its back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { OPERATIONS } from '../../host/operations/index.ts';
import { DRAIN_MAX_BYTES } from '../../host/http/unread-body.ts';
import { Connection, type Reply } from '../helpers/raw-http.ts';

const BODY = Buffer.alloc(300_000, '{');
/** How long the client keeps the connection idle before its next request on it. */
const IDLE_MS = 1000;

let svc: TestService;
let key: string;
let limited: TestService;
let limitedKey: string;
beforeAll(async () => {
  svc = await startTestService({ maxBodyBytes: 1_000_000 });
  key = await svc.liveKey('keep-alive');
  limited = await startTestService({ rateLimitPerMinute: 1 });
  limitedKey = await limited.liveKey('limited');
});
afterAll(async () => {
  await svc?.close();
  await limited?.close();
});

/** Sends `method path` with a 300 KB body, then (IDLE_MS later) GET /healthz on the same connection: both replies whole. */
async function bodyThenNext(url: string, method: string, path: string, headers: Record<string, string> = {}): Promise<Reply> {
  const conn = await Connection.open(url);
  try {
    conn.send(method, path, { 'content-length': String(BODY.length), 'content-type': 'application/json', ...headers }, BODY);
    const first = await conn.reply();
    expect(first.headers.connection ?? 'keep-alive').toBe('keep-alive');
    // A client reuses the connection whenever it next has a request: the server must not close it meanwhile
    // (it used to, half a second after such a reply, under a client that had been told keep-alive).
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    expect(conn.ended).toBe(false);
    conn.send('GET', '/healthz', {});
    const next = await conn.reply();
    expect(next.status).toBe(200);
    expect(JSON.parse(next.body)).toMatchObject({ status: 'ok' });
    return first;
  } finally {
    conn.close();
  }
}

/** A path of `op` with every parameter filled in (nothing of that name exists, so each is a quick reply). */
const pathOf = (path: string) =>
  path.replace(/:(\w+)(\{[^}]*\})?/g, (_m, name: string) => (name === 'task_id' ? 'tk_00000000000000000000000000' : 'nothing0'));

describe('routes that read no body', () => {
  const routes = OPERATIONS.filter((op) => op.body === 'none');

  it('are the GET routes and register_agent', () => {
    expect(routes.map((op) => `${op.method} ${op.path}`)).toContain('POST /v1/agents/register');
    expect(routes.length).toBeGreaterThanOrEqual(8);
  });

  it.concurrent.each(routes.map((op) => [`${op.method} ${op.path}`, op] as const))(
    '%s: a 300 KB body, then the next request on the connection',
    async (_name, op) => {
      const first = await bodyThenNext(svc.url, op.method, pathOf(op.path), op.auth === 'key' ? { authorization: `Bearer ${key}` } : {});
      expect(first.status).toBeLessThan(500);
      if (op.name === 'register_agent') expect(first.status).toBe(201);
    },
  );

  it.concurrent.each(['/', '/problems', '/keys', '/openapi.json', '/upload/nothing0', '/watch/nothing0'])(
    'GET %s (a page): the same',
    async (path) => {
      expect((await bodyThenNext(svc.url, 'GET', path)).status).toBe(200);
    },
  );
});

describe('replies made before the body is read', () => {
  it.concurrent.each([
    ['401: no key', 'POST', '/v1/ask', {}, 401],
    ['401: an unknown key', 'POST', '/v1/add-dataset', { authorization: 'Bearer svck_live_nothing' }, 401],
    ['404: no such route', 'POST', '/v1/nothing', {}, 404],
    ['405: a method the route does not serve', 'PUT', '/v1/ask', {}, 405],
    ['401: a piece to an upload link that is not one', 'POST', '/v1/uploads/nothing0/0', { 'x-upload-session': '0'.repeat(32) }, 401],
    ['401: a PUT to an upload link that is not one', 'PUT', '/v1/uploads/nothing0', {}, 401],
    ['405: GET /mcp', 'GET', '/mcp', {}, 405],
  ] as const)('%s, then the next request on the connection', async (_name, method, path, headers, status) => {
    expect((await bodyThenNext(svc.url, method, path, headers)).status).toBe(status);
  });

  it('403: a key without the capability the route needs', async () => {
    expect((await bodyThenNext(svc.url, 'POST', '/v1/report-outcomes', { authorization: `Bearer ${key}` })).status).toBe(403);
  });

  it('415: a body that is not JSON', async () => {
    expect((await bodyThenNext(svc.url, 'POST', '/v1/ask', { authorization: `Bearer ${key}`, 'content-type': 'text/csv' })).status).toBe(
      415,
    );
  });

  it('429: over the rate limit', async () => {
    const auth = { authorization: `Bearer ${limitedKey}` };
    await limited.post('/v1/poll', { task_id: 'tk_00000000000000000000000000' }, limitedKey); // the minute's one request
    const first = await bodyThenNext(limited.url, 'POST', '/v1/ask', auth);
    expect(first.status).toBe(429);
    expect(first.headers['retry-after']).toBeDefined();
  });
});

describe('a body the service will not read', () => {
  it('over the JSON body limit: 413 naming the limit with Connection: close, and the connection ends after the whole reply', async () => {
    const conn = await Connection.open(svc.url);
    const big = Buffer.alloc(1_500_000, ' ');
    conn.send(
      'POST',
      '/v1/ask',
      { 'content-length': String(big.length), 'content-type': 'application/json', authorization: `Bearer ${key}` },
      big,
    );
    const reply = await conn.reply();
    expect(reply.status).toBe(413);
    expect(reply.headers.connection).toBe('close');
    expect(JSON.parse(reply.body)).toMatchObject({ code: 'request_too_large' });
    expect(JSON.parse(reply.body).detail).toMatch(/1000000 bytes/);
    await conn.closed();
  });

  it('declared past what is drained: the reply says Connection: close and the connection ends after it', async () => {
    const conn = await Connection.open(svc.url);
    conn.send('POST', '/v1/nothing', { 'content-length': String(DRAIN_MAX_BYTES + 1) }, BODY);
    const reply = await conn.reply();
    expect(reply.status).toBe(404);
    expect(reply.headers.connection).toBe('close');
    await conn.closed();
  });
});
