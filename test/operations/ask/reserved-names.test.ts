// Columns and question names `constructor`, `__proto__` and `prototype` over real HTTP: used like any other
// name (docs/reference/ask.md#data rows are "property name string, any value"; docs/reference/ask.md#questions/8 question names ^[A-Za-z0-9_-]{1,64}$).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSampleCsv } from '../../../samples/catalog.ts';
import { parseCsv } from '../../../host/table/csv.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';

let svc: TestService;
let key: string;

/** saas_churn with three predictors renamed to the names valibot's record used to drop. */
const RENAMED: Record<string, string> = { tenure_months: 'constructor', support_tickets: '__proto__', logins_last_30d: 'prototype' };
const original = parseCsv(loadSampleCsv('saas_churn'));
const columns = original.columns.map((c) => RENAMED[c] ?? c);
const csvLines = loadSampleCsv('saas_churn').split('\n');
const csv = [columns.join(','), ...csvLines.slice(1)].join('\n');
// Object.fromEntries defines own properties, so `__proto__` is a real key and JSON.stringify sends it.
const rowAt = (r: number) => Object.fromEntries(columns.map((c, j) => [c, original.data[j][r]]));
const rows = Array.from({ length: original.rowCount }, (_, r) => rowAt(r));
const caseIds = ['cust_0001', 'cust_0002', 'cust_0010', 'cust_0042'];
const caseRows = caseIds.map((id) => {
  const { churned: _outcome, ...row } = rowAt(Number(id.slice(5)));
  return { ...row, customer_id: `new_${id}` };
});
const base = { entity_column: 'customer_id', subject_kind: 'org' } as const;
const yesno = { type: 'yesno', outcome_column: 'churned' } as const;

beforeAll(async () => {
  svc = await startTestService();
  key = await svc.liveKey('reserved');
});
afterAll(() => svc?.close());

describe('reserved property names', () => {
  it('the test data really carries the three names as own keys on the wire', () => {
    const sent = JSON.parse(JSON.stringify(rows[0]));
    expect(Object.keys(sent)).toEqual(expect.arrayContaining(['constructor', '__proto__', 'prototype']));
    expect(Object.getPrototypeOf(sent)).toBe(Object.prototype);
  });

  it('data.rows with constructor/__proto__/prototype columns answers exactly as the same table as csv', async () => {
    const questions = { q: yesno };
    const cases = { ids: caseIds };
    const fromRows = await svc.post('/v1/ask', { ...base, data: { rows }, questions, cases }, key);
    const fromCsv = await svc.post('/v1/ask', { ...base, data: { csv }, questions, cases }, key);
    expect(fromRows.status).toBe(200);
    expect(fromCsv.status).toBe(200);
    expect(fromRows.body.record.columns).toBe(columns.length);
    expect(fromRows.body.record.columns).toBe(fromCsv.body.record.columns);
    const a = fromRows.body.answers.q;
    const b = fromCsv.body.answers.q;
    expect(a.state).toBe('answered');
    expect(b.state).toBe('answered');
    expect(a.quality.auc).toBe(b.quality.auc);
    expect(a.quality.excluded_columns).toEqual(b.quality.excluded_columns);
    const excluded = a.quality.excluded_columns.map((e: { column: string }) => e.column);
    for (const name of Object.values(RENAMED)) expect(excluded).not.toContain(name);
    expect(a.cases.map((c: { p: number }) => c.p)).toEqual(b.cases.map((c: { p: number }) => c.p));
    expect(a.cases.map((c: { reasons: unknown }) => c.reasons)).toEqual(b.cases.map((c: { reasons: unknown }) => c.reasons));
  });

  it('add-dataset rows keep the three columns: an ask on the stored dataset answers as the csv does', async () => {
    const stored = await svc.post('/v1/add-dataset', { rows }, key);
    expect(stored.status).toBe(200);
    expect(stored.body.columns).toEqual(columns);
    const questions = { q: yesno };
    const cases = { ids: caseIds };
    const fromStored = await svc.post('/v1/ask', { ...base, data: { dataset_id: stored.body.dataset_id }, questions, cases }, key);
    const fromCsv = await svc.post('/v1/ask', { ...base, data: { csv }, questions, cases }, key);
    expect(fromStored.status).toBe(200);
    expect(fromStored.body.record.columns).toBe(columns.length);
    expect(fromStored.body.answers.q.quality.auc).toBe(fromCsv.body.answers.q.quality.auc);
    expect(fromStored.body.answers.q.cases.map((c: { p: number }) => c.p)).toEqual(
      fromCsv.body.answers.q.cases.map((c: { p: number }) => c.p),
    );
  });

  it('the renamed columns are in the model: case rows without them are row_not_scoreable naming each', async () => {
    const questions = { q: yesno };
    const full = await svc.post('/v1/ask', { ...base, data: { rows }, questions, cases: { rows: caseRows } }, key);
    expect(full.status).toBe(200);
    const byIds = await svc.post('/v1/ask', { ...base, data: { rows }, questions, cases: { ids: caseIds } }, key);
    // the same values sent as new case rows score the same as the stored cases
    expect(full.body.answers.q.cases.map((c: { p: number }) => c.p)).toEqual(byIds.body.answers.q.cases.map((c: { p: number }) => c.p));

    const stripped = caseRows.map((row) => Object.fromEntries(Object.entries(row).filter(([c]) => !Object.values(RENAMED).includes(c))));
    const bad = await svc.post('/v1/ask', { ...base, data: { rows }, questions, cases: { rows: stripped } }, key);
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe('row_not_scoreable');
    expect(bad.body.missing_columns).toEqual(expect.arrayContaining(Object.values(RENAMED)));
  });

  it('a predictor named __proto__ in the rows changes the answer (it is not dropped)', async () => {
    const questions = { q: yesno };
    const cases = { ids: caseIds };
    const withIt = await svc.post('/v1/ask', { ...base, data: { rows }, questions, cases }, key);
    const without = rows.map((row) => Object.fromEntries(Object.entries(row).filter(([c]) => c !== '__proto__')));
    const withoutIt = await svc.post('/v1/ask', { ...base, data: { rows: without }, questions, cases }, key);
    expect(withoutIt.body.record.columns).toBe(withIt.body.record.columns - 1);
    expect(withoutIt.body.answers.q.cases.map((c: { p: number }) => c.p)).not.toEqual(
      withIt.body.answers.q.cases.map((c: { p: number }) => c.p),
    );
  });

  it('questions named constructor and prototype are each answered under their own name', async () => {
    const questions = { constructor: yesno, prototype: { type: 'rank', outcome_column: 'churned', top_k: 3 } };
    const r = await svc.post('/v1/ask', { ...base, data: { csv }, questions, cases: { ids: caseIds } }, key);
    expect(r.status).toBe(200);
    const answers = JSON.parse(JSON.stringify(r.body.answers));
    expect(Object.keys(answers).sort()).toEqual(['constructor', 'prototype']);
    expect(Object.getOwnPropertyDescriptor(answers, 'constructor')?.value).toMatchObject({ type: 'yesno', state: 'answered' });
    expect(Object.getOwnPropertyDescriptor(answers, 'prototype')?.value).toMatchObject({ type: 'rank', state: 'answered' });
  });

  it('a question named __proto__ passes validation (it is not dropped, so the map is not empty)', async () => {
    const questions = Object.fromEntries([['__proto__', yesno]]);
    const r = await svc.post('/v1/ask', { ...base, data: { csv }, questions, cases: { ids: caseIds } }, key);
    expect(r.status).toBe(200);
    expect(r.body.fits_run + r.body.billable_decisions).toBeGreaterThan(0);
  });

  it('a question named __proto__ is answered under its own name', async () => {
    const questions = Object.fromEntries([
      ['__proto__', { type: 'score', outcome_column: 'churned' }],
      ['plain', yesno],
    ]);
    const r = await svc.post('/v1/ask', { ...base, data: { csv }, questions, cases: { ids: caseIds } }, key);
    expect(r.status).toBe(200);
    const answers = JSON.parse(JSON.stringify(r.body.answers));
    expect(Object.keys(answers).sort()).toEqual(['__proto__', 'plain']);
    expect(Object.getOwnPropertyDescriptor(answers, '__proto__')?.value).toMatchObject({ type: 'score', state: 'answered' });
  });
});
