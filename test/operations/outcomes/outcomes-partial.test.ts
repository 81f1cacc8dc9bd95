// svc_report_outcomes of contract 1.1 (docs/reference/outcomes.md#report) over real HTTP: `partial: true` writes the valid rows and
// answers a result for every row (written, duplicate, or error naming its field); the default stays all or
// nothing with one error per bad field; the 1.1 entity_id rule; every bad envelope a problem naming its field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSample } from '../../../samples/catalog.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';

let svc: TestService;
let key: string;
let modelRef: string;

beforeAll(async () => {
  svc = await startTestService();
  ({ key } = await svc.liveCaller('partial', true));
  const r = await svc.post('/v1/ask', getSample('saas_churn')!.try, key);
  expect(r.body.answers.q.state).toBe('answered');
  modelRef = r.body.answers.q.model_ref;
});
afterAll(() => svc?.close());

const item = (over: Record<string, unknown> = {}) => ({ entity_id: 'cust_0001', outcome: true, observed_at: '2026-05-01', ...over });
const report = (body: Record<string, unknown>) => svc.post('/v1/report-outcomes', { model_ref: modelRef, ...body }, key);

/** A batch with every kind of row: new, already stored, repeated in the batch, and bad in several ways. */
const mixed = () => [
  item({ event_id: 'p-new' }),
  item({ event_id: 'p-stored' }),
  item({ entity_id: 'cust_0002', event_id: 'p-twice' }),
  item({ entity_id: 'cust_0002', outcome: 0, event_id: 'p-twice' }),
  item({ outcome: 2 }),
  item({ entity_id: 'has space' }),
  item({ outcome: 'maybe', observed_at: 'soon' }),
  { outcome: 1, observed_at: '2026-05-01' },
  item({ entity_id: 'x'.repeat(129) }),
  item({ entity_id: 'ok_.:@#+/-Z9' }),
];

describe('partial: true', () => {
  it('writes the valid rows and gives every row its result, in row order', async () => {
    expect((await report({ outcomes: [item({ event_id: 'p-stored' })] })).body).toEqual({ written: 1, duplicates: 0 });
    const r = await report({ partial: true, outcomes: mixed() });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ written: 3, duplicates: 2 });
    expect(r.body.results).toEqual([
      { index: 0, status: 'written' },
      { index: 1, status: 'duplicate' },
      { index: 2, status: 'written' },
      { index: 3, status: 'duplicate' },
      { index: 4, status: 'error', field: 'outcomes.4.outcome', detail: expect.stringMatching(/^outcome: 2 is not yes\/no/) },
      {
        index: 5,
        status: 'error',
        field: 'outcomes.5.entity_id',
        detail: expect.stringMatching(/letters, digits or _ \. : @ # \+ \/ - \(no spaces\)/),
      },
      // one result for a row with two bad fields: the first named, both described
      {
        index: 6,
        status: 'error',
        field: 'outcomes.6.outcome',
        detail: expect.stringMatching(/^outcome: .*; observed_at: "soon" is not an ISO 8601/),
      },
      { index: 7, status: 'error', field: 'outcomes.7.entity_id', detail: expect.any(String) },
      { index: 8, status: 'error', field: 'outcomes.8.entity_id', detail: expect.any(String) },
      { index: 9, status: 'written' },
    ]);
    // the written rows are stored: sent again, they are duplicates
    const again = await report({ partial: true, outcomes: [item({ event_id: 'p-new' }), item({ entity_id: 'ok_.:@#+/-Z9' })] });
    expect(again.body).toEqual({
      written: 0,
      duplicates: 2,
      results: [
        { index: 0, status: 'duplicate' },
        { index: 1, status: 'duplicate' },
      ],
    });
  });

  it('a batch of bad rows only is 200 with nothing written', async () => {
    const r = await report({ partial: true, outcomes: [item({ outcome: 'perhaps' })] });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      written: 0,
      duplicates: 0,
      results: [{ index: 0, status: 'error', field: 'outcomes.0.outcome', detail: expect.any(String) }],
    });
  });
});

describe('by default, all or nothing', () => {
  it('the same batch is 422 invalid_outcomes listing each bad field, and writes nothing', async () => {
    const outcomes = mixed().map((o, i) => (i === 0 ? item({ event_id: 'atomic-new' }) : o));
    for (const partial of [undefined, false]) {
      const r = await report({ ...(partial === undefined ? {} : { partial }), outcomes });
      expect(r.status).toBe(422);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(r.body.code).toBe('invalid_outcomes');
      expect(r.body.errors.map((e: any) => e.field)).toEqual([
        'outcomes.4.outcome',
        'outcomes.5.entity_id',
        'outcomes.6.outcome',
        'outcomes.6.observed_at',
        'outcomes.7.entity_id',
        'outcomes.8.entity_id',
      ]);
    }
    expect((await report({ outcomes: [item({ event_id: 'atomic-new' })] })).body).toEqual({ written: 1, duplicates: 0 });
  });
});

describe('bad envelopes name their field', () => {
  it.each([
    [{ partial: 'yes', outcomes: [item()] }, 'partial'],
    [{ partial: true, outcomes: [] }, 'outcomes'],
    [{ partial: true, outcomes: 'x' }, 'outcomes'],
    [{ partial: true, outcomes: [item()], namespace: 'NO' }, 'namespace'],
    [{ partial: true, outcomes: [item()], results: [] }, 'results'],
  ])('%j is 422 invalid_request at %s', async (body, field) => {
    const r = await report(body);
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'invalid_request', field });
  });

  it('a partial report on a model_ref this namespace was never given is 404, as any report', async () => {
    const r = await report({ partial: true, outcomes: [item()], namespace: 'acme' });
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ code: 'model_ref_missing', field: 'model_ref' });
  });
});
