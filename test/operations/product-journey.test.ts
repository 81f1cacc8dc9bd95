// The "ship a product" journey of contract 1.1 (docs/guides/ship-a-product.md; docs/reference/journeys.md#journeys, docs/reference/models.md#stored-answers, docs/reference/models.md#extend, docs/reference/models.md#delete, docs/reference/ask.md#namespace) over real
// HTTP on a real service: fit once per namespace, score 10,000 new rows by model_ref with no fit (two of them
// unreadable, unbilled), page through and export the answer, extend then delete the model, then 410, the old
// Verdict still valid; and the lifetimes of models and stored answers on a manual clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { churnRows } from '../helpers/churn.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { connectMcp } from '../mcp/helpers.ts';
import { csvRecords } from '../helpers/csv-records.ts';

const DAY = 86_400_000;
let svc: TestService;
let key: string;
let workspaceId: string;

const acmeRows = churnRows({ seed: 101, rows: 2000, idPrefix: 'a' });
const globexRows = churnRows({ seed: 202, rows: 2000, idPrefix: 'g', pattern: 'replaced' });
/** 10,000 new cases: no outcome; one with a plan the model never saw, one without support_tickets. */
const UNSEEN_AT = 1234;
const MISSING_AT = 8765;
const newRows = churnRows({ seed: 303, rows: 10_000, idPrefix: 'n' }).map((r, i) => {
  const { churned: _outcome, ...row } = r;
  if (i === UNSEEN_AT) row.plan = 'platinum';
  if (i === MISSING_AT) delete row.support_tickets;
  return row;
});

const fitAsk = (rows: unknown[], namespace: string, extra: Record<string, unknown> = {}) => ({
  data: { rows },
  entity_column: 'customer_id',
  subject_kind: 'org',
  namespace,
  questions: { churn: { type: 'yesno', outcome_column: 'churned' } },
  cases: { ids: [(rows[0] as { customer_id: string }).customer_id] },
  ...extra,
});
const byModel = (modelRef: string, namespace: string | undefined, rows: unknown[], extra: Record<string, unknown> = {}) => ({
  entity_column: 'customer_id',
  subject_kind: 'org',
  ...(namespace !== undefined ? { namespace } : {}),
  questions: { churn: { type: 'yesno', model_ref: modelRef } },
  cases: { rows },
  ...extra,
});

async function get(url: string): Promise<{ status: number; type: string | null; text: string }> {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

beforeAll(async () => {
  svc = await startTestService({}, { manualClock: true });
  ({ key, workspaceId } = await svc.liveCaller('product', true));
});
afterAll(() => svc?.close());

describe('the ship-a-product journey', () => {
  let acmeRef: string;
  let globexRef: string;
  let scored: any; // the 10,000-case answer by model_ref
  let verdict: { verdict: object; signature: object };

  it('fits once per namespace: each ask echoes its namespace and gives a model_ref with its expiry and columns', async () => {
    const acme = await svc.post('/v1/ask', fitAsk(acmeRows, 'acme', { model_ttl_days: 30 }), key);
    expect(acme.status, JSON.stringify(acme.body).slice(0, 300)).toBe(200);
    expect(acme.body.namespace).toBe('acme');
    expect(acme.body.fits_run).toBe(1);
    const a = acme.body.answers.churn;
    expect(a.state).toBe('answered');
    expect(a.decision).toBe('actionable');
    expect(Date.parse(a.model_expires_at)).toBe(svc.clock.now + 30 * DAY);
    expect(a.model_columns).toEqual(['tenure_months', 'monthly_charges', 'support_tickets', 'logins_last_30d', 'plan', 'seats']);
    expect(a.next.map((s: any) => s.operation)).toEqual(['svc_ask', 'svc_verify', 'svc_report_outcomes', 'svc_extend_model']);
    expect(a.next[0].with).toEqual({ namespace: 'acme', questions: { churn: { type: 'yesno', model_ref: a.model_ref } } });
    acmeRef = a.model_ref;

    const globex = await svc.post('/v1/ask', fitAsk(globexRows, 'globex'), key);
    expect(globex.status).toBe(200);
    expect(globex.body.fits_run).toBe(1);
    globexRef = globex.body.answers.churn.model_ref;
    expect(globexRef).not.toBe(acmeRef);
    expect(Date.parse(globex.body.answers.churn.model_expires_at)).toBe(svc.clock.now + 90 * DAY); // the default

    // Asked again: no fit, the same model
    const again = await svc.post('/v1/ask', fitAsk(acmeRows, 'acme', { model_ttl_days: 30 }), key);
    expect(again.body.fits_run).toBe(0);
    expect(again.body.answers.churn.model_ref).toBe(acmeRef);
  });

  it('scores 10,000 new rows by model_ref with no data and no fit; the unreadable two are not_scoreable and unbilled', async () => {
    const r = await svc.post('/v1/ask', byModel(acmeRef, 'acme', newRows), key);
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
    scored = r.body;
    expect(scored.fits_run).toBe(0);
    expect(scored.namespace).toBe('acme');
    expect(scored.record).toBeUndefined();
    const a = scored.answers.churn;
    expect(a.model_ref).toBe(acmeRef);
    expect(a.cache).toBe('hit');
    expect(a.cases).toHaveLength(10_000);
    expect(a.cases.map((c: any) => c.entity_id)).toEqual(newRows.map((row) => row.customer_id));
    expect(a.cases[UNSEEN_AT]).toEqual({
      entity_id: newRows[UNSEEN_AT].customer_id,
      state: 'not_scoreable',
      not_scoreable: { unseen_values: { plan: ['platinum'] } },
      row: UNSEEN_AT,
    });
    expect(a.cases[MISSING_AT]).toEqual({
      entity_id: newRows[MISSING_AT].customer_id,
      state: 'not_scoreable',
      not_scoreable: { missing_columns: ['support_tickets'] },
      row: MISSING_AT,
    });
    const answered = a.cases.filter((c: any) => c.state === undefined);
    expect(answered).toHaveLength(9998);
    for (const c of answered.slice(0, 50)) {
      expect(c.p).toBeGreaterThanOrEqual(0);
      expect(c.p_display).toMatch(/^(<1%|>99%|\d{1,2}%)$/);
    }
    expect(scored.billable_decisions).toBe(9998);
    // one Verdict, over the answered cases only
    expect(a.verdicts).toHaveLength(1);
    expect(a.verdicts[0].verdict.model_ref).toBe(acmeRef);
    expect(a.verdicts[0].verdict.cases).toHaveLength(9998);
    verdict = { verdict: a.verdicts[0].verdict, signature: a.verdicts[0].signature };
    expect((await svc.post('/v1/verify', verdict)).body).toEqual({ status: 'valid' });
  });

  it('gives the same chances, reasons and levels as an ask fitted on the record would for the same rows', async () => {
    const some = newRows.slice(0, 40);
    const fitted = await svc.post('/v1/ask', { ...fitAsk(acmeRows, 'acme'), cases: { rows: some } }, key);
    const viaRef = await svc.post('/v1/ask', byModel(acmeRef, 'acme', some), key);
    expect(viaRef.body.answers.churn.cases).toEqual(fitted.body.answers.churn.cases);
    expect(viaRef.body.billable_decisions).toBe(fitted.body.billable_decisions);
    // the Verdict of a model_ref answer names the record the model was fitted on
    expect(viaRef.body.answers.churn.verdicts[0].verdict.record_hash).toBe(fitted.body.record.content_hash);
    const score = await svc.post(
      '/v1/ask',
      {
        ...byModel(acmeRef, 'acme', some),
        questions: { s: { type: 'score', model_ref: acmeRef }, r: { type: 'rank', model_ref: acmeRef, top_k: 5 } },
      },
      key,
    );
    expect(score.status).toBe(200);
    expect(score.body.answers.s.cases.map((c: any) => c.p)).toEqual(fitted.body.answers.churn.cases.map((c: any) => c.p));
    expect(score.body.answers.r.ranked).toHaveLength(5);
    expect(score.body.answers.r.ranked_total).toBe(40);
  });

  it('meters usage per namespace; the workspace total is their sum', async () => {
    await svc.services.usage.flush();
    const { store } = svc.services;
    const acme = await store.getMonthlyUsage(workspaceId, svc.clock.now, 'acme');
    const globex = await store.getMonthlyUsage(workspaceId, svc.clock.now, 'globex');
    const own = await store.getMonthlyUsage(workspaceId, svc.clock.now, '');
    const all = await store.getMonthlyUsage(workspaceId, svc.clock.now);
    expect(acme.fits).toBe(1);
    expect(globex.fits).toBe(1);
    expect(acme.decisions).toBeGreaterThanOrEqual(9998 + 40);
    expect(own).toMatchObject({ fits: 0, decisions: 0 });
    expect(all.fits).toBe(acme.fits + globex.fits);
    expect(all.decisions).toBe(acme.decisions + globex.decisions);
  });

  it('pages the 10,000-case answer over MCP: page one, then svc_page to the last page, every case once in order', async () => {
    const mcp = await connectMcp(svc.url, { key });
    try {
      const first: any = await mcp.callTool({ name: 'svc_ask', arguments: byModel(acmeRef, 'acme', newRows) });
      expect(first.isError).toBeFalsy();
      const one = first.structuredContent;
      expect(JSON.stringify(one).length).toBeLessThanOrEqual(60_000);
      expect(one.answers.churn.verdicts).toBeUndefined();
      expect(one.answers.churn.verdicts_withheld).toEqual({ count: 1, reason: 'too_large_for_one_response' });
      expect(one.answers.churn.page).toMatchObject({ offset: 0, total: 10_000 });
      expect(one.page.next_cursor).toEqual(expect.any(String));
      const cases = [...one.answers.churn.cases];
      let cursor = one.page.next_cursor;
      let pages = 1;
      // full pages for a while, then compact ones: a cursor is a position, not a format
      while (cursor) {
        const format = pages < 3 ? 'full' : 'compact';
        const next: any = await mcp.callTool({ name: 'svc_page', arguments: { cursor, response_format: format } });
        expect(next.isError, JSON.stringify(next.structuredContent).slice(0, 300)).toBeFalsy();
        const page = next.structuredContent;
        expect(JSON.stringify(page).length).toBeLessThanOrEqual(60_000);
        expect(page.status).toBe('done');
        expect(page.answers.churn).toMatchObject({ type: 'yesno', state: 'answered', model_ref: acmeRef });
        expect(page.answers.churn.page.offset).toBe(cases.length);
        expect(page.answers.churn.page.returned).toBe(page.answers.churn.cases.length);
        if (format === 'compact') for (const c of page.answers.churn.cases) expect(c.reasons).toBeUndefined();
        cases.push(...page.answers.churn.cases);
        cursor = page.page.next_cursor;
        pages++;
      }
      expect(pages).toBeGreaterThan(3);
      expect(cases.map((c: any) => c.entity_id)).toEqual(scored.answers.churn.cases.map((c: any) => c.entity_id));
      expect(cases.map((c: any) => c.p)).toEqual(scored.answers.churn.cases.map((c: any) => c.p));
      expect(cases[UNSEEN_AT].state).toBe('not_scoreable');

      // answer_url: the whole answer as JSON, Verdicts included, no key
      const whole = await get(one.page.answer_url);
      expect(whole.status).toBe(200);
      expect(whole.type).toMatch(/^application\/json/);
      const body = JSON.parse(whole.text);
      expect(body.answers.churn.cases).toEqual(scored.answers.churn.cases);
      const v = body.answers.churn.verdicts[0];
      expect((await svc.post('/v1/verify', { verdict: v.verdict, signature: v.signature })).body).toEqual({ status: 'valid' });
    } finally {
      await mcp.close();
    }
  });

  it('exports the 10,000-case answer as CSV, a row per case, the unreadable ones with why', async () => {
    const r = await svc.post('/v1/ask', byModel(acmeRef, 'acme', newRows, { export: 'csv' }), key);
    expect(r.status).toBe(200);
    expect(r.body.export).toMatchObject({ format: 'csv', expires_at: new Date(svc.clock.now + DAY).toISOString() });
    const csv = await get(r.body.export.results_url);
    expect(csv.status).toBe(200);
    expect(csv.type).toMatch(/^text\/csv/);
    const records = csvRecords(csv.text);
    expect(records[0]).toEqual([
      'question',
      'type',
      'entity_id',
      'state',
      'p',
      'p_display',
      'level',
      'choice',
      'position',
      'reason_1',
      'reason_2',
      'reason_3',
      'reason_4',
      'not_scoreable',
    ]);
    expect(records).toHaveLength(10_001);
    const cases = r.body.answers.churn.cases;
    for (const i of [0, 1, 4999, 9999]) {
      const row = records[i + 1];
      expect(row.slice(0, 6)).toEqual(['churn', 'yesno', cases[i].entity_id, 'answered', String(cases[i].p), cases[i].p_display]);
      expect(row[9]).toBe(
        `${cases[i].reasons[0].range.text} (${cases[i].reasons[0].likelihood_direction}, ${cases[i].reasons[0].strength})`,
      );
    }
    expect(records[UNSEEN_AT + 1].slice(2, 4)).toEqual([newRows[UNSEEN_AT].customer_id, 'not_scoreable']);
    expect(JSON.parse(records[UNSEEN_AT + 1][13])).toEqual({ unseen_values: { plan: ['platinum'] } });
  });

  it('extends the model, deletes it (twice, the same reply), then the ref answers 410 and the old Verdict is still valid', async () => {
    // the model lives 90 days by now (a later ask in acme kept it the default 90): 120 moves it on
    const extended = await svc.post('/v1/extend-model', { model_ref: acmeRef, namespace: 'acme', days: 120 }, key);
    expect(extended.status).toBe(200);
    expect(extended.body).toEqual({ model_ref: acmeRef, model_expires_at: new Date(svc.clock.now + 120 * DAY).toISOString() });
    const scoredAfter = await svc.post('/v1/ask', byModel(acmeRef, 'acme', newRows.slice(0, 3)), key);
    expect(scoredAfter.body.answers.churn.model_expires_at).toBe(extended.body.model_expires_at);
    // extending never shortens: 10 days on a model that lives 120 more keeps the 120, and says so
    const shorter = await svc.post('/v1/extend-model', { model_ref: acmeRef, namespace: 'acme', days: 10 }, key);
    expect(shorter.status).toBe(200);
    expect(shorter.body.model_expires_at).toBe(extended.body.model_expires_at);
    expect(shorter.body.note).toMatch(/never shortens/);

    for (let i = 0; i < 2; i++) {
      const del = await svc.post('/v1/delete-model', { model_ref: acmeRef, namespace: 'acme' }, key);
      expect(del.status).toBe(200);
      expect(del.body).toEqual({ model_ref: acmeRef, deleted: true });
    }
    const gone = await svc.post('/v1/ask', byModel(acmeRef, 'acme', newRows.slice(0, 3)), key);
    expect(gone.status).toBe(410);
    expect(gone.body).toMatchObject({ code: 'model_deleted', field: 'questions.churn.model_ref' });
    for (const [path, body] of [
      ['/v1/extend-model', { model_ref: acmeRef, namespace: 'acme', days: 10 }],
      [
        '/v1/report-outcomes',
        { model_ref: acmeRef, namespace: 'acme', outcomes: [{ entity_id: 'a00000', outcome: 1, observed_at: '2026-01-01' }] },
      ],
      ['/v1/evidence', { model_ref: acmeRef, namespace: 'acme' }],
      ['/v1/drift', { model_ref: acmeRef, namespace: 'acme' }],
      ['/v1/export-model', { model_ref: acmeRef, namespace: 'acme' }],
    ] as const) {
      const r = await svc.post(path, body, key);
      expect(r.status, path).toBe(410);
      expect(r.body.code, path).toBe('model_deleted');
    }
    // Its bytes went with it (no other namespace or workspace held the same fit)
    expect(await svc.services.store.getModelByRef(workspaceId, acmeRef)).toBeNull();
    expect((await svc.post('/v1/verify', verdict)).body).toEqual({ status: 'valid' });
  });

  it('asking on the record again after a delete fits a new (billed) model under the same ref, which answers again', async () => {
    const again = await svc.post('/v1/ask', fitAsk(acmeRows, 'acme'), key);
    expect(again.status).toBe(200);
    expect(again.body.fits_run).toBe(1);
    expect(again.body.answers.churn.model_ref).toBe(acmeRef);
    const r = await svc.post('/v1/ask', byModel(acmeRef, 'acme', newRows.slice(0, 3)), key);
    expect(r.status).toBe(200);
  });

  it('expires models and stored answers on the clock: 410 model_expired (no renewal), 410 answer_expired for links and cursors', async () => {
    const mcp = await connectMcp(svc.url, { key });
    let cursor: string;
    try {
      const first: any = await mcp.callTool({ name: 'svc_ask', arguments: byModel(globexRef, 'globex', newRows.slice(0, 500)) });
      cursor = first.structuredContent.page.next_cursor;
    } finally {
      await mcp.close();
    }
    const exported = await svc.post('/v1/ask', byModel(globexRef, 'globex', newRows.slice(0, 10), { export: 'csv' }), key);
    const link = exported.body.export.results_url;
    expect((await get(link)).status).toBe(200);

    svc.clock.now += DAY + 1;
    const late = await get(link);
    expect(late.status).toBe(410);
    expect(JSON.parse(late.text)).toMatchObject({ code: 'answer_expired' });
    const page = await svc.post('/v1/page', { cursor }, key);
    expect(page.status).toBe(410);
    expect(page.body).toMatchObject({ code: 'answer_expired', field: 'cursor' });

    // globex's model: the default 90 days from its fit
    svc.clock.now += 90 * DAY;
    const expired = await svc.post('/v1/ask', byModel(globexRef, 'globex', newRows.slice(0, 3)), key);
    expect(expired.status).toBe(410);
    expect(expired.body).toMatchObject({ code: 'model_expired', field: 'questions.churn.model_ref' });
    const renew = await svc.post('/v1/extend-model', { model_ref: globexRef, namespace: 'globex', days: 30 }, key);
    expect(renew.status).toBe(410);
    expect(renew.body.code).toBe('model_expired');
    // outcomes arrive after a model served: an expired model still takes them
    const report = await svc.post(
      '/v1/report-outcomes',
      { model_ref: globexRef, namespace: 'globex', outcomes: [{ entity_id: 'n00001', outcome: 0, observed_at: '2026-02-01' }] },
      key,
    );
    expect(report.status).toBe(200);
    // asking on the record again gives the model a new life
    const refit = await svc.post('/v1/ask', fitAsk(globexRows, 'globex', { model_ttl_days: 7 }), key);
    expect(refit.body.answers.churn.model_ref).toBe(globexRef);
    expect(Date.parse(refit.body.answers.churn.model_expires_at)).toBe(svc.clock.now + 7 * DAY);
    expect((await svc.post('/v1/ask', byModel(globexRef, 'globex', newRows.slice(0, 3)), key)).status).toBe(200);
  });
});
