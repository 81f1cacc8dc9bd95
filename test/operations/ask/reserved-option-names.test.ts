// Options and column names `__proto__`, `constructor` in the maps an answer builds (choice chances,
// model_refs, preflight resolutions): each stays an own key of the reply (host/schemas/record.ts setOwn).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSampleCsv } from '../../../samples/catalog.ts';
import { parseCsv } from '../../../host/table/csv.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';

let svc: TestService;
let key: string;
const telco = parseCsv(loadSampleCsv('telco_churn'));
const contract = telco.columns.indexOf('contract');
// telco_churn with the contract value month-to-month spelt __proto__ and one_year spelt constructor
const RENAME: Record<string, string> = { 'month-to-month': '__proto__', one_year: 'constructor' };
const rows = Array.from({ length: telco.rowCount }, (_, r) =>
  Object.fromEntries(
    telco.columns.map((c, j) => [c, j === contract ? (RENAME[telco.data[j][r] as string] ?? telco.data[j][r]) : telco.data[j][r]]),
  ),
);

beforeAll(async () => {
  svc = await startTestService();
  key = await svc.liveKey('reserved-options');
});
afterAll(() => svc?.close());

const own = (o: object, k: string) => Object.getOwnPropertyDescriptor(o, k)?.value;

describe('reserved names in answer maps', () => {
  it('choice options __proto__ and constructor each get their chance and their Verdict', async () => {
    const options = ['__proto__', 'constructor', 'two_year'];
    const r = await svc.post(
      '/v1/ask',
      {
        data: { rows },
        entity_column: 'account_id',
        subject_kind: 'org',
        questions: { c: { type: 'choice', outcome_column: 'churned', outcome_is_desirable: false, option_column: 'contract', options } },
        cases: { ids: ['acct_0001', 'acct_0002'] },
      },
      key,
    );
    expect(r.status).toBe(200);
    const a = r.body.answers.c;
    expect(a.state).toBe('answered');
    for (const c of a.cases) {
      expect(Object.keys(c.p).sort()).toEqual([...options].sort());
      for (const o of options) expect(typeof own(c.p, o)).toBe('number');
      expect(own(c.p, '__proto__')).toBeGreaterThan(own(c.p, 'two_year')); // month-to-month churns more (docs/design/samples.md#catalogue)
    }
    expect(a.verdicts.map((v: any) => v.option)).toEqual(options);
  });

  it('option_outcomes keyed __proto__ and constructor each get a model_ref', async () => {
    const withSecond = rows.map((row, i) => ({ ...row, renewed: row.churned === 'yes' ? 'no' : i % 3 === 0 ? 'no' : 'yes' }));
    const r = await svc.post(
      '/v1/ask',
      {
        data: { rows: withSecond },
        entity_column: 'account_id',
        subject_kind: 'org',
        questions: {
          q: {
            type: 'choice',
            outcome_is_desirable: true,
            option_outcomes: Object.fromEntries([
              ['__proto__', 'renewed'],
              ['constructor', 'churned'],
            ]),
          },
        },
        cases: { ids: ['acct_0001'] },
      },
      key,
    );
    expect(r.status).toBe(200);
    const a = r.body.answers.q;
    expect(Object.keys(a.model_refs).sort()).toEqual(['__proto__', 'constructor']);
    expect(own(a.model_refs, '__proto__')).toMatch(/^mr1_/);
    expect(Object.keys(a.cases[0].p).sort()).toEqual(['__proto__', 'constructor']);
  });

  it('preflight lists a column named __proto__ among its resolutions', async () => {
    const renamed = rows.map((row) =>
      Object.fromEntries(Object.entries(row).map(([k, v]) => [k === 'tenure_months' ? '__proto__' : k, v])),
    );
    const added = await svc.post('/v1/add-dataset', { rows: renamed }, key);
    expect(added.status).toBe(200);
    const r = await svc.post('/v1/preflight', { dataset_id: added.body.dataset_id, outcome_column: 'churned' }, key);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.resolutions)).toContain('__proto__');
    expect(own(r.body.resolutions, '__proto__')).toMatchObject({ kind: 'numeric' });
  });
});
