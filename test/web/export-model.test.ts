// POST /v1/export-model and the page's model path in Node: a model exported by the service, read by
// host/engine/model-json.ts and scored through host/web/core/score.ts, gives the service's p bit for bit,
// both rounded (the answer) and unrounded (the engine's f64 outputs against the service's own engine).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Model } from '../../host/engine/model.ts';
import type { EngineModule } from '../../host/engine/wasm.ts';
import { parseCsv } from '../../host/table/csv.ts';
import { rowsToTable } from '../../host/table/rows.ts';
import { selectCases } from '../../host/core/cases.ts';
import { loadEngineFrom } from '../../host/web/core/engine-load.ts';
import { modelFromJson, type ModelJson } from '../../host/engine/model-json.ts';
import { scoreExact, scoreRows } from '../../host/web/core/score.ts';
import { scoreCases } from '../../host/engine/scorer.ts';
import * as v from 'valibot';
import { strongestTerms } from '../../host/web/core/terms.ts';
import { ExportModelResponseSchema } from '../../host/operations/models/export-model.schema.ts';

type Obj = Record<string, any>;
const CSV = fs.readFileSync(path.resolve(import.meta.dirname, '../../samples/saas_churn.csv'), 'utf8');
const table = parseCsv(CSV);
const ids = [...new Set(table.data[table.columns.indexOf('customer_id')] as string[])];

let svc: TestService;
let key: string;
let answer: Obj;
let exported: Obj;
let engine: EngineModule;

const bytesOf = (a: Float64Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

beforeAll(async () => {
  svc = await startTestService({ pendingWaitMs: 120_000 });
  key = await svc.testKey();
  const ask = {
    data: { dataset_id: 'sample:saas_churn' },
    entity_column: 'customer_id',
    subject_kind: 'org',
    questions: { q: { type: 'yesno', outcome_column: 'churned' } },
    cases: { ids },
  };
  const r = await svc.post('/v1/ask', ask, key);
  expect(r.status).toBe(200);
  answer = r.body.answers.q;
  const e = await svc.post('/v1/export-model', { model_ref: answer.model_ref }, key);
  expect(e.status).toBe(200);
  exported = e.body;
  // The page's own loader, fetching /engine.wasm from the service (Node has fetch and WebCrypto too).
  engine = await loadEngineFrom(svc.url + '/engine.wasm');
});
afterAll(() => svc?.close());

describe('POST /v1/export-model', () => {
  it('returns the model_ref, core_hash, state, quality and the model as header + base64 f64 bytes', () => {
    expect(Object.keys(exported).sort()).toEqual(['core_hash', 'model', 'model_ref', 'quality', 'state']);
    expect(exported.model_ref).toBe(answer.model_ref);
    expect(exported.core_hash).toBe(svc.services.engine.coreHash);
    expect(exported.state).toBe('answered');
    expect(exported.quality).toEqual(answer.quality);
    expect(Object.keys(exported.model).sort()).toEqual(['array_base64', 'header']);
    expect(exported.model.array_base64).toMatch(/^[A-Za-z0-9+/]+=*$/);
    const parsed = v.safeParse(ExportModelResponseSchema, exported);
    expect(parsed.issues?.map((i) => i.message) ?? []).toEqual([]);
  });

  it('carries the stored model bit for bit, NaN included', async () => {
    const stored = await svc.services.store.getModelByRef(await workspaceOf(key), answer.model_ref);
    const original = Model.fromBytes(stored!.bytes);
    const loaded = modelFromJson(exported.model as ModelJson);
    expect(loaded.header).toEqual(original.header);
    expect(loaded.array.some(Number.isNaN)).toBe(true);
    expect(Buffer.compare(bytesOf(loaded.array), bytesOf(original.array))).toBe(0);
  });

  it("scored in Node through the page's code path, gives every case the service's p bit for bit", () => {
    const model = modelFromJson(exported.model as ModelJson);
    const cases = selectCases(table, { ids }, 'customer_id', undefined);
    const scored = scoreRows(engine, model, cases.table, 'customer_id');
    expect(scored).toHaveLength(800);
    const differing = scored.filter((s, i) => s.entity_id !== answer.cases[i].entity_id || !Object.is(s.p, answer.cases[i].p));
    expect(differing).toEqual([]);
    expect(scored.map((s) => s.reasons)).toEqual(answer.cases.map((c: Obj) => c.reasons));
  });

  it("gives the engine's unrounded p and contributions of every case bit for bit as the service's engine on the stored bytes", async () => {
    const stored = Model.fromBytes((await svc.services.store.getModelByRef(await workspaceOf(key), answer.model_ref))!.bytes);
    const cases = selectCases(table, { ids }, 'customer_id', undefined).table;
    // The page's loader and JSON model on one side; the service's engine module and stored bytes on the other.
    const mine = scoreExact(engine, modelFromJson(exported.model as ModelJson), cases);
    const theirs = scoreCases(svc.services.engine, stored, cases);
    expect(engine).not.toBe(svc.services.engine);
    expect(mine.p).toHaveLength(800);
    expect(Buffer.compare(bytesOf(mine.p), bytesOf(theirs.p))).toBe(0);
    expect(Buffer.compare(bytesOf(mine.contributions), bytesOf(theirs.contributions))).toBe(0);
    mine.p.forEach((p, i) => expect(Object.is(p, theirs.p[i])).toBe(true));
    mine.contributions.forEach((c, i) => expect(Object.is(c, theirs.contributions[i])).toBe(true));
  });

  it('scores new rows (changed values, a blank, an unseen category) exactly as the service scores them', async () => {
    const rows = [
      { customer_id: 'new_1', tenure_months: 2, monthly_charges: 180.5, support_tickets: 11, logins_last_30d: 0, plan: 'basic', seats: 3 },
      {
        customer_id: 'new_2',
        tenure_months: 47,
        monthly_charges: 21,
        support_tickets: 0,
        logins_last_30d: 59,
        plan: 'enterprise',
        seats: 50,
      },
      {
        customer_id: 'new_3',
        tenure_months: null,
        monthly_charges: 99.99,
        support_tickets: 4,
        logins_last_30d: 12,
        plan: 'platinum',
        seats: 7,
      },
    ];
    const r = await svc.post(
      '/v1/ask',
      {
        data: { dataset_id: 'sample:saas_churn' },
        entity_column: 'customer_id',
        subject_kind: 'org',
        questions: { q: { type: 'yesno', outcome_column: 'churned' } },
        cases: { rows },
      },
      key,
    );
    expect(r.status).toBe(200);
    const scored = scoreRows(engine, modelFromJson(exported.model as ModelJson), rowsToTable(rows, 'cases.rows'), 'customer_id');
    expect(scored.map((s) => s.p)).toEqual(r.body.answers.q.cases.map((c: Obj) => c.p ?? null));
    scored.forEach((s, i) => expect(Object.is(s.p ?? undefined, r.body.answers.q.cases[i].p)).toBe(true));
    // contract 1.1: the unseen category is a not_scoreable case for both, naming the value
    expect(r.body.answers.q.cases[2]).toMatchObject({
      entity_id: 'new_3',
      state: 'not_scoreable',
      not_scoreable: { unseen_values: { plan: ['platinum'] } },
    });
    expect(scored[2].not_scoreable).toEqual(r.body.answers.q.cases[2].not_scoreable);
  });

  it("charts the model's strongest terms from its own term tables", () => {
    const model = modelFromJson(exported.model as ModelJson);
    const terms = strongestTerms(model, 10);
    expect(terms.length).toBe(model.usedColumns().length);
    for (let k = 1; k < terms.length; k++) expect(terms[k - 1].strength).toBeGreaterThanOrEqual(terms[k].strength);
    const j = model.columns.findIndex((c) => c.name === terms[0].column);
    for (const bar of terms[0].bars) expect(Object.is(bar.term, model.terms(j)[bar.bin])).toBe(true);
  });

  it('answers 404 model_ref_missing for a model_ref this workspace was never given', async () => {
    const other = await svc.liveKey('someone-else');
    const r = await svc.post('/v1/export-model', { model_ref: answer.model_ref }, other);
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('model_ref_missing');
    expect(r.body.field).toBe('model_ref');
    const unknown = await svc.post('/v1/export-model', { model_ref: 'mr1_' + '0'.repeat(32) }, key);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('model_ref_missing');
  });

  it('needs a key and a well-formed model_ref', async () => {
    expect((await svc.post('/v1/export-model', { model_ref: answer.model_ref })).status).toBe(401);
    const bad = await svc.post('/v1/export-model', { model_ref: 'mr2_nope' }, key);
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe('invalid_request');
    expect(bad.body.field).toBe('model_ref');
    const extra = await svc.post('/v1/export-model', { model_ref: answer.model_ref, format: 'json' }, key);
    expect(extra.status).toBe(422);
  });
});

/** The workspace a key belongs to (the store keeps only the key's hash). */
async function workspaceOf(apiKey: string): Promise<string> {
  const { hashApiKey } = await import('../../host/runtime/keys.ts');
  return (await svc.services.store.findApiKeyByHash(hashApiKey(apiKey)))!.workspace_id;
}
