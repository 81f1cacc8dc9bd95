// A malformed dataset_id is the caller's typo (422 invalid_request naming the field); a well-formed id
// that is not there is 404 unknown_dataset (docs/reference/ask.md#data data.dataset_id, 4.4 preflight, 7 unknown_dataset).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../helpers/service.ts';

let svc: TestService;
let key: string;

const ask = (dataset_id: string) =>
  svc.post(
    '/v1/ask',
    {
      data: { dataset_id },
      entity_column: 'customer_id',
      subject_kind: 'org',
      questions: { q: { type: 'rank', outcome_column: 'churned' } },
    },
    key,
  );
const preflight = (dataset_id: string) => svc.post('/v1/preflight', { dataset_id, outcome_column: 'churned' }, key);
const WELL_FORMED_UNKNOWN = `ds_${'q7'.repeat(13)}`;

beforeAll(async () => {
  svc = await startTestService();
  key = await svc.liveKey('dataset-ids');
});
afterAll(() => svc?.close());

describe('dataset_id', () => {
  it.each(['ds_x', 'x', `ds_${'A'.repeat(26)}`, 'sample:', `ds_${'a'.repeat(41)}`])(
    'ask with %j is 422 invalid_request at data.dataset_id',
    async (id) => {
      const r = await ask(id);
      expect(r.status).toBe(422);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(r.body).toMatchObject({ code: 'invalid_request', field: 'data.dataset_id' });
      expect(r.body.detail).toBe(
        `data.dataset_id: must be a stored dataset id (ds_ followed by 20 to 40 of 0-9 a-z) or sample:<name>, got ${JSON.stringify(id)}`,
      );
    },
  );

  it('preflight with "ds_x" is 422 invalid_request at dataset_id', async () => {
    const r = await preflight('ds_x');
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'invalid_request', field: 'dataset_id' });
  });

  it('a well-formed id that was never stored stays 404 unknown_dataset, in ask and preflight', async () => {
    const a = await ask(WELL_FORMED_UNKNOWN);
    expect(a.status).toBe(404);
    expect(a.body).toMatchObject({ code: 'unknown_dataset', field: 'data.dataset_id' });
    const p = await preflight(WELL_FORMED_UNKNOWN);
    expect(p.status).toBe(404);
    expect(p.body).toMatchObject({ code: 'unknown_dataset', field: 'dataset_id' });
  });

  it('an unknown sample name stays 404 unknown_dataset; a known one answers', async () => {
    expect((await ask('sample:nope')).body).toMatchObject({ code: 'unknown_dataset', field: 'data.dataset_id' });
    expect((await preflight('sample:nope')).body).toMatchObject({ code: 'unknown_dataset', field: 'dataset_id' });
    expect((await preflight('sample:saas_churn')).status).toBe(200);
  });

  it('a stored dataset id, as add-dataset returns it, is accepted by both', async () => {
    const stored = await svc.post('/v1/add-dataset', { csv: 'customer_id,churned\nc1,yes\nc2,no\n' }, key);
    expect(stored.status).toBe(200);
    const p = await preflight(stored.body.dataset_id);
    expect(p.status).toBe(200);
    expect(p.body.dataset_id).toBe(stored.body.dataset_id);
  });
});
