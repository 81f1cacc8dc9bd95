// A category the fit never saw (docs/decisions/0067-unseen-categories.md): where the column's term has a learned
// level for rare values (its "other" bin held training rows), the case is scored in that level and the reason's
// range says `unseen`; where it has none, the case stays not_scoreable naming the value. The engine, the
// service (REST, by model_ref) and the browser page's scorer (host/web/core/score.ts, run here in Node on the
// exported model) agree on which cases are scored and on every p.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { modelFromJson, type ModelJson } from '../../host/engine/model-json.ts';
import { scoreRows } from '../../host/web/core/score.ts';
import { scoreCases, unreadableRows } from '../../host/engine/scorer.ts';
import { rowsToTable } from '../../host/table/rows.ts';
import { loadEngineFrom } from '../../host/web/core/engine-load.ts';
import type { EngineModule } from '../../host/engine/wasm.ts';
import type { Model } from '../../host/engine/model.ts';

type Obj = Record<string, any>;

/**
 * 3,000 accounts: `city` is one of four common cities or one of 400 small towns (each seen a few times, so all
 * of them share the column's "other" bin), and accounts in small towns churn far more; `plan` has three common
 * levels only.
 */
function accounts(): Obj[] {
  let s = 7;
  const next = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
  const rows: Obj[] = [];
  for (let i = 0; i < 3000; i++) {
    const town = next() < 0.3;
    const city = town ? `town_${Math.floor(next() * 400)}` : ['paris', 'lyon', 'nantes', 'lille'][Math.floor(next() * 4)];
    const plan = ['basic', 'pro', 'team'][Math.floor(next() * 3)];
    const tenure = Math.floor(next() * 60);
    const z = -1.5 + (town ? 2.2 : 0) - tenure / 40 + (plan === 'basic' ? 0.4 : 0);
    rows.push({ account_id: `a${i}`, city, plan, tenure, churned: next() < 1 / (1 + Math.exp(-z)) ? 'yes' : 'no' });
  }
  return rows;
}

const ROWS = accounts();
const SEEN_TOWN = ROWS.find((r) => r.city.startsWith('town_'))!.city as string;
const CASES = [
  { account_id: 'n1', city: 'atlantis', plan: 'pro', tenure: 3 }, // a city no account had: scored in the small towns' level
  { account_id: 'n2', city: 'paris', plan: 'pro', tenure: 3 },
  { account_id: 'n3', city: 'paris', plan: 'platinum', tenure: 3 }, // a plan no account had, and plan has no such level
  { account_id: 'n4', city: SEEN_TOWN, plan: 'team', tenure: 30 }, // a small town the record had
];

let svc: TestService;
let key: string;
let answer: Obj;
let model: Model;
let engine: EngineModule;

beforeAll(async () => {
  svc = await startTestService({ pendingWaitMs: 120_000 });
  key = await svc.liveKey('unseen');
  const rows = ROWS;
  const fit = await svc.post(
    '/v1/ask',
    {
      data: { rows },
      entity_column: 'account_id',
      subject_kind: 'org',
      questions: { q: { type: 'yesno', outcome_column: 'churned' } },
      cases: { ids: ['a0'] },
    },
    key,
  );
  expect(fit.status).toBe(200);
  expect(fit.body.answers.q.state).toBe('answered');
  const ref = fit.body.answers.q.model_ref;
  const r = await svc.post(
    '/v1/ask',
    { entity_column: 'account_id', subject_kind: 'org', questions: { q: { type: 'yesno', model_ref: ref } }, cases: { rows: CASES } },
    key,
  );
  expect(r.status).toBe(200);
  answer = r.body.answers.q;
  const e = await svc.post('/v1/export-model', { model_ref: ref }, key);
  expect(e.status).toBe(200);
  model = modelFromJson(e.body.model as ModelJson);
  engine = await loadEngineFrom(svc.url + '/engine.wasm');
}, 120_000);
afterAll(() => svc?.close());

describe('a category the fit never saw', () => {
  it('the model knows which columns have a learned level for rare values', () => {
    const city = model.columns.findIndex((c) => c.name === 'city');
    const plan = model.columns.findIndex((c) => c.name === 'plan');
    expect(model.scoresUnseen(city)).toBe(true);
    expect(model.scoresUnseen(plan)).toBe(false);
    expect(model.counts(city)[1]).toBeGreaterThan(0);
    expect(model.counts(plan)[1]).toBe(0);
  });

  it('is scored where the column has that level, its reason range saying unseen; not_scoreable where not', () => {
    const [n1, n2, n3, n4] = answer.cases;
    expect(n1.state).toBeUndefined();
    expect(n1.p).toBeGreaterThan(n2.p); // the small towns' level: far more churn than Paris
    const reason = n1.reasons.find((x: Obj) => x.feature_label === 'city');
    expect(reason).toEqual({
      association_not_causal: true,
      feature_label: 'city',
      likelihood_direction: 'higher',
      range: { other: true, text: 'city is a value the fit never saw, scored as its rare values', unseen: true },
      strength: expect.stringMatching(/^(strong|moderate)$/),
      value: 'atlantis',
    });
    // a small town the record had is the same level, described as such (no `unseen`)
    expect(n4.state).toBeUndefined();
    const known = n4.reasons.find((x: Obj) => x.feature_label === 'city');
    expect(known.range).toEqual({ other: true, text: 'city is a rare or unseen value' });
    expect(n3).toEqual({ entity_id: 'n3', state: 'not_scoreable', not_scoreable: { unseen_values: { plan: ['platinum'] } }, row: 2 });
  });

  it("scores the same cases with the same p in the engine and through the page's scorer", () => {
    const table = rowsToTable(CASES, 'cases.rows');
    expect([...unreadableRows(model, table).keys()]).toEqual([2]);
    const page = scoreRows(engine, model, table, 'account_id');
    expect(page.map((s) => s.p)).toEqual(answer.cases.map((c: Obj) => c.p ?? null));
    expect(page[2].not_scoreable).toEqual(answer.cases[2].not_scoreable);
    expect(page[0].reasons).toEqual(answer.cases[0].reasons);
    // the engine's unrounded chance of the unseen city is the small towns' chance for the same values
    const exact = scoreCases(engine, model, rowsToTable([CASES[0], { ...CASES[0], city: SEEN_TOWN }], 'cases.rows'));
    expect(Object.is(exact.p[0], exact.p[1])).toBe(true);
  });
});
