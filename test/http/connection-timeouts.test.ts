// The connection timeouts (host/http/connection-timeouts.ts, docs/guides/overload.md "Connections"),
// measured on the real service over raw sockets: an idle keep-alive connection outlives the idle time of
// every client and load balancer that reuses connections; a request whose headers or body arrive too slowly
// gets a whole 408 Problem with `Connection: close`, never a socket closed under it; the idle time between
// two requests never counts against the headers timeout.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Connection } from '../helpers/raw-http.ts';
import { CONNECTION_TIMEOUTS } from '../../host/http/connection-timeouts.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const HEALTHZ = 'GET /healthz HTTP/1.1\r\nhost: localhost\r\n\r\n';

/** Seconds of a HAProxy `timeout <name>` line in deploy/haproxy.cfg. */
function haproxyTimeoutMs(name: string): number {
  const cfg = fs.readFileSync(new URL('../../deploy/haproxy.cfg', import.meta.url), 'utf8');
  const m = new RegExp(`^\\s*timeout ${name} (\\d+)(ms|s|m)\\s*$`, 'm').exec(cfg);
  if (!m) throw new Error(`deploy/haproxy.cfg has no "timeout ${name}"`);
  return Number(m[1]) * { ms: 1, s: 1000, m: 60_000 }[m[2] as 'ms' | 's' | 'm'];
}

describe.concurrent('the service as it runs', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(() => svc?.close());

  it('sets each timeout as decided, and tells clients how long an idle connection stays', async () => {
    expect(svc.server.keepAliveTimeout).toBe(CONNECTION_TIMEOUTS.keepAliveMs);
    expect(svc.server.headersTimeout).toBe(CONNECTION_TIMEOUTS.headersMs);
    expect(svc.server.requestTimeout).toBe(CONNECTION_TIMEOUTS.requestMs);
    const conn = await Connection.open(svc.url);
    try {
      conn.write(HEALTHZ);
      const reply = await conn.reply();
      expect(reply.headers['keep-alive']).toBe(`timeout=${CONNECTION_TIMEOUTS.keepAliveMs / 1000}`);
    } finally {
      conn.close();
    }
  });

  it('keeps connections idle longer than the HAProxy in deploy/ does, and times headers out no sooner', () => {
    // HAProxy closes a client's idle connection after `http-keep-alive` and its own idle connections to a
    // node after 5 s (pool-purge-delay): both before this server would.
    expect(haproxyTimeoutMs('http-keep-alive')).toBeLessThan(CONNECTION_TIMEOUTS.keepAliveMs);
    // A slow request is answered by HAProxy's own 408 first, not cut by a node under it.
    expect(haproxyTimeoutMs('http-request')).toBeLessThanOrEqual(CONNECTION_TIMEOUTS.headersMs);
    // HAProxy waits for a node's reply longer than a node takes to read the slowest request it accepts.
    expect(haproxyTimeoutMs('server')).toBeLessThan(CONNECTION_TIMEOUTS.requestMs);
  });

  it('a connection idle for 6 s (past undici, Node http.Agent and HAProxy idle times) carries the next request', async () => {
    const conn = await Connection.open(svc.url);
    try {
      conn.write(HEALTHZ);
      expect((await conn.reply()).status).toBe(200);
      await sleep(6000);
      expect(conn.ended).toBe(false);
      conn.write(HEALTHZ);
      expect((await conn.reply()).status).toBe(200);
    } finally {
      conn.close();
    }
  });
});

describe.concurrent('each timeout firing (shortened so the test sees it)', () => {
  const T = { keepAliveMs: 2500, headersMs: 1000, requestMs: 2000, checkEveryMs: 100 };
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({}, { connectionTimeouts: T });
  });
  afterAll(() => svc?.close());

  it('idle between requests longer than the headers timeout: the next request is answered', async () => {
    const conn = await Connection.open(svc.url);
    try {
      conn.write(HEALTHZ);
      expect((await conn.reply()).status).toBe(200);
      await sleep(T.headersMs + 500);
      conn.write(HEALTHZ);
      expect((await conn.reply()).status).toBe(200);
    } finally {
      conn.close();
    }
  });

  it('headers sent too slowly: 408 request_timeout as a Problem with Connection: close, then the connection ends', async () => {
    const conn = await Connection.open(svc.url);
    const started = Date.now();
    conn.write('POST /v1/ask HTTP/1.1\r\nhost: localhost\r\n');
    const reply = await conn.reply();
    expect(Date.now() - started).toBeGreaterThanOrEqual(T.headersMs - 50);
    expect(reply.status).toBe(408);
    expect(reply.headers.connection).toBe('close');
    expect(reply.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(reply.body)).toMatchObject({ status: 408, code: 'request_timeout' });
    await conn.closed();
  });

  it('a body still arriving at the request timeout: 408 request_timeout, then the connection ends', async () => {
    const conn = await Connection.open(svc.url);
    const started = Date.now();
    conn.write('POST /v1/ask HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{');
    const dribble = setInterval(() => conn.write(' '), 200);
    try {
      const reply = await conn.reply();
      expect(Date.now() - started).toBeGreaterThanOrEqual(T.requestMs - 50);
      expect(reply.status).toBe(408);
      expect(JSON.parse(reply.body)).toMatchObject({ code: 'request_timeout' });
      await conn.closed();
    } finally {
      clearInterval(dribble);
    }
  });

  it('idle past the keep-alive timeout: the server ends the connection with nothing pending on it', async () => {
    const conn = await Connection.open(svc.url);
    conn.write(HEALTHZ);
    expect((await conn.reply()).status).toBe(200);
    const idleFrom = Date.now();
    await conn.closed();
    // Node adds keepAliveTimeoutBuffer (1 s) to the socket's timeout; the client was told timeout=2.
    expect(Date.now() - idleFrom).toBeGreaterThanOrEqual(T.keepAliveMs - 50);
  });
});
