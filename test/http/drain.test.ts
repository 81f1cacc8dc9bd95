// A stopped node drains before it closes (docs/guides/operating.md#stopping-a-node), on a real process: at
// SIGTERM /readyz and /healthz turn 503 draining with Retry-After, calls are still answered for
// SHUTDOWN_DRAIN_MS, each with `Connection: close` (a kept-alive connection included), and then the process
// closes as before and exits 0.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startChildService } from '../helpers/child-service.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oq-drain-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const DRAIN_MS = 1500;

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
  reusedSocket: boolean;
}

/** One request over `agent` (node:http, which shows the Connection header and whether the socket was reused). */
function request(agent: http.Agent, url: string, method = 'GET', body?: unknown): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent, headers: body === undefined ? {} : { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : null, reusedSocket: req.reusedSocket }),
      );
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

it('answers 503 draining on its checks, serves calls with Connection: close for SHUTDOWN_DRAIN_MS, then exits 0', async () => {
  const node = await startChildService(dir, { SHUTDOWN_DRAIN_MS: String(DRAIN_MS) });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const before = await request(agent, `${node.url}/readyz`);
    expect(before.status).toBe(200);
    expect(before.headers.connection).toBe('keep-alive');
    expect((await request(agent, `${node.url}/healthz`)).status).toBe(200);

    const exited = new Promise<number | null>((resolve) => node.child.once('exit', resolve));
    const sent = Date.now();
    node.child.kill('SIGTERM');
    await node.waitForLog((r) => r.msg === 'draining', 5000);

    // the kept-alive connection from before: still answered, and told to close
    const ready = await request(agent, `${node.url}/readyz`);
    expect(ready.reusedSocket).toBe(true);
    expect(ready.status).toBe(503);
    expect(ready.headers['retry-after']).toMatch(/^\d+$/);
    expect(ready.headers.connection).toBe('close');
    expect(ready.body).toMatchObject({ status: 'draining' });
    expect(ready.body.problem).toMatch(/stopping/);
    const health = await request(agent, `${node.url}/healthz`);
    expect(health.reusedSocket).toBe(false); // the server closed the last one after its reply
    expect(health.status).toBe(503);
    expect(health.headers['retry-after']).toMatch(/^\d+$/);
    expect(health.body).toMatchObject({ status: 'draining' });
    // a checker that asks with HEAD is told the same (no body)
    const healthHead = await request(agent, `${node.url}/healthz`, 'HEAD');
    expect(healthHead.status).toBe(503);
    expect(healthHead.headers['retry-after']).toMatch(/^\d+$/);

    // a real call during the drain is served as ever, with Connection: close
    const reg = await request(agent, `${node.url}/v1/agents/register`, 'POST', {});
    expect(reg.status).toBe(201);
    expect(reg.body.api_key).toMatch(/^svck_/);
    expect(reg.headers.connection).toBe('close');

    expect(await exited).toBe(0);
    // the drain ran its whole length before the close (a timer never fires early)
    expect(Date.now() - sent).toBeGreaterThanOrEqual(DRAIN_MS);
    await expect(request(agent, `${node.url}/healthz`)).rejects.toThrow();
  } finally {
    agent.destroy();
  }
}, 60_000);

it('ends the drain at a second signal (Ctrl-C twice) and still closes gracefully', async () => {
  const node = await startChildService(dir, { SHUTDOWN_DRAIN_MS: '120000' });
  // 'close', not 'exit': only then has every log line the child wrote been read
  const exited = new Promise<number | null>((resolve) => node.child.once('close', resolve));
  node.child.kill('SIGINT');
  await node.waitForLog((r) => r.msg === 'draining', 5000);
  const second = Date.now();
  node.child.kill('SIGINT');
  expect(await exited).toBe(0);
  // far sooner than the 120 s drain: the close alone
  expect(Date.now() - second).toBeLessThan(30_000);
  expect(node.logs.some((r) => r.msg === 'ending the drain')).toBe(true);
}, 60_000);
