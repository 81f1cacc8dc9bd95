// docs/reference/datasets.md#formats via fetch_url: a gzip CSV and a Parquet file of the Telco table, recognised by their bytes, answer
// an ask as the CSV does (same content hash and model_ref) and are stored passed through by add-dataset
// (rows and columns null); a corrupt one is refused and nothing is stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { gzip, telcoCsv, telcoParquet } from '../../helpers/files.ts';
import { post, startHttpsServer, type HttpsTestServer } from './helpers.ts';

let origin: HttpsTestServer;
let svc: TestService;
let caller: { key: string; workspaceId: string };
let csv: string;

beforeAll(async () => {
  csv = telcoCsv();
  const files: Record<string, Uint8Array> = {
    '/telco.csv.gz': gzip(csv),
    '/telco.parquet': telcoParquet(csv),
    '/broken.gz': gzip(csv).subarray(0, 50_000),
  };
  origin = await startHttpsServer(
    Object.fromEntries(
      Object.entries(files).map(([path, bytes]) => [
        path,
        (_req: unknown, res: import('node:http').ServerResponse) =>
          res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(bytes),
      ]),
    ),
  );
  svc = await startTestService({ allowLoopbackFetchForTests: true, fetchCaPem: origin.cert });
  caller = await svc.liveCaller('fetch-formats');
});
afterAll(async () => {
  await svc?.close();
  await origin?.close();
});

const at = (p: string) => `https://localhost:${origin.port}${p}`;
const ASK = {
  entity_column: 'customer_id',
  subject_kind: 'org',
  questions: { q: { type: 'yesno', outcome_column: 'churn' } },
  cases: { ids: ['c00001'] },
};
const ask = (data: unknown) => post(svc.url, '/v1/ask', { ...ASK, data }, caller.key);

describe('fetch_url of a gzip CSV or a Parquet file', () => {
  let inline: any;
  beforeAll(async () => void (inline = (await ask({ csv })).body));

  it.each(['/telco.csv.gz', '/telco.parquet'])('%s answers an ask as the CSV does', async (path) => {
    const r = await ask({ fetch_url: at(path) });
    expect(r.status).toBe(200);
    expect(r.body.record.content_hash).toBe(inline.record.content_hash);
    expect(r.body.answers.q.model_ref).toBe(inline.answers.q.model_ref);
  });

  it.each([
    ['/telco.csv.gz', 'gzip'],
    ['/telco.parquet', 'parquet'],
  ])('%s is stored by add-dataset as it came, ready, rows and columns null; an ask on it answers as the CSV', async (path, format) => {
    const r = await post(svc.url, '/v1/add-dataset', { fetch_url: at(path) }, caller.key);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'ready', rows: null, columns: null, format });
    const asked = await ask({ dataset_id: r.body.dataset_id });
    expect(asked.body.answers.q.model_ref).toBe(inline.answers.q.model_ref);
  });

  it('a gzip download cut short is upload_corrupt, for an ask and for add-dataset', async () => {
    const asked = await ask({ fetch_url: at('/broken.gz') });
    expect(asked.status).toBe(422);
    expect(asked.body).toMatchObject({ code: 'upload_corrupt', field: 'data.fetch_url' });
    const added = await post(svc.url, '/v1/add-dataset', { fetch_url: at('/broken.gz') }, caller.key);
    expect(added.status).toBe(422);
    expect(added.body).toMatchObject({ code: 'upload_corrupt', field: 'fetch_url' });
  });
});
