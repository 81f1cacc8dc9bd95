// The first hour of a new user (issue "The first hour"): each usual mistake gets a problem whose code and
// field name it and whose remedy names the real fix, over real HTTP; and the answer says which value was
// read as yes (range texts rounded for people: test/engine/range-text.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLES, loadSampleCsv } from '../../../samples/catalog.ts';
import { parseCsv } from '../../../host/table/csv.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';

let svc: TestService;
let key: string;
let testKey: string;

// saas_churn with its outcome spelled Yes/No, as many exports write it
const table = parseCsv(loadSampleCsv('saas_churn'));
const rows = Array.from({ length: table.rowCount }, (_, r) => {
  const row = Object.fromEntries(table.columns.map((c, j) => [c, table.data[j][r]])) as Record<string, unknown>;
  row.churned = row.churned === 'yes' ? 'Yes' : 'No';
  return row;
});
const base = { data: { rows }, entity_column: 'customer_id', subject_kind: 'org', cases: { ids: ['cust_0001'] } };
const ask = (body: Record<string, unknown>, k = key) => svc.post('/v1/ask', { ...base, ...body }, k);
const yesno = (extra: Record<string, unknown> = {}) => ({ q: { type: 'yesno', outcome_column: 'churned', ...extra } });

beforeAll(async () => {
  svc = await startTestService();
  key = await svc.liveKey(undefined, true);
  testKey = await svc.testKey();
});
afterAll(() => svc?.close());

describe('mistakes in the question', () => {
  it('positive_values naming a value the column never has is a 422 at that field, listing its values and the case hint', async () => {
    const r = await ask({ questions: yesno({ positive_values: ['yes'] }) });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'invalid_request', field: 'questions.q.positive_values' });
    expect(r.body.detail).toContain('(its values: "No", "Yes")');
    expect(r.body.detail).toContain('"yes" -> "Yes"');
    expect(r.body.remedy).toMatch(/spelled exactly as the column has them/);
  });

  it('positive_values naming every value is a 422: no row would be a no', async () => {
    const r = await ask({ questions: yesno({ positive_values: ['Yes', 'No'] }) });
    expect(r.status).toBe(422);
    expect(r.body.field).toBe('questions.q.positive_values');
    expect(r.body.detail).toMatch(/no row would be a no/);
  });

  it('an outcome column with one value is 422 outcome_one_value, not a request to name the yes values', async () => {
    const r = await ask({ data: { rows: rows.map((row) => ({ ...row, churned: 'No' })) }, questions: yesno() });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'outcome_one_value', field: 'questions.q.outcome_column' });
    expect(r.body.detail).toContain('has only one value, "No"');
    expect(r.body.remedy).toMatch(/both kinds/);
  });

  it('a wrong outcome_column lists the columns and the closest name', async () => {
    const r = await ask({ questions: { q: { type: 'yesno', outcome_column: 'churn' } } });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'invalid_request', field: 'questions.q.outcome_column' });
    expect(r.body.detail).toContain('tenure_months');
    expect(r.body.detail).toContain('did you mean "churned"?');
  });

  it('a wrong entity_column lists the columns and the closest name', async () => {
    const r = await ask({ entity_column: 'customer', questions: yesno() });
    expect(r.status).toBe(422);
    expect(r.body.field).toBe('entity_column');
    expect(r.body.detail).toContain('did you mean "customer_id"?');
  });

  it('an entity_column that names groups (3 values over 800 rows) is 422 entity_not_an_id pointing at time_column', async () => {
    const r = await ask({ entity_column: 'plan', cases: { ids: ['pro'] }, questions: yesno() });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'entity_not_an_id', field: 'entity_column' });
    expect(r.body.detail).toMatch(/plan has 3 distinct values over 800 rows/);
    expect(r.body.remedy).toMatch(/time_column/);
  });

  it('repeated ids are fine with a time_column: the rows are a log and the latest row of each case is read', async () => {
    const log = rows.flatMap((row, i) => [
      { ...row, seen: '2024-01-01' },
      { ...row, seen: i % 2 ? '2024-02-01' : '2024-01-15' },
    ]);
    const r = await ask({ data: { rows: log }, time_column: 'seen', questions: yesno() });
    expect(r.status).toBe(200);
  });

  it('questions sent as an array is a 422 naming questions, not a question called "0"', async () => {
    const r = await ask({ questions: [{ type: 'yesno', outcome_column: 'churned' }] });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'invalid_request', field: 'questions' });
    expect(r.body.detail).toMatch(/must be an object, got Array/);
    expect(r.body.remedy).toMatch(/^Change questions so it must be an object|questions/);
  });

  it('outcome_column equal to entity_column is a 422 at outcome_column', async () => {
    const r = await ask({ questions: { q: { type: 'yesno', outcome_column: 'customer_id' } } });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'invalid_request', field: 'questions.q.outcome_column' });
    expect(r.body.detail).toMatch(/is the entity_column/);
  });

  it('a schema mistake gets a remedy that names its field, not one remedy for every invalid_request', async () => {
    const a = await ask({ questions: yesno({ cuts: [0.5] }) });
    const b = await ask({ subject_kind: 'robot', questions: yesno() });
    expect(a.status).toBe(422);
    expect(b.status).toBe(422);
    expect(b.body.remedy).toContain('subject_kind');
    expect(a.body.remedy).not.toBe(b.body.remedy);
  });
});

describe('remedies that point at the real next step', () => {
  it('a sample name with a typo is told the samples there are, not that it was deleted', async () => {
    const r = await svc.post(
      '/v1/ask',
      { ...base, data: { dataset_id: 'sample:saas' }, questions: yesno(), cases: { ids: ['cust_0001'] } },
      testKey,
    );
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ code: 'unknown_dataset', field: 'data.dataset_id' });
    expect(r.body.detail).toContain('did you mean "sample:saas_churn"?');
    expect(r.body.remedy).toContain('sample:saas_churn');
    expect(r.body.remedy).not.toMatch(/deleted/);
  });

  it('a test key on own data is told where live keys come from', async () => {
    const r = await ask({ questions: yesno() }, testKey);
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('test_key_samples_only');
    expect(r.body.remedy).toContain(svc.services.config.keysUrl);
  });
});

describe('what an answer says', () => {
  it('says which value was read as yes, in the answer and in the signed Verdict', async () => {
    const r = await ask({ questions: yesno() });
    expect(r.status).toBe(200);
    const a = r.body.answers.q;
    expect(a.outcome).toEqual({ column: 'churned', positive_values: ['Yes'] });
    expect(a.verdicts[0].verdict.outcome).toMatchObject({ column: 'churned', positive_values: ['Yes'] });
    const v = await svc.post('/v1/verify', a.verdicts[0]);
    expect(v.body.status).toBe('valid');
  });
});

describe('report-outcomes without event_id', () => {
  it('counts a re-sent batch as duplicates: an item is keyed by its case, outcome and time', async () => {
    const r = await ask({ questions: yesno() });
    const model_ref = r.body.answers.q.model_ref;
    const outcomes = [
      { entity_id: 'cust_0001', outcome: true, observed_at: '2025-07-01' },
      { entity_id: 'cust_0002', outcome: false, observed_at: '2025-07-01' },
    ];
    const first = await svc.post('/v1/report-outcomes', { model_ref, outcomes }, key);
    expect(first.body).toMatchObject({ written: 2, duplicates: 0 });
    const again = await svc.post('/v1/report-outcomes', { model_ref, outcomes }, key);
    expect(again.body).toMatchObject({ written: 0, duplicates: 2 });
    const later = await svc.post('/v1/report-outcomes', { model_ref, outcomes: [{ ...outcomes[0], observed_at: '2025-08-01' }] }, key);
    expect(later.body).toMatchObject({ written: 1, duplicates: 0 });
  });
});

describe('numbers and ids as a newcomer writes them', () => {
  // saas_churn with its outcome as 1/2 (2 = churned), as a numeric export writes it
  const numeric = rows.map((row) => ({ ...row, churned: row.churned === 'Yes' ? 2 : 1 }));

  it('positive_values [2] on a numeric outcome is read as the column value 2, the same answer as ["2"]', async () => {
    const a = await ask({ data: { rows: numeric }, questions: yesno({ positive_values: [2] }) });
    const b = await ask({ data: { rows: numeric }, questions: yesno({ positive_values: ['2'] }) });
    expect(a.status).toBe(200);
    expect(a.body.answers.q.outcome).toEqual({ column: 'churned', positive_values: ['2'] });
    expect(a.body.answers.q.cases[0].p).toBe(b.body.answers.q.cases[0].p);
  });

  it('a number the column never has is a 422 at positive_values listing its values', async () => {
    const r = await ask({ data: { rows: numeric }, questions: yesno({ positive_values: [7] }) });
    expect(r.status).toBe(422);
    expect(r.body.field).toBe('questions.q.positive_values');
    expect(r.body.detail).toMatch(/never has "7" \(its values: "1", "2"\)|never has "7" \(its values: "2", "1"\)/);
  });

  it('an unknown case id names a few ids of the record, so their spelling shows', async () => {
    const r = await ask({ questions: yesno(), cases: { ids: ['1', '2'] } });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('unknown_case_id');
    expect(r.body.detail).toMatch(/its ids look like "cust_\d+", "cust_\d+", "cust_\d+"/);
    expect(r.body.remedy).toMatch(/e\.g\. "cust_/);
  });
});

describe('files that are not what they seem', () => {
  it('a header-only CSV is a 422 saying it has no data rows, at ask and at add-dataset', async () => {
    const a = await ask({ data: { csv: 'customer_id,churned\n' }, questions: yesno() });
    expect(a.status).toBe(422);
    expect(a.body).toMatchObject({ code: 'invalid_request', field: 'data.csv' });
    expect(a.body.detail).toMatch(/header row \(customer_id, churned\) but no data rows/);
    const d = await svc.post('/v1/add-dataset', { csv: 'customer_id,churned\n' }, key);
    expect(d.status).toBe(422);
    expect(d.body).toMatchObject({ field: 'csv' });
    expect(d.body.detail).toMatch(/no data rows/);
  });

  it('a semicolon-separated export (decimal commas) is read and answered as its comma form would be', async () => {
    const rows = Array.from({ length: 400 }, (_, i) => [
      `c${i}`,
      `${(i * 7) % 50},${i % 10}`,
      (i * 7) % 50 > 30 || i % 11 === 0 ? 'yes' : 'no',
    ]);
    const semi = ['customer_id;spend;churned', ...rows.map((r) => r.join(';'))].join('\n') + '\n';
    const comma =
      ['customer_id,spend,churned', ...rows.map(([id, spend, y]) => [id, spend.replace(',', '.'), y].join(','))].join('\n') + '\n';
    const cases = { ids: ['c1', 'c5'] };
    const a = await ask({ data: { csv: semi }, questions: yesno(), cases });
    const b = await ask({ data: { csv: comma }, questions: yesno(), cases });
    expect(a.status).toBe(200);
    expect(a.body.answers.q.state).toBe('answered');
    expect(a.body.answers.q.state).toBe(b.body.answers.q.state);
    expect(a.body.answers.q.cases?.map((c: any) => c.p)).toEqual(b.body.answers.q.cases?.map((c: any) => c.p));
  });

  it.each([['\t', 'tab']])('a %j-separated file is a 422 saying it looks %s-separated, with the comma fix', async (sep, word) => {
    const csv =
      ['customer_id', 'tenure', 'churned'].join(sep) + '\n' + ['c1', '3', 'yes'].join(sep) + '\n' + ['c2', '9', 'no'].join(sep) + '\n';
    const r = await ask({ data: { csv }, questions: yesno() });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'invalid_request', field: 'data.csv' });
    expect(r.body.detail).toContain(`looks ${word}-separated`);
    expect(r.body.remedy).toMatch(/comma-separated/);
  });
});

describe('answers that explain themselves', () => {
  it('a refusal over REST carries the sentence the page shows, with the held-out AUC and its interval', async () => {
    const coinFlips = SAMPLES.find((s) => s.name === 'coin_flips')!.try;
    const r = await svc.post('/v1/ask', coinFlips, testKey);
    expect(r.status).toBe(200);
    const a = r.body.answers.q;
    expect(a.state).toBe('refused');
    expect(a.explanation).toContain('No pattern held on the held-out rows');
    expect(a.explanation).toContain('so the service refuses rather than guesses');
    const [lo, hi] = a.quality.auc_interval;
    const two = (x: number) => String(Math.round(x * 100) / 100);
    expect(a.explanation).toContain(`held-out AUC ${two(a.quality.auc)}, 95% interval ${two(lo)} to ${two(hi)}`);
  });

  it('a not_yet says how many labeled rows it has and needs', async () => {
    const few = rows.slice(0, 12).map((row, i) => ({ ...row, churned: i % 2 === 0 ? 'Yes' : 'No' }));
    const r = await ask({ data: { rows: few }, questions: yesno() });
    const a = r.body.answers.q;
    expect(a.state).toBe('not_yet');
    expect(a.explanation).toMatch(/^Too few labeled rows .* \(it has 12 labeled rows, 6 yes\)/);
  });
});

describe('a rank of the whole record', () => {
  it('says it returned the top_k highest of all, and how to get more', async () => {
    const r = await ask({ questions: { q: { type: 'rank', outcome_column: 'churned', positive_values: ['Yes'] } }, cases: undefined });
    expect(r.status).toBe(200);
    const a = r.body.answers.q;
    expect(a.ranked).toHaveLength(20);
    expect(a.ranked_note).toBe(
      `The 20 highest of ${a.ranked_total.toLocaleString('en-US')} ranked cases (top_k defaults to 20). ` +
        'Send a larger top_k (up to 1,000) for more, or export: "csv" for every case.',
    );
    const all = await ask({
      questions: { q: { type: 'rank', outcome_column: 'churned', positive_values: ['Yes'], top_k: 1000 } },
      cases: { ids: ['cust_0001', 'cust_0002'] },
    });
    expect(all.body.answers.q.ranked_note).toBeUndefined();
  });
});

describe('cases.open on a record with no open case', () => {
  it('answers none and says why in cases_note, naming the outcome column and what to send instead', async () => {
    const r = await ask({ questions: yesno({ positive_values: ['Yes'] }), cases: { open: true } });
    expect(r.status).toBe(200);
    const a = r.body.answers.q;
    expect(a.state).toBe('answered');
    expect(a.cases).toEqual([]);
    expect(a.cases_note).toBe(
      'cases.open found no open case: every row has its churned (a blank churned marks a case still open), so there is no ' +
        'case to answer. Add rows whose churned is still blank, or send cases: {ids: [...]} or cases: {rows: [...]} to ask ' +
        'about particular cases.',
    );
    // with an open case there is nothing to explain
    const open = await ask({
      data: { rows: rows.map((row, i) => (i === 5 ? { ...row, churned: '' } : row)) },
      questions: yesno({ positive_values: ['Yes'] }),
      cases: { open: true },
    });
    expect(open.status).toBe(200);
    expect(open.body.answers.q.cases).toHaveLength(1);
    expect(open.body.answers.q.cases_note).toBeUndefined();
  });
});

describe('score levels on a record with a low base rate', () => {
  it('the default cuts say they tell few cases apart, and the cuts it suggests do', async () => {
    const ids = rows.slice(0, 60).map((row) => row.customer_id);
    const q = { type: 'score', outcome_column: 'churned', positive_values: ['Yes'] };
    const r = await ask({ questions: { q }, cases: { ids } });
    expect(r.status).toBe(200);
    const a = r.body.answers.q;
    const rate = Math.round(a.quality.base_rate * 100);
    expect(rate).toBeLessThan(25);
    const unlikely = a.cases.filter((c: { level: string }) => c.level === 'unlikely').length;
    expect(a.levels_note).toMatch(
      new RegExp(
        `^${unlikely} of 60 cases are unlikely: the default cuts \\(0.25, 0.5, 0.75\\) lie above this record's base rate of ${rate}%, ` +
          'so they tell few cases apart. To grade cases against the base rate, send cuts such as \\[([0-9.]+), ([0-9.]+), ([0-9.]+)\\]',
      ),
    );
    const cuts = /\[([0-9.]+), ([0-9.]+), ([0-9.]+)\]/.exec(a.levels_note)!.slice(1).map(Number);
    expect(cuts[0]).toBeCloseTo(a.quality.base_rate / 2, 2);
    const graded = await ask({
      questions: { q: { ...q, cuts, levels: ['below_average', 'average', 'above_average', 'far_above_average'] } },
      cases: { ids },
    });
    expect(graded.status).toBe(200);
    expect(graded.body.answers.q.levels_note).toBeUndefined();
    const levels = new Set(graded.body.answers.q.cases.map((c: { level: string }) => c.level));
    expect(levels.size).toBeGreaterThan(2);
  });
});
