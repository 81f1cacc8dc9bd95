// fetch_url (docs/reference/ask.md#data, docs/reference/datasets.md#add-dataset; docs/reference/datasets.md#fetch-url): refusals, the loopback test host behind the
// test-only setting, redirects, failures and the size cap (422, not 413), through add-dataset and ask over HTTP.
import { startTestService, type TestService } from '../../helpers/service.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchRecord, pinnedLookup } from '../../../host/operations/datasets/fetch.ts';
import { post, startHttpsServer, type HttpsTestServer } from './helpers.ts';

const CSV = 'id,x,churned\n' + Array.from({ length: 300 }, (_, i) => `c${i},${i % 10},${i % 10 >= 6 ? 'yes' : 'no'}`).join('\n') + '\n';

let origin: HttpsTestServer;
let open: TestService; // allowLoopbackFetchForTests: true, trusts the test cert
let closed: TestService; // defaults: loopback refused
let openKey: { key: string; workspaceId: string };
let closedKey: { key: string; workspaceId: string };

beforeAll(async () => {
  origin = await startHttpsServer({
    '/data.csv': (_req, res) => res.writeHead(200, { 'content-type': 'text/csv' }).end(CSV),
    '/redirect': (_req, res) => res.writeHead(302, { location: '/data.csv' }).end(),
    '/moved': (_req, res) => res.writeHead(301, { location: 'https://127.0.0.1/' }).end(),
    '/gone': (_req, res) => res.writeHead(410).end('gone'),
    '/page': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>login</html>'),
    '/not-csv': (_req, res) => res.writeHead(200, { 'content-type': 'text/csv' }).end('a,b\n1\n'),
    '/private': (req, res) => {
      if (req.headers.authorization !== 'Bearer secret') return res.writeHead(403).end('no');
      res.writeHead(200, { 'content-type': 'text/csv' }).end('id,x\na,1\n');
    },
    '/huge': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/csv' });
      const line = 'x'.repeat(999) + '\n';
      let sent = 0;
      const pump = () => {
        while (sent < 8_100_000) {
          sent += line.length;
          if (!res.write(line)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.write('h\n');
      pump();
    },
  });
  open = await startTestService({ allowLoopbackFetchForTests: true, fetchCaPem: origin.cert }, { manualClock: true });
  closed = await startTestService({ fetchCaPem: origin.cert }, { manualClock: true });
  openKey = await open.liveCaller('fetch');
  closedKey = await closed.liveCaller('fetch');
});
afterAll(async () => {
  await open?.close();
  await closed?.close();
  await origin?.close();
});

const addOpen = (body: unknown) => post(open.url, '/v1/add-dataset', body, openKey.key);
const addClosed = (body: unknown) => post(closed.url, '/v1/add-dataset', body, closedKey.key);
const at = (p: string) => `https://localhost:${origin.port}${p}`;

describe('fetch_url refusals (422 fetch_refused)', () => {
  const refusedEverywhere = [
    'http://example.com/data.csv',
    'ftp://example.com/data.csv',
    'https://10.0.0.1/data.csv',
    'https://169.254.169.254/latest/meta-data',
    'https://[fd00::1]/data.csv',
    'https://[::ffff:127.0.0.1]/data.csv',
    'https://[::ffff:7f00:1]/data.csv',
    'https://192.168.0.1/data.csv',
    'https://100.64.0.1/data.csv',
    'https://0.0.0.0/data.csv',
  ];
  it.each(refusedEverywhere)('%s is refused even with the test-only setting on', async (url) => {
    const r = await addOpen({ fetch_url: url });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'fetch_refused', field: 'fetch_url' });
  });

  it('refuses a loopback host by name and by address with the default settings', async () => {
    for (const url of [at('/data.csv'), `https://127.0.0.1:${origin.port}/data.csv`, `https://[::1]:${origin.port}/data.csv`]) {
      const r = await addClosed({ fetch_url: url });
      expect(r.status, url).toBe(422);
      expect(r.body.code).toBe('fetch_refused');
    }
    expect(origin.seen.size).toBe(0);
  });

  it('refuses a redirect without following it, even on the allowed test host', async () => {
    for (const p of ['/redirect', '/moved']) {
      const r = await addOpen({ fetch_url: at(p) });
      expect(r.status).toBe(422);
      expect(r.body).toMatchObject({ code: 'fetch_refused', field: 'fetch_url' });
      expect(r.body.detail).toMatch(/redirect/);
    }
  });

  it('names data.fetch_url when the refusal comes from an ask', async () => {
    const r = await post(
      closed.url,
      '/v1/ask',
      {
        data: { fetch_url: 'https://10.1.1.1/x.csv' },
        entity_column: 'id',
        subject_kind: 'org',
        questions: { q: { type: 'yesno', outcome_column: 'churned' } },
        cases: { ids: ['c1'] },
      },
      closedKey.key,
    );
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'fetch_refused', field: 'data.fetch_url' });
  });
});

describe('fetch_url from the loopback test host (test-only setting on)', () => {
  it('stores the download as one ready piece', async () => {
    const r = await addOpen({ fetch_url: at('/data.csv') });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'ready', rows: 300, columns: ['id', 'x', 'churned'] });
    expect((await addOpen({ dataset_id: r.body.dataset_id, csv: 'id,x,churned\na,1,no\n' })).body.field).toBe('dataset_id');
  });

  it('sends fetch_headers and refuses headers the service sets itself', async () => {
    expect((await addOpen({ fetch_url: at('/private') })).body).toMatchObject({ code: 'fetch_failed', status: 502 });
    const ok = await addOpen({ fetch_url: at('/private'), fetch_headers: { Authorization: 'Bearer secret' } });
    expect(ok.body).toMatchObject({ status: 'ready', rows: 1 });
    expect(origin.seen.get('/private')?.['accept-encoding']).toBe('identity');
    const bad = await addOpen({ fetch_url: at('/private'), fetch_headers: { Host: 'evil.example' } });
    expect(bad.body).toMatchObject({ code: 'invalid_request', field: 'fetch_headers.Host' });
  });

  it('answers an ask on fetch_url', async () => {
    const r = await post(
      open.url,
      '/v1/ask',
      {
        data: { fetch_url: at('/data.csv') },
        entity_column: 'id',
        subject_kind: 'org',
        questions: { q: { type: 'yesno', outcome_column: 'churned' } },
        cases: { ids: ['c1'] },
      },
      openKey.key,
    );
    expect(r.status).toBe(200);
    expect(r.body.answers.q.state).toBeDefined();
  });

  it('a non-2xx answer, an html page, or text that is not CSV is 502 fetch_failed', async () => {
    for (const p of ['/gone', '/page', '/not-csv', '/nowhere']) {
      const r = await addOpen({ fetch_url: at(p) });
      expect(r.status, p).toBe(502);
      expect(r.body).toMatchObject({ code: 'fetch_failed', field: 'fetch_url' });
    }
  });

  it('a download over 8,000,000 characters is 422 invalid_request naming the field and the cap (413 is for request bodies)', async () => {
    const r = await addOpen({ fetch_url: at('/huge') });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'invalid_request', field: 'fetch_url' });
    expect(r.body.detail).toMatch(/larger than the fetch_url cap of 8,000,000 characters/);
    const asked = await post(
      open.url,
      '/v1/ask',
      {
        data: { fetch_url: at('/huge') },
        entity_column: 'id',
        subject_kind: 'org',
        questions: { q: { type: 'yesno', outcome_column: 'churned' } },
        cases: { ids: ['c1'] },
      },
      openKey.key,
    );
    expect(asked.status).toBe(422);
    expect(asked.body).toMatchObject({ code: 'invalid_request', field: 'data.fetch_url' });
    expect(asked.body.detail).toMatch(/^data\.fetch_url: the download is larger than the fetch_url cap of 8,000,000 characters/);
  });

  it('an untrusted certificate is 502 fetch_failed', async () => {
    const ctx = open.ctx(openKey.workspaceId);
    const strict = { ...ctx, services: { ...ctx.services, config: { ...ctx.services.config, fetchCaPem: null } } };
    await expect(fetchRecord(strict, at('/data.csv'), {}, 'fetch_url')).rejects.toMatchObject({ code: 'fetch_failed' });
  });

  it('times out with 502 fetch_failed', async () => {
    const ctx = open.ctx(openKey.workspaceId);
    const hurried = { ...ctx, services: { ...ctx.services, config: { ...ctx.services.config, fetchTimeoutMs: 1 } } };
    await expect(fetchRecord(hurried, at('/huge'), {}, 'fetch_url')).rejects.toMatchObject({ code: 'fetch_failed' });
  });
});

describe('pinnedLookup', () => {
  it('answers every lookup with the checked address, whatever the name', () => {
    const lookup = pinnedLookup({ address: '93.184.216.34', family: 4 });
    const seen: unknown[] = [];
    lookup('rebind.example', { all: true }, (_e, list) => seen.push(list));
    lookup('rebind.example', {}, (_e, address, family) => seen.push([address, family]));
    expect(seen).toEqual([[{ address: '93.184.216.34', family: 4 }], ['93.184.216.34', 4]]);
  });
});
