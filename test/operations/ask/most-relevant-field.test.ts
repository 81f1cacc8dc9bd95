// Which field a 422 names when a body has several problems, over real HTTP (docs/design/house-rules.md#rules "the most relevant
// issue"; docs/reference/errors.md#problem: field is the dotted path): an unknown property is named first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../helpers/service.ts';

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService();
  key = await svc.liveKey('fields');
});
afterAll(() => svc?.close());

const question = { q: { type: 'rank', outcome_column: 'churned' } };

describe('the field of a 422 with several problems', () => {
  it('missing data and an unknown property zz: names zz', async () => {
    const r = await svc.post('/v1/ask', { entity_column: 'customer_id', subject_kind: 'org', questions: question, zz: 1 }, key);
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'invalid_request', field: 'zz', detail: 'zz: is not an allowed property' });
  });

  it('data misspelt as datta: names datta, not the missing data', async () => {
    const body = { datta: { dataset_id: 'sample:saas_churn' }, entity_column: 'customer_id', subject_kind: 'org', questions: question };
    const r = await svc.post('/v1/ask', body, key);
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'invalid_request', field: 'datta' });
  });

  it('with no unknown property, the first issue in document order is named', async () => {
    const r = await svc.post('/v1/ask', { data: { csv: '' }, entity_column: '', subject_kind: 'org', questions: question }, key);
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'invalid_request', field: 'data.csv' });
  });

  it('the same rule holds for the other operations', async () => {
    const r = await svc.post('/v1/preflight', { outcome_column: '', dataset_id_: 'sample:saas_churn' }, key);
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'invalid_request', field: 'dataset_id_' });
  });
});
