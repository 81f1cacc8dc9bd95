// refit_of and svc_drift over real HTTP (docs/reference/ask.md#questions, docs/reference/outcomes.md#drift): a
// refit on fresh rows of the same process, on a replaced pattern, on a record whose new fit is
// refused while the old model still holds, on pure noise, and a model_ref fitted without refit_of;
// two workspaces sharing one model_ref each keep their own report, and a report outlives 24 hours.
import fs from 'node:fs';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService } from '../../../host/main.ts';
import { createLiveKey } from '../../../host/runtime/keys.ts';
import { startTestService, tempDir, type TestService } from '../../helpers/service.ts';
import { churnAsk, churnRows } from '../../helpers/churn.ts';

let svc: TestService;
let key: string;
let baseRef: string;

async function refit(rows: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}, refitOf = baseRef) {
  const r = await svc.post(
    '/v1/ask',
    churnAsk(rows, { outcome_is_desirable: false, refit_of: refitOf }, { cases: { ids: [rows[0].customer_id] }, ...extra }),
    key,
  );
  expect(r.status).toBe(200);
  return r.body.answers.q;
}

/** svc_drift's body without its watch_url (docs/reference/outcomes.md#watch; test/operations/tasks/model-watch.test.ts covers it). */
function withoutWatch(body: Record<string, unknown>) {
  const { watch_url, ...rest } = body;
  expect(watch_url).toMatch(/\/watch\//);
  return rest;
}

async function driftOf(modelRef: string) {
  const r = await svc.post('/v1/drift', { model_ref: modelRef }, key);
  expect(r.status).toBe(200);
  return withoutWatch(r.body);
}

beforeAll(async () => {
  svc = await startTestService({ pendingWaitMs: 120_000 });
  key = await svc.liveKey('drift');
  const rows = churnRows({ seed: 7, rows: 1500 });
  const r = await svc.post('/v1/ask', churnAsk(rows, { outcome_is_desirable: false }, { cases: { ids: ['c00001'] } }), key);
  expect(r.body.answers.q.state).toBe('answered');
  baseRef = r.body.answers.q.model_ref;
});
afterAll(() => svc?.close());

describe('refit_of and svc_drift', () => {
  it('a model_ref fitted without refit_of has no prior (no_check_yet, nothing to keep), and its answer carries no drift', async () => {
    expect(await driftOf(baseRef)).toMatchObject({
      pattern: 'no_prior',
      recommendation: 'no_check_yet',
      refit_quality: 'not_comparable',
      keep_model_ref: null,
      note_code: null,
    });
  });

  it('fresh rows from the same process: unchanged, keep; the report pairs both models on the new held-out rows', async () => {
    const a = await refit(churnRows({ seed: 8, rows: 1500 }));
    expect(a.state).toBe('answered');
    expect(a.drift).toMatchObject({ pattern: 'unchanged', recommendation: 'keep' });
    const rep = a.drift.report;
    expect(rep).toMatchObject({ refit_of: baseRef, new_state: 'answered', evaluated_on: 'held_out', old_holds: true, new_better: false });
    // the new model's AUC on its own held-out rows is the answer's quality.auc: the rows are the same
    expect(rep.new_auc).toBeCloseTo(a.quality.auc, 6);
    expect(rep.evaluated_rows).toBe(a.quality.held_out_rows);
    expect(rep.evaluated_positives).toBe(a.quality.held_out_positives);
    expect(rep.old_auc_on_new).toBeGreaterThan(0.7);
    expect(rep.columns_moved.length).toBeGreaterThan(0);
    expect(await driftOf(a.model_ref)).toEqual(a.drift);
  });

  it('a cross-fitted refit (a small record) is judged on its out-of-fold scores, not on rows its served model learned from', async () => {
    const a = await refit(churnRows({ seed: 11, rows: 800 }));
    expect(a.state).toBe('answered');
    expect(a.quality).toMatchObject({ validation_scheme: 'entity_hash_folds', folds: 4 });
    const rep = a.drift.report;
    expect(rep.evaluated_on).toBe('held_out');
    expect(rep.evaluated_rows).toBe(a.quality.held_out_rows); // every labeled row, each held out once
    // quality.auc is the engine's out-of-fold AUC; the served model scored in-sample would rank higher
    expect(rep.new_auc).toBeCloseTo(a.quality.auc, 6);
    expect(a.drift).toMatchObject({ pattern: 'unchanged', recommendation: 'keep' });
  });

  it('a replaced pattern (same columns, churn now follows seats and plan): changed, refit', async () => {
    const a = await refit(churnRows({ seed: 9, rows: 1500, pattern: 'replaced' }));
    expect(a.state).toBe('answered');
    expect(a.drift).toMatchObject({ pattern: 'changed', recommendation: 'refit' });
    expect(a.drift.report.old_holds).toBe(false);
    expect(a.drift.report.old_auc_on_new).toBeLessThan(0.6);
    expect(a.drift.report.new_better).toBe(true);
    // the columns the new pattern rests on are among those that moved most
    const moved = a.drift.report.columns_moved.map((c: any) => c.column);
    expect(moved).toEqual(expect.arrayContaining(['seats', 'plan']));
    expect(await driftOf(a.model_ref)).toMatchObject({ pattern: 'changed', recommendation: 'refit' });
  });

  it('a refit that is refused while the old model still holds on the new rows: keep (one refusal is not drift)', async () => {
    // out of time: the new fit trains on older rows where churn is a coin toss and is checked on the
    // latest quarter, where the old pattern still holds
    const a = await refit(churnRows({ seed: 10, rows: 1500, pattern: 'recent_only' }), { time_column: 'signup_at' });
    expect(a.state).toBe('refused');
    expect(a.drift).toMatchObject({ pattern: 'unchanged', recommendation: 'keep' });
    expect(a.drift.report.old_holds).toBe(true);
    expect(await driftOf(a.model_ref)).toMatchObject({ pattern: 'unchanged', recommendation: 'keep' });
  });

  it('a refresh where nothing holds any more, old or new: changed, abandon', async () => {
    const a = await refit(churnRows({ seed: 11, rows: 1500, pattern: 'noise' }));
    expect(a.state).toBe('refused');
    expect(a.drift).toMatchObject({ pattern: 'changed', recommendation: 'abandon' });
    expect(a.drift.report.old_holds).toBe(false);
  });

  it('an old model that cannot score the new record (a column it used is gone) no longer holds', async () => {
    const rows = churnRows({ seed: 12, rows: 1500 }).map(({ support_tickets: _gone, ...rest }) => rest);
    const a = await refit(rows);
    expect(a.state).toBe('answered');
    expect(a.drift).toMatchObject({ pattern: 'changed', recommendation: 'refit' });
    expect(a.drift.report.old_missing_columns).toEqual(['support_tickets']);
  });

  it('refit_of naming a model_ref this workspace never got is 404 model_ref_missing at questions.q.refit_of', async () => {
    const rows = churnRows({ seed: 8, rows: 200 });
    const ask = churnAsk(rows, { refit_of: 'mr1_' + '0'.repeat(32) }, { cases: { ids: ['c00001'] } });
    const r = await svc.post('/v1/ask', ask, key);
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ code: 'model_ref_missing', field: 'questions.q.refit_of' });
    const other = await svc.liveKey('drift-other');
    const theirs = await svc.post('/v1/ask', churnAsk(rows, { refit_of: baseRef }, { cases: { ids: ['c00001'] } }), other);
    expect(theirs.status).toBe(404);
    expect(theirs.body.code).toBe('model_ref_missing');
  });

  it('svc_drift on a model_ref of another workspace is 404 model_ref_missing', async () => {
    const other = await svc.liveKey('drift-other');
    const r = await svc.post('/v1/drift', { model_ref: baseRef }, other);
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ code: 'model_ref_missing', field: 'model_ref' });
  });
});

describe('drift reports are kept per workspace and for as long as the refit link', () => {
  it('two workspaces refitting onto the same model_ref from different earlier models each get their own report', async () => {
    const [a, b] = [await svc.liveKey('drift-a'), await svc.liveKey('drift-b')];
    const ask = (rows: Array<Record<string, unknown>>, k: string, refitOf?: string) =>
      svc.post(
        '/v1/ask',
        churnAsk(
          rows,
          { outcome_is_desirable: false, ...(refitOf ? { refit_of: refitOf } : {}) },
          { cases: { ids: [String(rows[0].customer_id)] } },
        ),
        k,
      );
    // A's earlier model is the usual pattern; B's is a different record (the replaced pattern)
    const baseA = (await ask(churnRows({ seed: 7, rows: 1500 }), a)).body.answers.q.model_ref;
    const baseB = (await ask(churnRows({ seed: 13, rows: 1500, pattern: 'replaced' }), b)).body.answers.q.model_ref;
    expect(baseB).not.toBe(baseA);
    const fresh = churnRows({ seed: 8, rows: 1500 });
    const newA = (await ask(fresh, a, baseA)).body.answers.q;
    const newB = (await ask(fresh, b, baseB)).body.answers.q;
    // same record and question: the same model_ref for both, one fit shared
    expect(newB.model_ref).toBe(newA.model_ref);
    expect(newA.drift).toMatchObject({ pattern: 'unchanged', recommendation: 'keep', report: { refit_of: baseA } });
    expect(newB.drift).toMatchObject({ pattern: 'changed', recommendation: 'refit', report: { refit_of: baseB, old_holds: false } });
    const driftA = await svc.post('/v1/drift', { model_ref: newA.model_ref }, a);
    const driftB = await svc.post('/v1/drift', { model_ref: newB.model_ref }, b);
    expect(driftA).toMatchObject({ status: 200, body: newA.drift });
    expect(driftB).toMatchObject({ status: 200, body: newB.drift });
    expect(withoutWatch(driftB.body)).toEqual(newB.drift);
  });

  it('a refit link whose report was never written (the ask stopped between its two writes) is 409 drift_not_recorded at model_ref, not no_prior', async () => {
    const { key: k, record } = await createLiveKey(svc.services.store, { workspaceName: 'drift-interrupted', now: Date.now() });
    const askOn = (seed: number, q: Record<string, unknown> = {}) =>
      svc.post(
        '/v1/ask',
        churnAsk(churnRows({ seed, rows: 1500 }), { outcome_is_desirable: false, ...q }, { cases: { ids: ['c00001'] } }),
        k,
      );
    const older = (await askOn(7)).body.answers.q.model_ref;
    const newer = (await askOn(8)).body.answers.q.model_ref;
    // what operations/ask/ask.ts leaves when it stops after linking refit_of and before storing the report
    await svc.services.store.linkRefit(record.workspace_id, newer, older);
    const r = await svc.post('/v1/drift', { model_ref: newer }, k);
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: 'drift_not_recorded', field: 'model_ref' });
    expect(r.body.detail).toContain('ask again with refit_of');
    // asking again with refit_of records it
    const again = (await askOn(8, { refit_of: older })).body.answers.q;
    expect(again.model_ref).toBe(newer);
    const d = await svc.post('/v1/drift', { model_ref: newer }, k);
    expect(d).toMatchObject({ status: 200, body: again.drift });
  });

  it('svc_drift still gives the report of a refit 30 days later, after every sweep (no_prior is only for a model without refit_of)', async () => {
    const clock = { now: Date.now() };
    const dataDir = tempDir();
    const later = await startService(
      { port: 0, dataDir, pendingWaitMs: 120_000 },
      { hostname: '127.0.0.1', log: pino({ level: 'silent' }), env: { ...process.env, BASE_URL: '' }, now: () => clock.now },
    );
    try {
      const { key: k } = await createLiveKey(later.services.store, { workspaceName: 'drift-later', now: clock.now });
      const post = async (p: string, body: unknown) => {
        const res = await fetch(later.url + p, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${k}` },
          body: JSON.stringify(body),
        });
        return { status: res.status, body: await res.json() };
      };
      const base = await post(
        '/v1/ask',
        churnAsk(churnRows({ seed: 7, rows: 1500 }), { outcome_is_desirable: false }, { cases: { ids: ['c00001'] } }),
      );
      const baseRefLater = base.body.answers.q.model_ref;
      const rows = churnRows({ seed: 9, rows: 1500, pattern: 'replaced' });
      const refitted = await post(
        '/v1/ask',
        churnAsk(rows, { outcome_is_desirable: false, refit_of: baseRefLater }, { cases: { ids: [rows[0].customer_id] } }),
      );
      const answer = refitted.body.answers.q;
      expect(answer.drift).toMatchObject({ pattern: 'changed', recommendation: 'refit' });
      for (const days of [1.01, 30]) {
        clock.now += days * 24 * 3_600_000;
        await later.services.store.sweep(clock.now);
        const r = await post('/v1/drift', { model_ref: answer.model_ref });
        expect(r.status).toBe(200);
        expect(withoutWatch(r.body)).toEqual(answer.drift);
      }
      // the earlier model, fitted without refit_of, is still no_prior
      expect((await post('/v1/drift', { model_ref: baseRefLater })).body).toMatchObject({
        pattern: 'no_prior',
        recommendation: 'no_check_yet',
      });
    } finally {
      await later.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
