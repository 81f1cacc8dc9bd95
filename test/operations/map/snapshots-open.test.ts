// docs/reference/map.md#snapshots over real HTTP with the real wasm: the `snapshots` grid shape and `cases: {open: true}`
// (today's open cases) on the customer_events sample, a table with blank outcomes, and their bad inputs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSampleCsv } from '../../../samples/catalog.ts';
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
    snapshot_every: '1w',
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

describe('snapshots table form', () => {
  // the log read at two moments per customer; outcome: no event in the 90 days after the moment
  const lines = loadSampleCsv('customer_events').trim().split('\n').slice(1);
  const byCustomer = new Map<string, string[]>();
  for (const l of lines) {
    const [id, date] = l.split(',');
    byCustomer.set(id, [...(byCustomer.get(id) ?? []), date]);
  }
  const plus = (d: string, days: number) => new Date(Date.parse(d) + days * 86_400_000).toISOString().slice(0, 10);
  const snapshots: Record<string, unknown>[] = [];
  for (const [id, dates] of [...byCustomer].sort()) {
    for (const at of ['2024-06-01', '2024-09-01']) {
      if (!dates.some((d) => d <= at)) continue;
      const lapsed = dates.some((d) => d > at && d <= plus(at, 90)) ? 'no' : 'yes';
      snapshots.push({ snap: `${id}@${at}`, customer_id: id, at, lapsed });
    }
    // today's moment: outcome not known yet
    snapshots.push({ snap: `${id}@2024-12-31`, customer_id: id, at: '2024-12-31', lapsed: '' });
  }
  const body = (shape: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
    data: { dataset_id: 'sample:customer_events' },
    entity_column: 'customer_id',
    time_column: 'date',
    subject_kind: 'org',
    shape: {
      kind: 'snapshots',
      snapshots: { rows: snapshots },
      snapshot_id_column: 'snap',
      snapshot_time_column: 'at',
      event_column: 'event',
      ...shape,
    },
    questions: { q: { type: 'yesno', outcome_column: 'lapsed' } },
    cases: { ids: ['cust_0001@2024-09-01', 'cust_0002@2024-12-31', 'nope'] },
    ...extra,
  });
  let live: string;
  beforeAll(async () => {
    live = await svc.liveKey();
  });

  it('reads the log at each snapshot, learns the snapshot table outcome, and names cases by snapshot id', async () => {
    const r = await svc.post('/v1/ask', body(), live);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.shape.features).toEqual(expect.arrayContaining(['event_count_30d', 'ticket_count_90d', 'days_since_last_event']));
    const a = r.body.answers.q;
    expect(a.state).toBe('answered');
    expect(a.cases.map((c: any) => c.entity_id)).toEqual(['cust_0001@2024-09-01', 'cust_0002@2024-12-31', 'nope']);
    expect(a.cases[2]).toMatchObject({ state: 'not_scoreable', not_scoreable: { unknown_id: true } });
  });

  it("answers cases.open about the snapshots whose outcome is blank (today's)", async () => {
    const r = await svc.post('/v1/ask', body({}, { cases: { open: true } }), live);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const ids = r.body.answers.q.cases.map((c: any) => c.entity_id);
    expect(ids).toHaveLength(byCustomer.size);
    expect(ids.every((id: string) => id.endsWith('@2024-12-31'))).toBe(true);
  });

  it('drops snapshots at or after their own outcome time and counts them', async () => {
    const withTimes = snapshots.map((s, i) => ({ ...s, lapsed_at: i % 10 === 0 ? '2024-01-01' : '' }));
    const b = body({ snapshots: { rows: withTimes }, outcome_time_column: 'lapsed_at' });
    const r = await svc.post('/v1/ask', b, live);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.shape.counts.dropped_after_outcome).toBe(withTimes.filter((s) => s.lapsed_at !== '').length);
  });

  it.each([
    ['no snapshot_id_column', { snapshot_id_column: undefined }, 'shape.snapshot_id_column'],
    ['a grid field', { horizon: { value: 30, unit: 'days' } }, 'shape.horizon'],
    ['an id column the table lacks', { snapshot_id_column: 'sid' }, 'shape.snapshot_id_column'],
    ['a time column that is not times', { snapshot_time_column: 'customer_id' }, 'shape.snapshot_time_column'],
    ['a repeated snapshot id', { snapshots: { rows: [...snapshots, snapshots[0]] } }, 'shape.snapshot_id_column'],
    ['two sources', { snapshots: { rows: snapshots, csv: 'a\n1\n' } }, 'shape.snapshots.csv'],
    [
      'a table-form field on a grid',
      { snapshots: undefined, snapshot_every: '1w', horizon: { value: 30, unit: 'days' }, label: { lapsed: true } },
      'shape.snapshot_id_column',
    ],
  ])('names the field at fault: %s', async (_name, shape, field) => {
    const r = await svc.post('/v1/ask', body(shape), live);
    expect(r.status).toBe(422);
    expect(r.body.field).toBe(field);
  });

  it('names shape.snapshots.dataset_id for an unknown sample, and refuses a test key on inline snapshots', async () => {
    const r1 = await svc.post('/v1/ask', body({ snapshots: { dataset_id: 'sample:nope' } }), live);
    expect(r1.status).toBe(404);
    expect(r1.body.field).toBe('shape.snapshots.dataset_id');
    const r2 = await svc.post('/v1/ask', body(), key);
    expect(r2.status).toBe(403);
    expect(r2.body.code).toBe('test_key_samples_only');
  });
});
