// svc_map over fetch_url sources (docs/reference/map.md#map) against a loopback https origin (the test-only setting): the
// label from the file name, the ready ask naming the URL, replay refetching it, and fetch_headers used for
// the call, never echoed, and kept sealed (a replay fetches with them again).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadSampleCsv } from '../../../samples/catalog.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { startHttpsServer, type HttpsTestServer } from '../datasets/helpers.ts';

const LOG = loadSampleCsv('customer_events');
// version 2 of the log: the first 2,000 events only
const LOG_V2 = LOG.split('\n').slice(0, 2001).join('\n') + '\n';
let version = 1;
let origin: HttpsTestServer;
let svc: TestService;
let key: string;
let workspaceId: string;

beforeAll(async () => {
  origin = await startHttpsServer({
    '/exports/events.csv': (_req, res) => res.writeHead(200, { 'content-type': 'text/csv' }).end(version === 1 ? LOG : LOG_V2),
    '/private/events.csv': (req, res) => {
      if (req.headers.authorization !== 'Bearer s3cret-token') return res.writeHead(403).end('no');
      res.writeHead(200, { 'content-type': 'text/csv' }).end(LOG);
    },
  });
  svc = await startTestService({ allowLoopbackFetchForTests: true, fetchCaPem: origin.cert });
  ({ key, workspaceId } = await svc.liveCaller('map-fetch'));
});
afterAll(async () => {
  await svc?.close();
  await origin?.close();
});

const at = (p: string) => `https://localhost:${origin.port}${p}`;

it('maps a fetched log, answers its ready ask, and refetches it on replay', async () => {
  const answers = { outcome: { offer_id: 'lapsed:events' } };
  const c = await svc.post('/v1/map', { sources: [{ fetch_url: at('/exports/events.csv') }], snapshot_every: '1w', answers }, key);
  expect(c.status, JSON.stringify(c.body)).toBe(200);
  expect(c.body.status).toBe('confirmed');
  expect(c.body.manifest.sources[0]).toMatchObject({ fetch_url: at('/exports/events.csv'), label: 'events', rows: 12878 });
  expect(c.body.ask.data).toEqual({ fetch_url: at('/exports/events.csv') });
  const a = await svc.post('/v1/ask', { ...c.body.ask, subject_kind: 'org' }, key);
  expect(a.status, JSON.stringify(a.body)).toBe(200);
  expect(a.body.answers.q.cases).toHaveLength(c.body.open_cases.count);
  version = 2;
  const r = await svc.post('/v1/map', { mapping_id: c.body.mapping_id }, key);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.mapping_id).toBe(c.body.mapping_id);
  expect(r.body.manifest.sources[0].rows).toBe(2000);
  version = 1;
});

it('uses fetch_headers for the call, never echoes them, keeps them sealed, and fetches with them again on replay', async () => {
  const body = {
    sources: [{ fetch_url: at('/private/events.csv'), fetch_headers: { authorization: 'Bearer s3cret-token' } }],
    snapshot_every: '1w',
    answers: { outcome: { offer_id: 'lapsed:events' } },
  };
  const c = await svc.post('/v1/map', body, key);
  expect(c.status, JSON.stringify(c.body)).toBe(200);
  expect(c.body.status).toBe('confirmed');
  expect(JSON.stringify(c.body)).not.toContain('s3cret');
  const kept = await svc.services.store.getMapping(workspaceId, '', c.body.mapping_id);
  expect(kept!.request).toContain('/private/events.csv');
  expect(kept!.request).not.toContain('s3cret');
  // docs/reference/map.md#map "kept encrypted": sealed in the mapping, opened only to fetch again
  expect(JSON.parse(kept!.request).request.sealed_headers).toMatch(/^v1\./);
  const r = await svc.post('/v1/map', { mapping_id: c.body.mapping_id }, key);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.status).toBe('confirmed');
  expect(r.body.mapping_id).toBe(c.body.mapping_id);
  expect(JSON.stringify(r.body)).not.toContain('s3cret');
});

it('names the source at fault when a fetch fails', async () => {
  const r = await svc.post('/v1/map', { sources: [{ fetch_url: at('/private/events.csv') }] }, key);
  expect(r.status).toBeGreaterThanOrEqual(400);
  expect(r.body.field).toBe('sources.0.fetch_url');
});
