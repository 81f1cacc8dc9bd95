// The edges of report-outcomes, attest, evidence and drift over real HTTP (docs/reference/auth.md#capabilities, docs/reference/errors.md; docs/reference/outcomes.md#attest
// "Problems", "Keys, workspaces, scopes"): scopes, unknown models, per-item validation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSample } from '../../../samples/catalog.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';

let svc: TestService;
let writer: string;
let reader: string;
let modelRef: string;
const unknownRef = 'mr1_' + 'f'.repeat(32);

beforeAll(async () => {
  svc = await startTestService();
  writer = await svc.liveKey('edges', true);
  reader = await svc.liveKey('edges', false);
  const r = await svc.post('/v1/ask', getSample('saas_churn')!.try, reader);
  expect(r.body.answers.q.state).toBe('answered');
  modelRef = r.body.answers.q.model_ref;
});
afterAll(() => svc?.close());

const item = (over: Record<string, unknown> = {}) => ({
  entity_id: 'cust_0001',
  outcome: true,
  observed_at: '2024-05-01T10:00:00Z',
  ...over,
});

describe('scopes (docs/reference/auth.md#capabilities, docs/reference/outcomes.md#attest: write:outcomes for report-outcomes and attest)', () => {
  it.each([
    ['/v1/report-outcomes', { model_ref: 'mr1_' + '0'.repeat(32), outcomes: [item()] }],
    ['/v1/attest', { model_ref: 'mr1_' + '0'.repeat(32), entity_id: 'x', lever_token: 'x', post_value: 1, acted_at: '2024-01-01' }],
  ])('%s with a key that cannot report outcomes is 403 scope_required', async (path, body) => {
    const r = await svc.post(path, body, reader);
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('scope_required');
    const t = await svc.post(path, body, await svc.testKey());
    expect(t.body.code).toBe('scope_required');
  });

  it('evidence and drift only read: any key of the workspace may ask', async () => {
    expect((await svc.post('/v1/evidence', { model_ref: modelRef }, reader)).status).toBe(200);
    expect((await svc.post('/v1/drift', { model_ref: modelRef }, reader)).status).toBe(200);
  });
});

describe('unknown models (docs/reference/auth.md: 404 model_ref_missing for a model_ref this workspace never got)', () => {
  it.each([
    ['/v1/report-outcomes', { model_ref: unknownRef, outcomes: [item()] }],
    ['/v1/evidence', { model_ref: unknownRef }],
    ['/v1/drift', { model_ref: unknownRef }],
  ])('%s', async (path, body) => {
    const r = await svc.post(path, body, writer);
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ code: 'model_ref_missing', field: 'model_ref' });
  });

  it("another workspace's model_ref is unknown too", async () => {
    const other = await svc.liveKey('edges-other', true);
    const r = await svc.post('/v1/report-outcomes', { model_ref: modelRef, outcomes: [item()] }, other);
    expect(r.status).toBe(404);
  });

  it('a malformed model_ref is 422 invalid_request at model_ref', async () => {
    const r = await svc.post('/v1/evidence', { model_ref: 'mr1_nope' }, writer);
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'invalid_request', field: 'model_ref' });
  });
});

describe('report-outcomes validation (all or nothing)', () => {
  it('lists every bad item with its index and field, and writes none of the good ones', async () => {
    const outcomes = [
      item({ event_id: 'ok-1' }),
      { outcome: 1, observed_at: '2024-05-01' },
      item({ outcome: 2 }),
      item({ outcome: { yes: true } }),
      item({ observed_at: '2024-13-01' }),
      item({ event_id: 'e'.repeat(129) }),
      item({ color: 'red' }),
    ];
    const r = await svc.post('/v1/report-outcomes', { model_ref: modelRef, outcomes }, writer);
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('invalid_outcomes');
    expect(r.body.errors.map((e: any) => [e.index, e.field])).toEqual([
      [1, 'outcomes.1.entity_id'],
      [2, 'outcomes.2.outcome'],
      [3, 'outcomes.3.outcome'],
      [4, 'outcomes.4.observed_at'],
      [5, 'outcomes.5.event_id'],
      [6, 'outcomes.6.color'],
    ]);
    const ok = await svc.post('/v1/report-outcomes', { model_ref: modelRef, outcomes: [item({ event_id: 'ok-1' })] }, writer);
    expect(ok.body).toEqual({ written: 1, duplicates: 0 }); // the failed batch wrote nothing
  });

  it('observed_at reads ISO 8601 in its extended and basic forms, and nothing else', async () => {
    const good = ['2024-05-01', '2024-05-01T10:00:00+02:00', '20240501', '20240501T1000Z'];
    const r = await svc.post(
      '/v1/report-outcomes',
      { model_ref: modelRef, outcomes: good.map((t) => item({ observed_at: t, entity_id: 'cust_0003' })) },
      writer,
    );
    // 2024-05-01 and 20240501 are the same day: the same report (no event_id) is one fact, counted once
    expect(r.body).toEqual({ written: 3, duplicates: 1 });
    for (const bad of ['1714557600', '2024-05-01abc', '05/01/2024', '20241301']) {
      const b = await svc.post('/v1/report-outcomes', { model_ref: modelRef, outcomes: [item({ observed_at: bad })] }, writer);
      expect(b.status).toBe(422);
      expect(b.body.errors).toEqual([expect.objectContaining({ index: 0, field: 'outcomes.0.observed_at' })]);
    }
  });

  it('an empty list is invalid_request', async () => {
    const r = await svc.post('/v1/report-outcomes', { model_ref: modelRef, outcomes: [] }, writer);
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'invalid_request', field: 'outcomes' });
  });

  it('items without an event_id are keyed by what they say: a batch sent again is all duplicates', async () => {
    const body = { model_ref: modelRef, outcomes: [item({ entity_id: 'cust_0002' }), item({ entity_id: 'cust_0002', outcome: 'no' })] };
    expect((await svc.post('/v1/report-outcomes', body, writer)).body).toEqual({ written: 2, duplicates: 0 });
    expect((await svc.post('/v1/report-outcomes', body, writer)).body).toEqual({ written: 0, duplicates: 2 });
  });
});

describe('levers need a polarity', () => {
  it('an answer without outcome_is_desirable carries no levers (the service never decides what is good)', async () => {
    const r = await svc.post('/v1/ask', getSample('saas_churn')!.try, reader);
    const q = r.body.answers.q;
    expect(q.polarity).toBeNull();
    for (const c of q.cases) expect(c.levers).toBeUndefined();
  });
});
