// Unexpected errors (docs/reference/errors.md#problem): 500 internal, no internals in the body, logged with the request id.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { createApp } from '../../host/app.ts';
import { OPERATIONS, type Operation } from '../../host/operations/index.ts';
import { startTestService, type TestService } from './helpers.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc?.close());

it('a thrown non-ServiceError becomes a bare 500 internal Problem and one log line', async () => {
  const lines: any[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const services = { ...svc.services, log: pino({ level: 'error' }, sink) };
  const boom: Operation = {
    name: 'boom',
    resource: 'account',
    method: 'POST',
    path: '/v1/boom',
    auth: 'none',
    body: 'none',
    title: 'Boom',
    description: 'Throws.',
    status: 200,
    examples: [],
    run: async () => {
      throw new Error('secret database path /var/lib/x');
    },
  };
  const app = createApp(services, [...OPERATIONS, boom]);
  const res = await app.request('/v1/boom', { method: 'POST', headers: { 'x-request-id': 'rid-500' } });
  const json = await res.json();
  expect(res.status).toBe(500);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(json).toMatchObject({ status: 500, code: 'internal', request_id: 'rid-500' });
  expect(JSON.stringify(json)).not.toContain('secret');
  await new Promise((r) => setImmediate(r));
  const logged = lines.find((l) => l.request_id === 'rid-500');
  expect(logged?.err?.message).toContain('secret database path');
});
