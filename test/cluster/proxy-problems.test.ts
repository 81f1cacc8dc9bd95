// HAProxy's own failures through the shipped deploy/haproxy.cfg (docs/decisions/0087-a-call-lost-with-its-node.md):
// a call whose node closes the connection without a reply (as a node killed under it does) gets the
// service's 503 node_unavailable problem with Retry-After, never HAProxy's 502 page or a closed connection,
// and its title and remedy are host/errors.ts's own. A node's own 502 (fetch_failed) passes through as it is.
// The node here is a plain HTTP server standing in for one that dies mid-call: what is tested is the proxy.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HAPROXY_CFG, startHaproxy, type RunningHaproxy } from '../../deploy/haproxy.ts';
import { PROBLEM_CODES } from '../../host/errors.ts';
import { freePort } from '../helpers/postgres.ts';

let node: http.Server;
let proxy: RunningHaproxy;

beforeAll(async () => {
  node = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/healthz') return res.end('{"status":"ok"}');
      // dies under the call: the connection closes, nothing of a reply written
      if (req.url === '/v1/dies') return req.socket.destroy();
      res.writeHead(502, { 'content-type': 'application/problem+json' });
      res.end(JSON.stringify({ status: 502, code: 'fetch_failed' }));
    });
  });
  await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
  const at = `127.0.0.1:${(node.address() as AddressInfo).port}`;
  proxy = await startHaproxy(await freePort(), [at]);
});
afterAll(async () => {
  await proxy?.stop();
  node?.close();
});

const post = async (path: string) => {
  const res = await fetch(proxy.url + path, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
  return { status: res.status, headers: res.headers, text: await res.text() };
};

it('a call whose node closes without a reply gets 503 node_unavailable with Retry-After, every time', async () => {
  for (let i = 0; i < 3; i++) {
    // the same client (fetch's pool): each call on a connection of its own (option httpclose)
    const r = await post('/v1/dies');
    expect(r.status).toBe(503);
    expect(r.headers.get('content-type')).toBe('application/problem+json');
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(r.headers.get('connection')).toBe('close');
    const problem = JSON.parse(r.text);
    const info = PROBLEM_CODES.node_unavailable;
    expect(problem).toMatchObject({
      code: 'node_unavailable',
      status: 503,
      title: info.title,
      remedy: info.remedy,
      retry_after_ms: 1000,
      type: `${proxy.url}/problems/node_unavailable`, // the Host the call named
    });
    expect(problem.doc_url).toBe(problem.type);
    expect(problem.detail).toMatch(/stopped before it replied/);
    expect(problem.request_id).toBe(r.headers.get('x-request-id'));
    expect(r.headers.get('x-oq-proxy-problem')).toBeNull();
  }
});

it("a node's own 502 problem passes through unchanged", async () => {
  const r = await post('/v1/fetch');
  expect(r.status).toBe(502);
  expect(JSON.parse(r.text)).toEqual({ status: 502, code: 'fetch_failed' });
});

it("each of HAProxy's problems (502, 503, 504) is node_unavailable with the table's title and remedy", () => {
  const cfg = fs.readFileSync(HAPROXY_CFG, 'utf8');
  const lines = cfg.split('\n').filter((l) => /^\s*http-error status /.test(l));
  expect(lines.map((l) => Number(/status (\d+)/.exec(l)![1]))).toEqual([502, 503, 504]);
  for (const line of lines) {
    expect(line).toMatch(/ hdr Retry-After 1 /);
    const body = JSON.parse(/lf-string '(.*)'$/.exec(line)![1].replaceAll(/%\[[^\]]*\]/g, 'X'));
    const info = PROBLEM_CODES.node_unavailable;
    expect(body).toMatchObject({
      code: 'node_unavailable',
      status: info.status,
      title: info.title,
      remedy: info.remedy,
      retry_after_ms: 1000,
    });
    expect(typeof body.detail).toBe('string');
  }
});
