// additions 3.2 over real HTTP with the real wasm: the `snapshots` grid shape and `cases: {open: true}`
// (today's open cases) on the customer_events sample, a table with blank outcomes, and their bad inputs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../helpers/service.ts';

let svc: TestService;
let key: string;
beforeAll(async () => {
  svc = await startTestService();
  key = await svc.testKey();
});
afterAll(() => svc?.close());

const grid = (shape: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  data: { dataset_id: 'sample:customer_events' },
  entity_column: 'customer_id',
  time_column: 'date',
  subject_kind: 'org',
  shape: {
    kind: 'snapshots',
    snapshot_every: '4w',
    horizon: { value: 30, unit: 'days' },
    label: { lapsed: true },
    event_column: 'event',
    ...shape,
  },
  questions: { q: { type: 'yesno', outcome_column: 'lapsed_30d', outcome_is_desirable: false } },
  cases: { open: true },
  ...extra,
});

describe('snapshots grid with cases.open', () => {
  it('answers about the readings at as_of only, one per running case', async () => {
    const r = await svc.post('/v1/ask', grid(), key);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.shape.kind).toBe('snapshots');
    expect(r.body.shape.as_of).toBe('2024-12-31T00:00:00.000Z');
    const a = r.body.answers.q;
    expect(a.state).toBe('answered');
    const ids = a.cases.map((c: any) => c.entity_id);
    expect(ids.length).toBe(r.body.shape.counts.open);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    // a case that lapsed long before as_of has ended (terminal): it is not open
    expect(ids.length).toBeLessThan(r.body.shape.counts.cases);
  });

  it('gives the same answer to the same call (determinism)', async () => {
    const [a, b] = await Promise.all([svc.post('/v1/ask', grid(), key), svc.post('/v1/ask', grid(), key)]);
    expect(a.body.answers.q.cases.map((c: any) => c.p)).toEqual(b.body.answers.q.cases.map((c: any) => c.p));
    expect(a.body.answers.q.model_ref).toBe(b.body.answers.q.model_ref);
  });

  it('scores every case still running at as_of when asked by id, and names a named label {name}_next_{h}d', async () => {
    const body = grid(
      { label: { name: 'refund', when: { column: 'event', op: '==', value: 'refund' } }, terminal: false },
      { questions: { q: { type: 'rank', outcome_column: 'refund_next_30d', top_k: 5 } }, cases: undefined },
    );
    const r = await svc.post('/v1/ask', body, key);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.shape.features).toContain('refund_count_30d');
    expect(['answered', 'refused', 'not_yet']).toContain(r.body.answers.q.state);
  });
});

describe('cases.open on a table', () => {
  it('takes the rows whose outcome is blank, latest per case', async () => {
    const live = await svc.liveKey();
    const rows = Array.from({ length: 400 }, (_, i) => ({
      id: `c${i % 200}`,
      t: i < 200 ? '2024-01-01' : '2024-02-01',
      x: (i * 37) % 11,
      // the second row of every fifth case is still open
      y: i >= 200 && i % 5 === 0 ? '' : (i * 37) % 11 > 6 ? 'yes' : 'no',
    }));
    const r = await svc.post(
      '/v1/ask',
      {
        data: { rows },
        entity_column: 'id',
        time_column: 't',
        subject_kind: 'object',
        questions: { q: { type: 'yesno', outcome_column: 'y' } },
        cases: { open: true },
      },
      live,
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const a = r.body.answers.q;
    const ids = a.state === 'answered' ? a.cases.map((c: any) => c.entity_id) : null;
    if (ids) expect(ids).toEqual(Array.from({ length: 40 }, (_, k) => `c${k * 5}`).sort());
  });
});

describe('bad inputs name their field', () => {
  it.each([
    ['both label and outcome_time_column', { outcome_time_column: 'date' }, 'shape.label', 'shape_invalid'],
    ['neither', { label: undefined }, 'shape.label', 'shape_invalid'],
    ['a horizon not on the list', { horizon: { value: 14, unit: 'days' } }, 'shape.horizon.value', 'invalid_request'],
    ['a horizon unit other than days', { horizon: { value: 30, unit: 'hours' } }, 'shape.horizon.unit', 'invalid_request'],
    ['a snapshot_every not on the list', { snapshot_every: '2w' }, 'shape.snapshot_every', 'invalid_request'],
    ['an unknown event column', { event_column: 'kind' }, 'shape.event_column', 'shape_invalid'],
    [
      'an outcome time column that is not times',
      { label: undefined, outcome_time_column: 'event' },
      'shape.outcome_time_column',
      'shape_invalid',
    ],
  ])('%s', async (_name, shape, field, code) => {
    const r = await svc.post('/v1/ask', grid(shape), key);
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code, field });
  });

  it('refuses cases.open beside ids', async () => {
    const r = await svc.post('/v1/ask', grid({}, { cases: { open: true, ids: ['cust_0001'] } }), key);
    expect(r.status).toBe(422);
    expect(r.body.field).toMatch(/^cases/);
  });

  it('refuses cases.open other than true', async () => {
    const r = await svc.post('/v1/ask', grid({}, { cases: { open: false } }), key);
    expect(r.status).toBe(422);
    expect(r.body.field).toBe('cases.open');
  });
});
