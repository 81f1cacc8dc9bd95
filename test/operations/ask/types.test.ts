// svc_ask over inline tables with a live key: every question type, outcome detection, cases by ids
// and rows, shared fits, band, and the ask's own errors (docs/reference/ask.md#questions, docs/reference/ask.md, docs/reference/errors.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSampleCsv } from '../../../samples/catalog.ts';
import { parseCsv } from '../../../host/table/csv.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { Prng } from '../../../samples/prng.ts';

let svc: TestService;
let key: string;
const csv = loadSampleCsv('saas_churn');
const table = parseCsv(csv);
const rows = Array.from({ length: table.rowCount }, (_, r) => Object.fromEntries(table.columns.map((c, j) => [c, table.data[j][r]])));
const base = { data: { csv }, entity_column: 'customer_id', subject_kind: 'org' } as const;
const ask = (body: object) => svc.post('/v1/ask', { ...base, ...body }, key);

beforeAll(async () => {
  svc = await startTestService();
  key = await svc.liveKey('acme');
});
afterAll(() => svc?.close());

describe('question types', () => {
  it('yesno and score on one outcome share one fit; levels follow the cuts', async () => {
    const r = await ask({
      questions: {
        risk: { type: 'yesno', outcome_column: 'churned' },
        band: { type: 'score', outcome_column: 'churned', levels: ['low', 'mid', 'high'], cuts: [0.2, 0.5] },
        plain: { type: 'score', outcome_column: 'churned' },
      },
      cases: { ids: ['cust_0001', 'cust_0002', 'cust_0010'] },
    });
    expect(r.status).toBe(200);
    expect(r.body.fits_run).toBe(1);
    const { risk, band, plain } = r.body.answers;
    expect(band.model_ref).toBe(risk.model_ref);
    for (let i = 0; i < 3; i++) {
      const p = risk.cases[i].p;
      expect(band.cases[i].p).toBe(p);
      expect(band.cases[i].level).toBe(p < 0.2 ? 'low' : p < 0.5 ? 'mid' : 'high');
      expect(plain.cases[i].level).toBe(p < 0.25 ? 'unlikely' : p < 0.5 ? 'possible' : p < 0.75 ? 'likely' : 'very_likely');
    }
    expect(r.body.billable_decisions).toBe(9);
  });

  it('a different outcome_is_desirable is a separate fit with its own model_ref and polarity', async () => {
    const r = await ask({
      questions: {
        a: { type: 'yesno', outcome_column: 'churned', outcome_is_desirable: false },
        b: { type: 'yesno', outcome_column: 'churned' },
      },
      cases: { ids: ['cust_0001'] },
    });
    expect(r.body.answers.a.model_ref).not.toBe(r.body.answers.b.model_ref);
    expect(r.body.answers.a.polarity).toBe('undesirable');
    expect(r.body.answers.b.polarity).toBeNull();
    expect(r.body.answers.a.cases[0].p).toBe(r.body.answers.b.cases[0].p);
  });

  it('rank orders the whole record highest first, at most top_k, with ranked_total', async () => {
    const r = await ask({ questions: { top: { type: 'rank', outcome_column: 'churned', top_k: 25 } } });
    const a = r.body.answers.top;
    expect(a.ranked).toHaveLength(25);
    expect(a.ranked_total).toBe(800);
    for (let i = 1; i < a.ranked.length; i++) {
      expect(a.ranked[i].p).toBeLessThanOrEqual(a.ranked[i - 1].p);
      expect(a.ranked[i].position).toBe(i + 1);
    }
  });

  it("choice over a column names the best option per case; each option's Verdict holds that option's own chance and reasons", async () => {
    // telco_churn: contract is part of the planted pattern (docs/design/samples.md#catalogue), so the choice is answered
    const telco = loadSampleCsv('telco_churn');
    const t = parseCsv(telco);
    const ids = ['acct_0001', 'acct_0002', 'acct_0003'].filter((id) => t.data[0].includes(id));
    expect(ids.length).toBeGreaterThan(0);
    const options = ['month-to-month', 'one_year', 'two_year'];
    const r = await svc.post(
      '/v1/ask',
      {
        data: { csv: telco },
        entity_column: 'account_id',
        subject_kind: 'org',
        questions: { c: { type: 'choice', outcome_column: 'churned', outcome_is_desirable: false, option_column: 'contract', options } },
        cases: { ids },
      },
      key,
    );
    expect(r.status).toBe(200);
    const a = r.body.answers.c;
    expect(a.state).toBe('answered');
    for (const c of a.cases) {
      const best = Object.entries<number>(c.p).sort((x, y) => x[1] - y[1])[0][0];
      expect(c.choice).toBe(c.least_likely);
      expect(c.p[c.choice]).toBe(c.p[best]);
    }
    expect(a.verdicts.map((v: any) => v.option)).toEqual(options);
    // the same cases with the option written into the row, asked as yesno on the same fit's outcome
    const rowOf = (id: string) => {
      const r0 = t.data[0].indexOf(id);
      return Object.fromEntries(t.columns.map((col, j) => [col, t.data[j][r0]]));
    };
    for (const v of a.verdicts) {
      const yesno = await svc.post(
        '/v1/ask',
        {
          data: { csv: telco },
          entity_column: 'account_id',
          subject_kind: 'org',
          questions: { y: { type: 'yesno', outcome_column: 'churned', outcome_is_desirable: false } },
          cases: { rows: ids.map((id) => ({ ...rowOf(id), contract: v.option })) },
        },
        key,
      );
      const y = yesno.body.answers.y;
      expect(y.model_ref).toBe(a.model_ref);
      v.verdict.cases.forEach((vc: any, i: number) => {
        expect(vc.p).toBe(y.cases[i].p);
        expect(vc.reasons).toEqual(y.cases[i].reasons);
      });
    }
  });

  it('choice over an option the category column never has is a 422 at that option, listing the values it has', async () => {
    const withRegion = rows.map((row) => ({ ...row, region: 'eu' }));
    const r = await svc.post(
      '/v1/ask',
      {
        ...base,
        data: { rows: withRegion },
        questions: {
          q: { type: 'choice', outcome_column: 'churned', outcome_is_desirable: true, option_column: 'region', options: ['eu', 'US'] },
        },
        cases: { ids: ['cust_0001'] },
      },
      key,
    );
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'invalid_request', field: 'questions.q.options.1' });
    expect(r.body.detail).toContain('its values: "eu"');
    expect(r.body.remedy).toMatch(/values that region has/);
  });

  it('choice over a column that makes no difference is refused with option_not_in_pattern', async () => {
    // one row of 800 in "us": no cut can leave 10 rows a side, so the term stays flat and no option moves any chance
    const withRegion = rows.map((row, i) => ({ ...row, region: i === 7 ? 'us' : 'eu' }));
    const r = await svc.post(
      '/v1/ask',
      {
        ...base,
        data: { rows: withRegion },
        questions: {
          q: { type: 'choice', outcome_column: 'churned', outcome_is_desirable: true, option_column: 'region', options: ['eu', 'us'] },
        },
        cases: { ids: ['cust_0001'] },
      },
      key,
    );
    expect(r.status).toBe(200);
    const a = r.body.answers.q;
    expect(a.state).toBe('refused');
    expect(a.reasons).toEqual(['option_not_in_pattern']);
    expect(a.verdicts).toBeUndefined();
    expect(r.body.billable_decisions).toBe(0);
  });

  it("choice with option_outcomes fits one outcome per option; each option's Verdict holds that outcome's reasons", async () => {
    const withSecond = rows.map((row, i) => ({ ...row, renewed: row.churned === 'yes' ? 'no' : i % 3 === 0 ? 'no' : 'yes' }));
    const body = { ...base, data: { rows: withSecond }, cases: { ids: ['cust_0001', 'cust_0002'] } };
    const r = await svc.post(
      '/v1/ask',
      { ...body, questions: { q: { type: 'choice', outcome_is_desirable: true, option_outcomes: { stay: 'renewed', leave: 'churned' } } } },
      key,
    );
    const a = r.body.answers.q;
    expect(r.body.fits_run).toBe(2);
    expect(Object.keys(a.model_refs).sort()).toEqual(['leave', 'stay']);
    expect(a.state).toBe('answered');
    expect(Object.keys(a.cases[0].p).sort()).toEqual(['leave', 'stay']);
    const each = await svc.post(
      '/v1/ask',
      {
        ...body,
        questions: {
          stay: { type: 'yesno', outcome_column: 'renewed', outcome_is_desirable: true },
          leave: { type: 'yesno', outcome_column: 'churned', outcome_is_desirable: true },
        },
      },
      key,
    );
    expect(each.body.fits_run).toBe(0); // the same fits
    for (const v of a.verdicts) {
      const y = each.body.answers[v.option];
      expect(v.verdict.model_ref).toBe(y.model_ref);
      v.verdict.cases.forEach((vc: any, i: number) => {
        expect(vc.p).toBe(y.cases[i].p);
        expect(vc.reasons).toEqual(y.cases[i].reasons);
      });
    }
  });

  it('band adds band, band_reason and max_autonomy; person never above L1', async () => {
    const r = await ask({
      subject_kind: 'person',
      acknowledge_decision_support: true,
      band: true,
      questions: { q: { type: 'yesno', outcome_column: 'churned' } },
      cases: { ids: ['cust_0001', 'cust_0002'] },
    });
    for (const c of r.body.answers.q.cases) {
      expect(['act', 'escalate', 'refuse']).toContain(c.band);
      expect(typeof c.band_reason).toBe('string');
      expect(['L0', 'L1']).toContain(c.max_autonomy);
    }
  });

  it('cases by rows score new cases; a missing column is row_not_scoreable naming every one', async () => {
    const ok = await ask({
      questions: { q: { type: 'yesno', outcome_column: 'churned' } },
      cases: {
        rows: [
          { customer_id: 'new_1', tenure_months: 3, monthly_charges: 50, support_tickets: 9, logins_last_30d: 1, plan: 'basic', seats: 2 },
        ],
      },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.answers.q.cases[0].entity_id).toBe('new_1');
    const bad = await ask({
      questions: { q: { type: 'yesno', outcome_column: 'churned' } },
      cases: { rows: [{ customer_id: 'x', plan: 'pro' }] },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe('row_not_scoreable');
    expect(bad.body.field).toBe('cases');
    for (const col of ['tenure_months', 'support_tickets', 'logins_last_30d']) expect(bad.body.detail).toContain(col);
    for (const col of ['tenure_months', 'support_tickets', 'logins_last_30d']) expect(bad.body.missing_columns).toContain(col);
  });

  it('a row lacking a column beside readable rows is a per-case not_scoreable naming it, unbilled (contract 1.1)', async () => {
    const good = {
      customer_id: 'new_1',
      tenure_months: 3,
      monthly_charges: 50,
      support_tickets: 9,
      logins_last_30d: 1,
      plan: 'basic',
      seats: 2,
    };
    const { support_tickets: _gone, ...lacking } = { ...good, customer_id: 'new_2' };
    const r = await ask({ questions: { q: { type: 'yesno', outcome_column: 'churned' } }, cases: { rows: [good, lacking] } });
    expect(r.status).toBe(200);
    const [a, b] = r.body.answers.q.cases;
    expect(typeof a.p).toBe('number');
    expect(b).toEqual({ entity_id: 'new_2', state: 'not_scoreable', not_scoreable: { missing_columns: ['support_tickets'] }, row: 1 });
    expect(r.body.billable_decisions).toBe(1);
  });
});

describe('ask errors', () => {
  it('unknown_case_id names the field cases.ids when no id of the call is known', async () => {
    const r = await ask({ questions: { q: { type: 'yesno', outcome_column: 'churned' } }, cases: { ids: ['somebody', 'nobody'] } });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('unknown_case_id');
    expect(r.body.field).toBe('cases.ids');
    expect(r.body.detail).toContain('nobody');
  });

  it('an unknown id beside known ones is a per-case not_scoreable {unknown_id: true}, unbilled; the others are answered (contract 1.1)', async () => {
    const r = await ask({ questions: { q: { type: 'yesno', outcome_column: 'churned' } }, cases: { ids: ['cust_0001', 'nobody'] } });
    expect(r.status).toBe(200);
    const [known, unknown] = r.body.answers.q.cases;
    expect(known.entity_id).toBe('cust_0001');
    expect(typeof known.p).toBe('number');
    expect(unknown).toEqual({ entity_id: 'nobody', state: 'not_scoreable', not_scoreable: { unknown_id: true } });
    expect(r.body.billable_decisions).toBe(1);
    expect(r.body.answers.q.verdicts[0].verdict.cases.map((c: any) => c.entity_id)).toEqual(['cust_0001']);
  });

  it('positive_values_required when the outcome is not two recognisable values, and positive_values fixes it', async () => {
    const three = rows.map((row, i) => ({ ...row, status: ['gone', 'active', 'paused'][i % 3] }));
    const body = {
      ...base,
      data: { rows: three },
      questions: { q: { type: 'yesno', outcome_column: 'status' } },
      cases: { ids: ['cust_0001'] },
    };
    const r = await svc.post('/v1/ask', body, key);
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('positive_values_required');
    expect(r.body.field).toBe('questions.q.positive_values');
    const fixed = await svc.post(
      '/v1/ask',
      { ...body, questions: { q: { type: 'yesno', outcome_column: 'status', positive_values: ['gone'] } } },
      key,
    );
    expect(fixed.status).toBe(200);
    expect(['refused', 'not_yet', 'answered']).toContain(fixed.body.answers.q.state);
  });

  it('person subjects need acknowledge_decision_support', async () => {
    const r = await ask({
      subject_kind: 'person',
      questions: { q: { type: 'yesno', outcome_column: 'churned' } },
      cases: { ids: ['cust_0001'] },
    });
    expect(r.status).toBe(422);
    expect(r.body.field).toBe('acknowledge_decision_support');
  });

  it('a 40-row table is not_yet with needs.labeled_rows', async () => {
    const r = await svc.post(
      '/v1/ask',
      {
        ...base,
        data: { rows: rows.slice(0, 40) },
        questions: { q: { type: 'yesno', outcome_column: 'churned' } },
        cases: { ids: ['cust_0001'] },
      },
      key,
    );
    const a = r.body.answers.q;
    expect(a.state).toBe('not_yet');
    expect(a.needs.labeled_rows).toBeGreaterThan(0);
    expect(a.have.labeled_rows).toBe(40);
    expect(r.body.billable_decisions).toBe(0);
  });

  it('refused and not_yet answers say what the record has: rows, positives, columns, predictive columns', async () => {
    // two columns of noise, one constant (dropped by the training part's guards), one of unique notes (an
    // identifier, never read as a predictor), the entity and the outcome
    const rng = new Prng(41);
    const noise = Array.from({ length: 600 }, (_, i) => ({
      id: `r${i}`,
      a: rng.int(0, 99),
      b: rng.choice(['x', 'y', 'z'] as const, [1, 1, 1]),
      flat: 1,
      note: `note ${i}`,
      y: rng.chance(0.3) ? 'yes' : 'no',
    }));
    const q = { q: { type: 'yesno', outcome_column: 'y', positive_values: ['yes'] } };
    const cases = { ids: ['r1'] };
    const refused = (
      await svc.post('/v1/ask', { data: { rows: noise }, entity_column: 'id', subject_kind: 'other', questions: q, cases }, key)
    ).body.answers.q;
    expect(refused.state).toBe('refused');
    const positives = noise.filter((r) => r.y === 'yes').length;
    expect(refused.have).toEqual({ labeled_rows: 600, positives, columns: 3, predictive_columns: 2 });
    const few = noise.slice(0, 30);
    const notYet = (
      await svc.post('/v1/ask', { data: { rows: few }, entity_column: 'id', subject_kind: 'other', questions: q, cases }, key)
    ).body.answers.q;
    expect(notYet.state).toBe('not_yet');
    expect(notYet.have).toEqual({
      labeled_rows: 30,
      positives: few.filter((r) => r.y === 'yes').length,
      columns: 3,
      predictive_columns: 2,
    });
  });

  it('an unknown entity_column names the field', async () => {
    const r = await ask({ entity_column: 'nope', questions: { q: { type: 'yesno', outcome_column: 'churned' } }, cases: { ids: ['x'] } });
    expect(r.status).toBe(422);
    expect(r.body.field).toBe('entity_column');
  });
});

describe('pending and idempotency', () => {
  it('a fit slower than the wait answers 202 and poll returns exactly the answer', async () => {
    const slow = await startTestService({ pendingWaitMs: 0 });
    try {
      const k = await slow.liveKey('slow');
      const body = {
        ...base,
        questions: { q: { type: 'yesno', outcome_column: 'churned' } },
        cases: { ids: ['cust_0001'] },
        idempotency_key: 'k-1',
      };
      const first = await slow.post('/v1/ask', body, k);
      expect(first.status).toBe(202);
      expect(first.body.status).toBe('pending');
      expect(first.body.task_id).toMatch(/^tk_[0-9a-z]{20,40}$/);
      // docs/reference/README.md#idempotency: a retry of a pending ask with the same key returns the same task, never a second fit
      const retry = await slow.post('/v1/ask', body, k);
      expect(retry.status).toBe(202);
      expect(retry.body.task_id).toBe(first.body.task_id);
      expect(retry.body).toEqual(first.body);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      let done: any;
      for (let i = 0; i < 200; i++) {
        const p = await slow.post('/v1/poll', { task_id: first.body.task_id }, k);
        if (p.status === 200) {
          done = p.body;
          break;
        }
        expect(p.status).toBe(202);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(done.status).toBe('done');
      expect(done.answers.q.state).toBe('answered');
      expect(done.fits_run).toBe(1);
      // the same key after completion replays the final answer; a different body is refused
      const replay = await slow.post('/v1/ask', body, k);
      expect(replay.status).toBe(200);
      expect(replay.body).toEqual(done);
      const reused = await slow.post('/v1/ask', { ...body, cases: { ids: ['cust_0002'] } }, k);
      expect(reused.status).toBe(422);
      expect(reused.body.code).toBe('idempotency_key_reused');
    } finally {
      await slow.close();
    }
  });
});
