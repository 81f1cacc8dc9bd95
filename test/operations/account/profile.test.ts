// svc_profile (docs/reference/models.md#profile) and what a namespace's profile does to its answers: words in a `says` sentence
// per case, band display, `exclude` (new fits leave the columns out, under a new model_ref), `fixed` (no
// lever, listed as fixed_by_caller), and the profile hash named in Verdicts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { churnRows } from '../../helpers/churn.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';

let svc: TestService;
let key: string;
const rows = churnRows({ seed: 31, rows: 1500 });
const ids = Array.from({ length: 30 }, (_, i) => `c${String(i).padStart(5, '0')}`);
const ask = (namespace: string, q: Record<string, unknown> = {}) => ({
  data: { rows },
  entity_column: 'customer_id',
  subject_kind: 'org',
  namespace,
  questions: { q: { type: 'yesno', outcome_column: 'churned', outcome_is_desirable: false, ...q } },
  cases: { ids },
});

beforeAll(async () => {
  svc = await startTestService();
  key = await svc.liveKey('profiles', true);
});
afterAll(() => svc?.close());

describe('svc_profile', () => {
  it('reads null, replaces the whole profile on any write (omitted fields reset), and reads it back', async () => {
    expect((await svc.post('/v1/profile', { namespace: 'p1' }, key)).body).toEqual({ namespace: 'p1', profile: null });
    const first = await svc.post(
      '/v1/profile',
      { namespace: 'p1', words: { case: 'account', outcome: 'cancels within 30 days' }, exclude: ['seats'], display: 'bands' },
      key,
    );
    expect(first.status).toBe(200);
    expect(first.body.profile).toMatchObject({
      words: { case: 'account', outcome: 'cancels within 30 days' },
      exclude: ['seats'],
      fixed: [],
      display: 'bands',
    });
    expect(first.body.profile.hash).toMatch(/^pf1_[0-9a-f]{32}$/);
    expect((await svc.post('/v1/profile', { namespace: 'p1' }, key)).body).toEqual(first.body);
    // a write of display alone resets the words and the exclusions
    const second = await svc.post('/v1/profile', { namespace: 'p1', display: 'chance' }, key);
    expect(second.body.profile).toMatchObject({ words: {}, exclude: [], fixed: [], display: 'chance' });
    expect(second.body.profile.hash).not.toBe(first.body.profile.hash);
    // the same fields give the same hash (a write is idempotent)
    const again = await svc.post('/v1/profile', { namespace: 'p1', display: 'chance' }, key);
    expect(again.body.profile.hash).toBe(second.body.profile.hash);
  });
});

describe('answers in a namespace with a profile', () => {
  it('carry profile {hash, display, exclusions_applied}, a says sentence per case, and Verdicts naming the hash', async () => {
    const set = await svc.post(
      '/v1/profile',
      {
        namespace: 'words',
        words: { case: 'account', outcome: 'cancels within 30 days', columns: { support_tickets: 'support tickets' } },
      },
      key,
    );
    const r = await svc.post('/v1/ask', ask('words'), key);
    expect(r.status).toBe(200);
    const a = r.body.answers.q;
    expect(a.profile).toEqual({ hash: set.body.profile.hash, display: 'chance', exclusions_applied: [] });
    expect(a.verdicts[0].verdict.profile_hash).toBe(set.body.profile.hash);
    expect((await svc.post('/v1/verify', { verdict: a.verdicts[0].verdict, signature: a.verdicts[0].signature })).body.status).toBe(
      'valid',
    );
    for (const c of a.cases) {
      expect(c.says).toMatch(new RegExp(`^Account ${c.entity_id}: cancels within 30 days, ${c.p_display.replace(/[<>]/g, '\\$&')} chance`));
      expect(c.says).not.toContain('support_tickets');
    }
    const ticketCase = a.cases.find((c: any) => c.reasons.slice(0, 2).some((x: any) => x.feature_label === 'support_tickets'));
    expect(ticketCase.says).toContain('support tickets');
    // Verdicts sign the cases without the sentence
    expect(a.verdicts[0].verdict.cases[0].says).toBeUndefined();
    // No profile, no sentence, no profile field
    const plain = await svc.post('/v1/ask', ask('no-profile'), key);
    expect(plain.body.answers.q.profile).toBeUndefined();
    expect(plain.body.answers.q.cases[0].says).toBeUndefined();
    expect(plain.body.answers.q.verdicts[0].verdict.profile_hash).toBeUndefined();
  });

  it('display bands: the sentence names the band in place of the chance; chances still come back', async () => {
    await svc.post('/v1/profile', { namespace: 'bands', display: 'bands' }, key);
    const r = await svc.post('/v1/ask', ask('bands', { type: 'score' }), key);
    const a = r.body.answers.q;
    expect(a.profile.display).toBe('bands');
    for (const c of a.cases) {
      expect(typeof c.p).toBe('number');
      expect(c.says).toContain(`churned, ${c.level}`);
      expect(c.says).not.toContain('%');
    }
  });

  it('exclude: a new fit leaves the columns out under a new model_ref; model_ref questions and framing columns are unaffected', async () => {
    const before = await svc.post('/v1/ask', ask('plain-x'), key);
    await svc.post('/v1/profile', { namespace: 'plain-x', exclude: ['support_tickets', 'customer_id', 'churned', 'no_such_column'] }, key);
    const after = await svc.post('/v1/ask', ask('plain-x'), key);
    expect(after.status).toBe(200);
    expect(after.body.fits_run).toBe(1);
    const a = after.body.answers.q;
    expect(a.model_ref).not.toBe(before.body.answers.q.model_ref);
    expect(a.profile.exclusions_applied).toEqual(['support_tickets']);
    expect(a.model_columns).not.toContain('support_tickets');
    expect(a.quality.excluded_columns).toContainEqual({ column: 'support_tickets', why: 'excluded_by_caller' });
    for (const c of a.cases) for (const x of c.reasons) expect(x.feature_label).not.toBe('support_tickets');
    // the earlier model still scores with the column: a model_ref question is not affected by exclude
    const cases = churnRows({ seed: 32, rows: 3, idPrefix: 'n' }).map(({ churned: _o, ...rest }) => rest);
    const byRef = await svc.post(
      '/v1/ask',
      {
        entity_column: 'customer_id',
        subject_kind: 'org',
        namespace: 'plain-x',
        questions: { q: { type: 'yesno', model_ref: before.body.answers.q.model_ref } },
        cases: { rows: cases },
      },
      key,
    );
    expect(byRef.status).toBe(200);
    expect(byRef.body.answers.q.model_columns).toContain('support_tickets');
    expect(byRef.body.answers.q.profile.exclusions_applied).toEqual([]);
  });

  it('fixed: the columns stay in the model, get no lever, and are listed as fixed_by_caller', async () => {
    const before = await svc.post('/v1/ask', ask('fixed'), key);
    const levered = new Set(before.body.answers.q.cases.flatMap((c: any) => (c.levers ?? []).map((l: any) => l.feature_label)));
    expect(levered.size).toBeGreaterThan(0);
    const fixed = [...levered];
    await svc.post('/v1/profile', { namespace: 'fixed', fixed }, key);
    const after = await svc.post('/v1/ask', ask('fixed'), key);
    const a = after.body.answers.q;
    expect(a.model_ref).toBe(before.body.answers.q.model_ref);
    expect(after.body.fits_run).toBe(0);
    for (const c of a.cases) for (const l of c.levers ?? []) expect(fixed).not.toContain(l.feature_label);
    for (const col of fixed) expect(a.quality.excluded_columns).toContainEqual({ column: col, why: 'fixed_by_caller' });
    expect(a.model_columns).toEqual(expect.arrayContaining(fixed));
  });
});
