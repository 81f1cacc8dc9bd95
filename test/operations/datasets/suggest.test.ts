// svc_suggest (docs/reference/map.md#suggest) over real HTTP with the real wasm: candidates from the table alone, each ready
// ask posted to svc_ask as it is; the screen's codes on planted tables; every bad input names its field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../helpers/service.ts';

let svc: TestService;
let key: string;
let live: string;
beforeAll(async () => {
  svc = await startTestService();
  key = await svc.testKey();
  live = await svc.liveKey();
});
afterAll(() => svc?.close());

const suggest = (body: unknown, k = key) => svc.post('/v1/suggest', body, k);

describe('on the samples', () => {
  it('proposes churned on saas_churn, worth asking, with a ready ask svc_ask answers', async () => {
    const r = await suggest({ data: { dataset_id: 'sample:saas_churn' }, entity_column: 'customer_id' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.considered).toBe(7);
    expect(r.body.categories_not_tried).toEqual(['plan']);
    expect(r.body.not_checked).toEqual(expect.arrayContaining(['tenure_months', 'monthly_charges']));
    const churn = r.body.candidates.find((c: any) => c.outcome_column === 'churned');
    expect(churn).toMatchObject({ positive_values: ['yes'], values: ['no', 'yes'], worth_asking: true, code: null, defined_by: [] });
    expect(churn.prevalence).toBeGreaterThan(0.1);
    expect(churn.prevalence).toBeLessThan(0.3);
    expect(churn.facts).toEqual({ rows: 800, positives: Math.round(churn.prevalence * 800), prevalence: churn.prevalence });
    const ask = await svc.post('/v1/ask', churn.question, key);
    expect(ask.status, JSON.stringify(ask.body)).toBe(200);
    expect(ask.body.answers.q.state).toBe('answered');
    expect(ask.body.answers.q.ranked.length).toBe(20);
  });

  it('says the coin-flip sample has no separating signal', async () => {
    const r = await suggest({ data: { dataset_id: 'sample:coin_flips' }, entity_column: 'flip_id' });
    expect(r.status).toBe(200);
    const c = r.body.candidates.find((x: any) => x.outcome_column === 'responded');
    expect(c.worth_asking).toBe(false);
    expect(c.code).toBe('no_separating_signal');
    expect(c.why_not).toMatch(/AUC/);
    // its ready ask is still accepted (and refused, as the screen said)
    const ask = await svc.post('/v1/ask', c.question, key);
    expect(ask.status).toBe(200);
    expect(ask.body.answers.q.state).toBe('refused');
  });

  it('tries one candidate per value of a 3-8-valued column with include_categories, each ask accepted', async () => {
    const r = await suggest({ data: { dataset_id: 'sample:telco_churn' }, entity_column: 'account_id', include_categories: true });
    expect(r.status).toBe(200);
    const contract = r.body.candidates.filter((c: any) => c.outcome_column === 'contract');
    expect(contract.map((c: any) => c.positive_values[0])).toEqual(['month-to-month', 'one_year', 'two_year']);
    expect(r.body.categories_not_tried).toEqual([]);
    for (const c of r.body.candidates) {
      const ask = await svc.post('/v1/ask', c.question, key);
      expect(ask.status, `${c.outcome_column}: ${JSON.stringify(ask.body)}`).toBe(200);
    }
  });
});

describe('the screen on planted tables', () => {
  const rows = Array.from({ length: 600 }, (_, i) => {
    const x = (i * 7919) % 100;
    return {
      id: `r${i}`,
      x,
      z: (i * 104729) % 37,
      w: ['a', 'b', 'c'][i % 3],
      bought: x > 60 ? 'yes' : 'no',
      // recorded from the outcome: restates it
      refund_code: x > 60 ? 'R' : 'N',
      rare: i < 3 ? 'yes' : 'no',
      cancelled_at: x > 80 ? '2024-05-01' : '',
      open_flag: i < 500 ? (x > 50 ? '1' : '0') : '',
    };
  });
  let body: any;
  beforeAll(async () => {
    const r = await suggest({ data: { rows }, entity_column: 'id' }, live);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    body = r.body;
  });
  const of = (name: string) => body.candidates.find((c: any) => c.outcome_column === name);

  it('flags a column that another column restates as leakage_suspect, naming it in defined_by', () => {
    expect(of('bought')).toMatchObject({ worth_asking: false, code: 'leakage_suspect' });
    expect(of('bought').defined_by).toEqual(expect.arrayContaining(['refund_code', 'x']));
  });

  it('flags a 0.5% outcome as prevalence_out_of_band', () => {
    expect(of('rare')).toMatchObject({ worth_asking: false, code: 'prevalence_out_of_band', prevalence: 0.005 });
  });

  it('flags one value and blanks as missingness_as_outcome', () => {
    expect(of('cancelled_at')).toMatchObject({ worth_asking: false, code: 'missingness_as_outcome' });
  });

  it('asks about the blank-outcome rows (cases.open) when the outcome has blanks, and svc_ask accepts it', async () => {
    const c = of('open_flag');
    expect(c.question.cases).toEqual({ open: true });
    expect(c.question.questions.q.type).toBe('yesno');
    const ask = await svc.post('/v1/ask', c.question, live);
    expect(ask.status, JSON.stringify(ask.body)).toBe(200);
    if (ask.body.answers.q.state === 'answered') expect(ask.body.answers.q.cases).toHaveLength(100);
  });
});

it('considers 60 columns per call and counts the rest as not_considered', async () => {
  const rows = Array.from({ length: 30 }, (_, i) => {
    const row: Record<string, unknown> = { id: `r${i}` };
    for (let c = 0; c < 65; c++) row[`f${c}`] = (i * (c + 3)) % 2 ? 'yes' : 'no';
    return row;
  });
  const r = await suggest({ data: { rows }, entity_column: 'id' }, live);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.considered).toBe(60);
  expect(r.body.not_considered).toBe(5);
  expect(r.body.candidates.map((c: any) => c.outcome_column)).not.toContain('f60');
});

describe('bad inputs name their field', () => {
  it.each([
    ['no data', { entity_column: 'customer_id' }, 'data', 'invalid_request'],
    ['no entity_column', { data: { dataset_id: 'sample:saas_churn' } }, 'entity_column', 'invalid_request'],
    [
      'an entity column the table lacks',
      { data: { dataset_id: 'sample:saas_churn' }, entity_column: 'cust' },
      'entity_column',
      'invalid_request',
    ],
    [
      'a time column the table lacks',
      { data: { dataset_id: 'sample:saas_churn' }, entity_column: 'customer_id', time_column: 'when' },
      'time_column',
      'invalid_request',
    ],
    [
      'include_categories not a boolean',
      { data: { dataset_id: 'sample:saas_churn' }, entity_column: 'customer_id', include_categories: 'yes' },
      'include_categories',
      'invalid_request',
    ],
    ['two sources', { data: { dataset_id: 'sample:saas_churn', csv: 'a,b\n1,2\n' }, entity_column: 'a' }, 'data.csv', 'invalid_request'],
    [
      'an extra property',
      { data: { dataset_id: 'sample:saas_churn' }, entity_column: 'customer_id', outcome: 'x' },
      'outcome',
      'invalid_request',
    ],
    ['an unknown sample', { data: { dataset_id: 'sample:nope' }, entity_column: 'x' }, 'data.dataset_id', 'unknown_dataset'],
    ['a group column as entity', { data: { dataset_id: 'sample:saas_churn' }, entity_column: 'plan' }, 'entity_column', 'entity_not_an_id'],
  ])('%s', async (_name, body, field, code) => {
    const r = await suggest(body);
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
    expect(r.body).toMatchObject({ code, field });
  });

  it('refuses a test key on inline data', async () => {
    const r = await suggest({ data: { csv: 'a,b\n1,2\n' }, entity_column: 'a' });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('test_key_samples_only');
  });
});
