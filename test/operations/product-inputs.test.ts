// Every bad input of the contract 1.1 fields (docs/reference/models.md#profile, docs/reference/models.md#stored-answers, docs/reference/models.md#extend, docs/reference/models.md#delete, docs/reference/ask.md#namespace, docs/reference/ask.md#request, docs/reference/ask.md#response-format): a 4xx Problem that
// names the field at fault, never a 5xx. Table-driven over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { churnRows } from '../helpers/churn.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

let svc: TestService;
let key: string;
let ref: string;
const rows = churnRows({ seed: 21, rows: 1200 });
const newCase = (() => {
  const { churned: _o, ...r } = churnRows({ seed: 22, rows: 1, idPrefix: 'n' })[0];
  return r;
})();
const fitBody = {
  data: { rows },
  entity_column: 'customer_id',
  subject_kind: 'org',
  questions: { q: { type: 'yesno', outcome_column: 'churned' } },
  cases: { ids: ['c00000'] },
};

beforeAll(async () => {
  svc = await startTestService();
  key = await svc.liveKey('inputs', true);
  const r = await svc.post('/v1/ask', fitBody, key);
  ref = r.body.answers.q.model_ref;
});
afterAll(() => svc?.close());

const byRef = (q: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  entity_column: 'customer_id',
  subject_kind: 'org',
  questions: { q: { type: 'yesno', model_ref: ref, ...q } },
  cases: { rows: [newCase] },
  ...extra,
});

interface Bad {
  name: string;
  path: string;
  body: () => unknown;
  field: string;
  status?: number;
  code?: string;
}

const badNamespaces = ['Acme', '', '-acme', 'a'.repeat(65), 'ac me', 7];

const cases: Bad[] = [
  // svc_ask (docs/reference/ask.md#namespace, docs/reference/ask.md#request, docs/reference/ask.md#response-format)
  ...badNamespaces.map((ns) => ({
    name: `ask namespace ${JSON.stringify(ns)}`,
    path: '/v1/ask',
    body: () => ({ ...fitBody, namespace: ns }),
    field: 'namespace',
  })),
  ...[0, 366, 1.5, '30', null].map((d) => ({
    name: `ask model_ttl_days ${JSON.stringify(d)}`,
    path: '/v1/ask',
    body: () => ({ ...fitBody, model_ttl_days: d }),
    field: 'model_ttl_days',
  })),
  { name: 'ask response_format short', path: '/v1/ask', body: () => ({ ...fitBody, response_format: 'short' }), field: 'response_format' },
  { name: 'ask export xlsx', path: '/v1/ask', body: () => ({ ...fitBody, export: 'xlsx' }), field: 'export' },
  { name: 'a malformed model_ref', path: '/v1/ask', body: () => byRef({ model_ref: 'mr1_xyz' }), field: 'questions.q.model_ref' },
  {
    name: 'model_ref on a choice question',
    path: '/v1/ask',
    body: () => ({
      ...fitBody,
      questions: {
        q: {
          type: 'choice',
          outcome_column: 'churned',
          outcome_is_desirable: false,
          option_column: 'plan',
          options: ['basic', 'pro'],
          model_ref: ref,
        },
      },
    }),
    field: 'questions.q.model_ref',
  },
  { name: 'model_ref with refit_of', path: '/v1/ask', body: () => byRef({ refit_of: ref }), field: 'questions.q.refit_of' },
  {
    name: 'neither outcome_column nor model_ref',
    path: '/v1/ask',
    body: () => ({ ...fitBody, questions: { q: { type: 'yesno' } } }),
    field: 'questions.q.outcome_column',
  },
  { name: 'no data with cases by id', path: '/v1/ask', body: () => byRef({}, { cases: { ids: ['c00000'] } }), field: 'data' },
  {
    name: 'no data for a fitted question',
    path: '/v1/ask',
    body: () => ({ ...byRef(), questions: { q: { type: 'yesno', outcome_column: 'churned' } } }),
    field: 'data',
  },
  {
    name: 'no data for a whole-record rank',
    path: '/v1/ask',
    body: () => ({ ...byRef(), questions: { q: { type: 'rank', model_ref: ref } }, cases: undefined }),
    field: 'data',
  },
  {
    name: 'another outcome_column than the model’s',
    path: '/v1/ask',
    body: () => byRef({ outcome_column: 'plan' }),
    field: 'questions.q.outcome_column',
  },
  {
    name: 'other positive_values than the model’s',
    path: '/v1/ask',
    body: () => byRef({ positive_values: ['no'] }),
    field: 'questions.q.positive_values',
  },
  {
    name: 'an outcome_is_desirable the model was not fitted with',
    path: '/v1/ask',
    body: () => byRef({ outcome_is_desirable: true }),
    field: 'questions.q.outcome_is_desirable',
  },
  {
    name: 'a model_ref this workspace never got',
    path: '/v1/ask',
    body: () => byRef({ model_ref: `mr1_${'d'.repeat(32)}` }),
    field: 'questions.q.model_ref',
    status: 404,
    code: 'model_ref_missing',
  },
  // svc_poll (docs/reference/tasks.md#pending)
  {
    name: 'poll response_format concise',
    path: '/v1/poll',
    body: () => ({ task_id: `tk_${'a'.repeat(26)}`, response_format: 'concise' }),
    field: 'response_format',
  },
  // svc_page (docs/reference/models.md#stored-answers)
  { name: 'page cursor too short', path: '/v1/page', body: () => ({ cursor: 'abc' }), field: 'cursor' },
  { name: 'page cursor too long', path: '/v1/page', body: () => ({ cursor: 'a'.repeat(2049) }), field: 'cursor' },
  { name: 'page cursor missing', path: '/v1/page', body: () => ({}), field: 'cursor' },
  { name: 'page cursor not a string', path: '/v1/page', body: () => ({ cursor: 12345678901 }), field: 'cursor' },
  {
    name: 'page cursor not one of ours',
    path: '/v1/page',
    body: () => ({ cursor: 'x'.repeat(60) }),
    field: 'cursor',
    status: 404,
    code: 'unknown_link',
  },
  {
    name: 'page response_format concise',
    path: '/v1/page',
    body: () => ({ cursor: 'x'.repeat(60), response_format: 'concise' }),
    field: 'response_format',
  },
  { name: 'page with an extra property', path: '/v1/page', body: () => ({ cursor: 'x'.repeat(60), offset: 3 }), field: 'offset' },
  // svc_extend_model (docs/reference/models.md#extend)
  ...[0, 366, 2.5, '10', undefined].map((d) => ({
    name: `extend days ${JSON.stringify(d)}`,
    path: '/v1/extend-model',
    body: () => ({ model_ref: ref, days: d }),
    field: 'days',
  })),
  { name: 'extend model_ref malformed', path: '/v1/extend-model', body: () => ({ model_ref: 'mr1_', days: 3 }), field: 'model_ref' },
  ...badNamespaces.map((ns) => ({
    name: `extend namespace ${JSON.stringify(ns)}`,
    path: '/v1/extend-model',
    body: () => ({ model_ref: ref, days: 3, namespace: ns }),
    field: 'namespace',
  })),
  // svc_delete_model (docs/reference/models.md#delete)
  { name: 'delete without model_ref', path: '/v1/delete-model', body: () => ({}), field: 'model_ref' },
  { name: 'delete model_ref malformed', path: '/v1/delete-model', body: () => ({ model_ref: 'x' }), field: 'model_ref' },
  { name: 'delete with an extra property', path: '/v1/delete-model', body: () => ({ model_ref: ref, force: true }), field: 'force' },
  ...badNamespaces.map((ns) => ({
    name: `delete namespace ${JSON.stringify(ns)}`,
    path: '/v1/delete-model',
    body: () => ({ model_ref: ref, namespace: ns }),
    field: 'namespace',
  })),
  // svc_profile (docs/reference/models.md#profile)
  ...badNamespaces.map((ns) => ({
    name: `profile namespace ${JSON.stringify(ns)}`,
    path: '/v1/profile',
    body: () => ({ namespace: ns }),
    field: 'namespace',
  })),
  { name: 'profile words.case too long', path: '/v1/profile', body: () => ({ words: { case: 'c'.repeat(41) } }), field: 'words.case' },
  { name: 'profile words.case empty', path: '/v1/profile', body: () => ({ words: { case: '' } }), field: 'words.case' },
  {
    name: 'profile words.outcome too long',
    path: '/v1/profile',
    body: () => ({ words: { outcome: 'o'.repeat(81) } }),
    field: 'words.outcome',
  },
  {
    name: 'profile words.columns phrase too long',
    path: '/v1/profile',
    body: () => ({ words: { columns: { plan: 'p'.repeat(81) } } }),
    field: 'words.columns.plan',
  },
  {
    name: 'profile words.columns phrase empty',
    path: '/v1/profile',
    body: () => ({ words: { columns: { plan: '' } } }),
    field: 'words.columns.plan',
  },
  {
    name: 'profile words.columns over 200',
    path: '/v1/profile',
    body: () => ({ words: { columns: Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`c${i}`, 'x'])) } }),
    field: 'words.columns',
  },
  { name: 'profile words with an unknown key', path: '/v1/profile', body: () => ({ words: { noun: 'x' } }), field: 'words.noun' },
  {
    name: 'profile exclude over 200',
    path: '/v1/profile',
    body: () => ({ exclude: Array.from({ length: 201 }, (_, i) => `c${i}`) }),
    field: 'exclude',
  },
  { name: 'profile exclude item empty', path: '/v1/profile', body: () => ({ exclude: [''] }), field: 'exclude.0' },
  { name: 'profile fixed item too long', path: '/v1/profile', body: () => ({ fixed: ['f'.repeat(201)] }), field: 'fixed.0' },
  { name: 'profile fixed not an array', path: '/v1/profile', body: () => ({ fixed: 'plan' }), field: 'fixed' },
  { name: 'profile display percent', path: '/v1/profile', body: () => ({ display: 'percent' }), field: 'display' },
  {
    name: 'profile a column both excluded and fixed',
    path: '/v1/profile',
    body: () => ({ exclude: ['plan'], fixed: ['plan'] }),
    field: 'fixed',
  },
  // namespace on the 1.0 operations that take one now (docs/reference/ask.md#namespace)
  ...['/v1/report-outcomes', '/v1/drift', '/v1/evidence', '/v1/attest', '/v1/export-model'].map((path) => ({
    name: `${path} namespace`,
    path,
    body: () => ({
      model_ref: ref,
      namespace: 'Not Valid',
      ...(path === '/v1/report-outcomes' ? { outcomes: [{ entity_id: 'c00000', outcome: 1, observed_at: '2026-01-01' }] } : {}),
      ...(path === '/v1/attest' ? { entity_id: 'c00000', lever_token: 'x', post_value: 1, acted_at: '2026-01-01' } : {}),
    }),
    field: 'namespace',
  })),
];

describe('bad inputs of the contract 1.1 fields', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s: a Problem naming the field', async (_name, c) => {
    const r = await svc.post(c.path, c.body(), key);
    expect(r.status, JSON.stringify(r.body)).toBe(c.status ?? 422);
    expect(r.body.code).toBe(c.code ?? 'invalid_request');
    expect(r.body.field).toBe(c.field);
    expect(r.body.detail).toContain(c.field.split('.')[0]);
    expect(typeof r.body.remedy).toBe('string');
  });

  it('GET /v1/exports/{token}: an unknown, altered or made-up link is 404 unknown_link', async () => {
    const exported = await svc.post('/v1/ask', { ...fitBody, export: 'csv' }, key);
    const url: string = exported.body.export.results_url;
    expect((await fetch(url)).status).toBe(200);
    const token = url.slice(url.lastIndexOf('/') + 1);
    const altered = token.slice(0, 10) + (token[10] === 'A' ? 'B' : 'A') + token.slice(11);
    for (const t of [altered, 'nothing', `${'a'.repeat(40)}.${'b'.repeat(43)}`, '%00']) {
      const res = await fetch(`${svc.url}/v1/exports/${t}`);
      expect(res.status, t).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect((await res.json()).code).toBe('unknown_link');
    }
  });
});
