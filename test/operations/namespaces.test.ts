// Isolation of contract 1.1 (docs/reference/ask.md#namespace, decision on 4.4): a model fitted in a namespace serves only that
// namespace; another namespace's or workspace's model_ref is 404 model_ref_missing exactly like one that
// never existed, on every operation that takes one; profiles, usage and stored answers are kept apart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { churnRows } from '../helpers/churn.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { connectMcp } from '../mcp/helpers.ts';

let svc: TestService;
let key: string; // workspace A, can report outcomes
let otherKey: string; // workspace B, can report outcomes
const rows = churnRows({ seed: 11, rows: 1500 });
const cases = churnRows({ seed: 12, rows: 5, idPrefix: 'n' }).map(({ churned: _o, ...r }) => r);
const NEVER = `mr1_${'e'.repeat(32)}`;

const fit = (namespace: string | undefined, extra: Record<string, unknown> = {}) => ({
  data: { rows },
  entity_column: 'customer_id',
  subject_kind: 'org',
  ...(namespace !== undefined ? { namespace } : {}),
  questions: { q: { type: 'yesno', outcome_column: 'churned', outcome_is_desirable: false } },
  cases: { ids: ['c00000'] },
  ...extra,
});
const score = (modelRef: string, namespace?: string) => ({
  entity_column: 'customer_id',
  subject_kind: 'org',
  ...(namespace !== undefined ? { namespace } : {}),
  questions: { q: { type: 'yesno', model_ref: modelRef } },
  cases: { rows: cases },
});

let own: string; // the workspace's own model (no namespace)
let acme: string;
let globex: string;
let leverToken: string;
let leverCase: string;

beforeAll(async () => {
  svc = await startTestService();
  key = await svc.liveKey('ns-a', true);
  otherKey = await svc.liveKey('ns-b', true);
  const a = await svc.post('/v1/ask', fit(undefined), key);
  own = a.body.answers.q.model_ref;
  const ids = Array.from({ length: 40 }, (_, i) => `c${String(i).padStart(5, '0')}`);
  const b = await svc.post('/v1/ask', fit('acme', { cases: { ids } }), key);
  acme = b.body.answers.q.model_ref;
  const withLever = b.body.answers.q.cases.find((c: any) => c.levers?.length > 0);
  leverCase = withLever.entity_id;
  leverToken = withLever.levers[0].lever_token;
  const c = await svc.post('/v1/ask', fit('globex'), key);
  globex = c.body.answers.q.model_ref;
});
afterAll(() => svc?.close());

describe('one record in three namespaces', () => {
  it('runs one fit and gives each namespace its own model_ref; the workspace keeps the 1.0 ref', async () => {
    expect(new Set([own, acme, globex]).size).toBe(3);
    const again = await svc.post('/v1/ask', fit('acme'), key);
    expect(again.body.fits_run).toBe(0);
    expect(again.body.answers.q.model_ref).toBe(acme);
    // the same record in another workspace without a namespace: the same (1.0) ref as this one's own; the
    // computation is shared, but that workspace's first ask reads as its own fit (docs/guides/overload.md: no signal of
    // another workspace's asks), and its next one as a hit
    const b = await svc.post('/v1/ask', fit(undefined), otherKey);
    expect(b.body.answers.q.model_ref).toBe(own);
    expect(b.body.fits_run).toBe(1);
    expect((await svc.post('/v1/ask', fit(undefined), otherKey)).body.fits_run).toBe(0);
  });

  it('scores by model_ref only in its own namespace', async () => {
    expect((await svc.post('/v1/ask', score(acme, 'acme'), key)).status).toBe(200);
    expect((await svc.post('/v1/ask', score(own), key)).status).toBe(200);
    for (const [ref, ns] of [
      [acme, 'globex'],
      [acme, undefined],
      [own, 'acme'],
      [globex, 'acme'],
    ] as const) {
      const r = await svc.post('/v1/ask', score(ref, ns), key);
      expect(r.status, `${ref} in ${ns}`).toBe(404);
      expect(r.body).toMatchObject({ code: 'model_ref_missing', field: 'questions.q.model_ref' });
    }
  });

  it('answers a ref of another namespace or workspace word for word as one that never existed', async () => {
    const elsewhere = await svc.post('/v1/ask', score(acme, 'globex'), key);
    const never = await svc.post('/v1/ask', score(NEVER, 'globex'), key);
    expect(elsewhere.body.detail.replace(acme, 'REF')).toBe(never.body.detail.replace(NEVER, 'REF'));
    const otherWorkspace = await svc.post('/v1/ask', score(acme, 'acme'), otherKey);
    const neverThere = await svc.post('/v1/ask', score(NEVER, 'acme'), otherKey);
    expect(otherWorkspace.status).toBe(404);
    expect(otherWorkspace.body.code).toBe('model_ref_missing');
    expect(otherWorkspace.body.detail.replace(acme, 'REF')).toBe(neverThere.body.detail.replace(NEVER, 'REF'));
  });

  it('refuses another namespace’s model on every operation that takes a model_ref', async () => {
    const bodies: Array<[string, (ref: string, ns?: string) => Record<string, unknown>]> = [
      [
        '/v1/report-outcomes',
        (ref, ns) => ({ model_ref: ref, namespace: ns, outcomes: [{ entity_id: 'c00000', outcome: 1, observed_at: '2026-01-01' }] }),
      ],
      ['/v1/drift', (ref, ns) => ({ model_ref: ref, namespace: ns })],
      ['/v1/evidence', (ref, ns) => ({ model_ref: ref, namespace: ns })],
      ['/v1/export-model', (ref, ns) => ({ model_ref: ref, namespace: ns })],
      ['/v1/extend-model', (ref, ns) => ({ model_ref: ref, namespace: ns, days: 5 })],
      ['/v1/delete-model', (ref, ns) => ({ model_ref: ref, namespace: ns })],
      [
        '/v1/attest',
        (ref, ns) => ({
          model_ref: ref,
          namespace: ns,
          entity_id: leverCase,
          lever_token: leverToken,
          post_value: 0,
          acted_at: '2026-01-02',
        }),
      ],
      [
        '/v1/ask',
        (ref, ns) => ({
          ...fit(ns),
          questions: { q: { type: 'yesno', outcome_column: 'churned', outcome_is_desirable: false, refit_of: ref } },
        }),
      ],
    ];
    for (const [path, body] of bodies) {
      for (const [ref, ns, k] of [
        [acme, 'globex', key],
        [acme, undefined, key],
        [acme, 'acme', otherKey],
      ] as const) {
        const r = await svc.post(path, body(ref, ns), k);
        expect(r.status, `${path} ${ns}`).toBe(404);
        expect(r.body.code, `${path} ${ns}`).toBe('model_ref_missing');
      }
      // ... and takes it in its own (the delete last: it would take the model away)
      if (path !== '/v1/delete-model') {
        const ok = await svc.post(path, body(acme, 'acme'), key);
        expect(ok.status, `${path} in acme: ${JSON.stringify(ok.body).slice(0, 200)}`).toBe(200);
      }
    }
  });

  it('deleting one namespace’s model leaves the same fit serving the others', async () => {
    const del = await svc.post('/v1/delete-model', { model_ref: globex, namespace: 'globex' }, key);
    expect(del.body).toEqual({ model_ref: globex, deleted: true });
    expect((await svc.post('/v1/ask', score(globex, 'globex'), key)).status).toBe(410);
    expect((await svc.post('/v1/ask', score(acme, 'acme'), key)).status).toBe(200);
    expect((await svc.post('/v1/ask', score(own), otherKey)).status).toBe(200);
  });
});

describe('profiles, usage and stored answers per namespace and workspace', () => {
  it('keeps a profile per namespace: the workspace’s own is namespace null', async () => {
    const set = await svc.post('/v1/profile', { namespace: 'acme', words: { case: 'account' }, display: 'bands' }, key);
    expect(set.status).toBe(200);
    expect(set.body.namespace).toBe('acme');
    expect((await svc.post('/v1/profile', { namespace: 'globex' }, key)).body).toEqual({ namespace: 'globex', profile: null });
    expect((await svc.post('/v1/profile', {}, key)).body).toEqual({ namespace: null, profile: null });
    expect((await svc.post('/v1/profile', { namespace: 'acme' }, otherKey)).body).toEqual({ namespace: 'acme', profile: null });
    expect((await svc.post('/v1/profile', { namespace: 'acme' }, key)).body).toEqual(set.body);
    const a = await svc.post('/v1/ask', score(acme, 'acme'), key);
    expect(a.body.answers.q.profile).toMatchObject({ hash: set.body.profile.hash, display: 'bands' });
    const b = await svc.post('/v1/ask', score(own), key);
    expect(b.body.answers.q.profile).toBeUndefined();
  });

  it('meters usage per namespace and per workspace', async () => {
    await svc.services.usage.flush();
    const wsOf = async (k: string) => {
      const { hashApiKey } = await import('../../host/runtime/keys.ts');
      return (await svc.services.store.findApiKeyByHash(hashApiKey(k)))!.workspace_id;
    };
    const a = await wsOf(key);
    const b = await wsOf(otherKey);
    const now = Date.now();
    const { store } = svc.services;
    const parts = await Promise.all(['', 'acme', 'globex'].map((ns) => store.getMonthlyUsage(a, now, ns)));
    const total = await store.getMonthlyUsage(a, now);
    expect(total.decisions).toBe(parts.reduce((n, u) => n + u.decisions, 0));
    expect(total.fits).toBe(parts.reduce((n, u) => n + u.fits, 0));
    expect(parts[1].decisions).toBeGreaterThan(0);
    // workspace B's own asks are its own
    expect((await store.getMonthlyUsage(b, now)).decisions).toBeGreaterThan(0);
    expect((await store.getMonthlyUsage(b, now, 'acme')).decisions).toBe(0);
  });

  it('a cursor of one workspace is unknown in another; an altered one is unknown too', async () => {
    const mcp = await connectMcp(svc.url, { key });
    let cursor: string;
    try {
      const big: any = await mcp.callTool({
        name: 'svc_ask',
        arguments: { ...fit('acme'), questions: { q: { type: 'rank', outcome_column: 'churned', top_k: 400 } }, cases: undefined },
      });
      cursor = big.structuredContent.page.next_cursor;
    } finally {
      await mcp.close();
    }
    expect((await svc.post('/v1/page', { cursor }, key)).status).toBe(200);
    const stranger = await svc.post('/v1/page', { cursor }, otherKey);
    expect(stranger.status).toBe(404);
    expect(stranger.body).toMatchObject({ code: 'unknown_link', field: 'cursor' });
    const altered = cursor.slice(0, 5) + (cursor[5] === 'A' ? 'B' : 'A') + cursor.slice(6);
    expect((await svc.post('/v1/page', { cursor: altered }, key)).body).toMatchObject({ code: 'unknown_link', field: 'cursor' });
  });
});
