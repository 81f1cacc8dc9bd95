// GET /openapi.json: a valid OpenAPI 3.1 document generated from the same valibot schemas as the
// service validates with; every schema converts; every operation has request examples the service answers,
// with replies that match the schema the document serves for them and carry no field it leaves out
// (test/helpers/strict-replies.ts), ask replies in every state, format and question type included.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { toJsonSchema } from '@valibot/to-json-schema';
import { Validator } from '@seriousme/openapi-schema-validator';
import { ProblemSchema } from '../../host/schemas/index.ts';
import { PROBLEM_CODES } from '../../host/errors.ts';
import { EXAMPLE_IDS, type OperationExample } from '../../host/operations/operation.ts';
import { OPERATIONS } from '../../host/operations/index.ts';
import { codePointLengths, jsonSchemaOf } from '../../host/openapi/json-schema.ts';
import { SAMPLES, getSample } from '../../samples/catalog.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { connectMcp } from '../mcp/helpers.ts';
import { strictReplies, type StrictReplies } from '../helpers/strict-replies.ts';
import { startHttpsServer, type HttpsTestServer } from '../operations/datasets/helpers.ts';

let svc: TestService;
let doc: any;
let res: Response;
let strict: StrictReplies;
/** A loopback https origin of the customer_events sample log: the schedule examples need a mapping over a fetch_url. */
let origin: HttpsTestServer;
beforeAll(async () => {
  const log = fs.readFileSync(path.join(import.meta.dirname, '../../samples/customer_events.csv'));
  origin = await startHttpsServer({ '/customer_events.csv': (_req, r) => void r.writeHead(200, { 'content-type': 'text/csv' }).end(log) });
  // No wait: a first fit answers 202 pending, so the poll example has a real task to follow.
  svc = await startTestService({ pendingWaitMs: 0, allowLoopbackFetchForTests: true, fetchCaPem: origin.cert });
  res = await fetch(`${svc.url}/openapi.json`);
  doc = await res.json();
  strict = strictReplies(doc);
});
afterAll(async () => {
  await svc?.close();
  await origin?.close();
});

const served = () => OPERATIONS;

/** The operations of the contract, each with a JSON reply schema (and a request schema; register_agent reads no body). */
const SPEC_OPERATIONS = [
  'svc_ask',
  'svc_add_dataset',
  'svc_poll',
  'svc_preflight',
  'svc_report_outcomes',
  'svc_drift',
  'svc_verify',
  'svc_describe',
  'svc_delete_dataset',
  'svc_attest',
  'svc_evidence',
  'register_agent',
  'svc_profile',
  'svc_page',
  'svc_extend_model',
  'svc_delete_model',
  'svc_track_record',
  'svc_suggest',
  'svc_map',
  'svc_backtest',
  'svc_schedule',
  'svc_delete_schedule',
];

describe('schema conversion', () => {
  const all = [
    ...OPERATIONS.flatMap((op) => (op.request ? [[`${op.name} request`, op.request] as const] : [])),
    ...OPERATIONS.flatMap((op) => (op.response ? [[`${op.name} response`, op.response] as const] : [])),
    ['Problem', ProblemSchema] as const,
  ];

  it.each(all)('%s converts to JSON Schema 2020-12', (_name, schema) => {
    const json = jsonSchemaOf(schema as v.GenericSchema);
    expect(json.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
  });

  it('states in words the cross-field rules of every request schema that only converts without them', () => {
    for (const op of OPERATIONS) {
      if (!op.request) continue;
      let convertsWhole = true;
      try {
        toJsonSchema(op.request, { target: 'draft-2020-12', errorMode: 'throw', overrideAction: codePointLengths });
      } catch {
        convertsWhole = false;
      }
      if (!convertsWhole) expect(op.rules, `${op.name} drops raw checks`).toMatch(/^Also required, beyond what the input schema says: /);
    }
  });

  it('has an operation in the table for every spec-4 operation schema', () => {
    const names = OPERATIONS.map((op) => op.name);
    for (const name of SPEC_OPERATIONS) expect(names).toContain(name);
    for (const op of OPERATIONS) {
      if (!SPEC_OPERATIONS.includes(op.name)) continue;
      expect(op.response, op.name).toBeDefined();
      if (op.name !== 'register_agent') expect(op.request, op.name).toBeDefined();
    }
  });
});

describe('GET /openapi.json', () => {
  it('is JSON and needs no key', () => {
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('validates as OpenAPI 3.1 and every $ref resolves', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(() => validator.resolveRefs()).not.toThrow();
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]*"/g) ?? [];
    for (const ref of refs) {
      const [, kind, name] = /"#\/components\/(schemas|responses)\/([^"]+)"/.exec(ref) ?? [];
      expect(doc.components[kind]?.[name], ref).toBeDefined();
    }
  });

  it('names this server and the 2020-12 dialect', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.jsonSchemaDialect).toBe('https://json-schema.org/draft/2020-12/schema');
    // vitest sets BASE_URL=/ in the environment, which configFromEnv reads; compare with the configured value.
    expect(doc.servers).toEqual([{ url: svc.services.config.baseUrl }]);
  });

  it('covers every operation of the table, under its method, with {param} paths', () => {
    for (const op of served()) {
      const path = docPath(op.path);
      expect(doc.paths[path]?.[op.method.toLowerCase()]?.operationId, op.name).toBe(op.name);
    }
    expect(doc.paths['/v1/uploads/{token}'].put.parameters).toEqual([
      { name: 'token', in: 'path', required: true, schema: { type: 'string' } },
    ]);
  });

  it('tags every operation with its resource, the folder of host/operations it is declared in', () => {
    const declared = new Map<string, string>(
      fs
        .readdirSync(path.join(import.meta.dirname, '../../host/operations'), { withFileTypes: true, recursive: true })
        .filter((e) => e.isFile() && e.name.endsWith('.ts'))
        .flatMap((e) => {
          const text = fs.readFileSync(path.join(e.parentPath, e.name), 'utf8');
          return [...text.matchAll(/\n  name: '([a-z_]+)',\n  resource: '([a-z]+)',/g)].map((m) => [m[1], path.basename(e.parentPath)]);
        }),
    );
    const tags = new Set((doc.tags as Array<{ name: string }>).map((t) => t.name));
    for (const op of served()) {
      expect(declared.get(op.name), op.name).toBe(op.resource);
      expect(doc.paths[docPath(op.path)][op.method.toLowerCase()].tags, op.name).toEqual([op.resource]);
      expect(tags.has(op.resource), op.resource).toBe(true);
    }
  });

  it('asks for the bearer key exactly where the route does (docs/reference/auth.md#scheme)', () => {
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const op of served().filter((o) => o.method === 'POST')) {
      const security = doc.paths[docPath(op.path)].post.security;
      expect(security, op.name).toEqual(op.auth === 'key' ? [{ bearer: [] }] : []);
    }
    expect(doc.paths['/v1/describe'].post.security).toEqual([]);
    expect(doc.paths['/v1/verify'].post.security).toEqual([]);
    expect(doc.paths['/v1/agents/register'].post.security).toEqual([]);
    expect(doc.paths['/v1/ask'].post.security).toEqual([{ bearer: [] }]);
  });

  it('describes the 202 pending reply of ask and poll (docs/reference/tasks.md#pending)', () => {
    for (const path of ['/v1/ask', '/v1/poll']) {
      const pending = doc.paths[path].post.responses['202'].content['application/json'];
      expect(pending.schema.allOf[1].properties.status).toEqual({ const: 'pending' });
      expect(pending.schema.allOf[1].required).toEqual(['status', 'task_id', 'retry_after_ms']);
    }
    expect(doc.paths['/v1/describe'].post.responses['202']).toBeUndefined();
    expect(doc.paths['/v1/agents/register'].post.responses['201']).toBeDefined();
  });

  it('answers errors as application/problem+json with the codes of each status', () => {
    expect(doc.components.schemas.Problem.required).toEqual(
      expect.arrayContaining(['type', 'title', 'status', 'detail', 'code', 'remedy']),
    );
    for (const [code, info] of Object.entries(PROBLEM_CODES)) {
      const response = doc.components.responses[`Problem${info.status}`];
      expect(response.description, code).toContain(`\`${code}\``);
      expect(response.content['application/problem+json'].schema).toEqual({ $ref: '#/components/schemas/Problem' });
    }
    const ask = doc.paths['/v1/ask'].post.responses;
    expect(ask['401']).toEqual({ $ref: '#/components/responses/Problem401' });
    expect(ask['422']).toEqual({ $ref: '#/components/responses/Problem422' });
    expect(doc.paths['/v1/describe'].post.responses['401']).toBeUndefined();
    expect(doc.components.responses.Problem429.headers['Retry-After']).toBeDefined();
  });

  it('writes the cross-field rules into the ask request schema and operation', () => {
    expect(doc.components.schemas.AskRequest.description).toMatch(/acknowledge_decision_support/);
    expect(doc.paths['/v1/ask'].post.description).toMatch(/svc_poll/);
  });

  it("offers each sample's ready ask as an example of svc_ask, and {} for describe", () => {
    const examples = doc.paths['/v1/ask'].post.requestBody.content['application/json'].examples;
    expect(Object.keys(examples)).toEqual(SAMPLES.map((s) => s.name));
    for (const s of SAMPLES) expect(examples[s.name].value).toEqual(s.try);
    expect(doc.paths['/v1/describe'].post.requestBody.content['application/json'].examples.empty.value).toEqual({});
  });
});

/** Every documented POST with a JSON body: the spec operations and the routes beyond docs/reference/README.md (the model export). */
function documented(): Array<{
  id: string;
  path: string;
  request: v.GenericSchema;
  response: v.GenericSchema;
  examples: OperationExample[];
}> {
  return served()
    .filter((op) => op.request)
    .map((op) => ({ id: op.name, path: docPath(op.path), request: op.request!, response: op.response!, examples: op.examples }));
}

/** A route's path as the document writes it: `:token` -> `{token}`, a parameter's pattern dropped. */
const docPath = (path: string) => path.replace(/:(\w+)(\{[^}]*\})?/g, '{$1}');

/** Every EXAMPLE_IDS value found anywhere in `value`. */
function namedIds(value: unknown): string[] {
  const ids: string[] = Object.values(EXAMPLE_IDS);
  const text = JSON.stringify(value);
  return ids.filter((id) => text.includes(id));
}

/** `value` with each placeholder id replaced by the real one an earlier call gave. */
function withIds(value: unknown, real: Record<string, string>): any {
  return JSON.parse(JSON.stringify(value), (_k, x) => (typeof x === 'string' && x in real ? real[x] : x));
}

/**
 * What an example naming placeholder ids gets as it is: the Problem saying the id is unknown, never a
 * schema refusal. An attestation's lever_token is checked (signature) before its model_ref, so as it is
 * the only thing refused is that token; the filled-in send below is what shows it is accepted.
 */
const AS_IS: Record<string, { status: number; code: string; field?: string }> = {
  svc_poll: { status: 404, code: 'unknown_task', field: 'task_id' },
  svc_report_outcomes: { status: 404, code: 'model_ref_missing', field: 'model_ref' },
  svc_drift: { status: 404, code: 'model_ref_missing', field: 'model_ref' },
  svc_delete_dataset: { status: 404, code: 'unknown_dataset', field: 'dataset_id' },
  svc_attest: { status: 422, code: 'invalid_request', field: 'lever_token' },
  svc_evidence: { status: 404, code: 'model_ref_missing', field: 'model_ref' },
  export_model: { status: 404, code: 'model_ref_missing', field: 'model_ref' },
  svc_page: { status: 404, code: 'unknown_link', field: 'cursor' },
  svc_extend_model: { status: 404, code: 'model_ref_missing', field: 'model_ref' },
  svc_track_record: { status: 404, code: 'model_ref_missing', field: 'model_ref' },
  svc_schedule: { status: 404, code: 'unknown_mapping', field: 'mapping_id' },
  svc_delete_schedule: { status: 404, code: 'unknown_schedule', field: 'schedule_id' },
  // last: it deletes the model the examples above name
  svc_delete_model: { status: 404, code: 'model_ref_missing', field: 'model_ref' },
};

/** What the strict reply checks saw: statuses per path, answer states, case states (the ask block checks it covered each). */
const seen = new Set<string>();

/** A 2xx reply matches the schema the document serves for `path` and status, and declares every field it carries. */
function expectDeclared(path: string, status: number, body: any, label = path): void {
  expect(strict.check(path, 'post', status, body), `${label} ${status}: ${JSON.stringify(body).slice(0, 300)}`).toEqual([]);
  seen.add(`${path} ${status}`);
  for (const a of Object.values<any>(body?.answers ?? {})) {
    seen.add(`state ${a.state}`);
    for (const c of [...(a.cases ?? []), ...(a.ranked ?? []), ...(a.not_scoreable ?? [])]) if (c.state) seen.add(`case ${c.state}`);
  }
}

/**
 * POSTs and follows a 202 pending ask with svc_poll to its end (docs/reference/tasks.md#pending); each pending
 * and poll reply on the way is checked strictly.
 */
async function postAndFollow(path: string, body: unknown, key: string): Promise<{ status: number; body: any }> {
  let r = await svc.post(path, body, key);
  for (let i = 0; i < 600 && r.status === 202; i++) {
    expectDeclared(path, 202, r.body);
    await new Promise((resolve) => setTimeout(resolve, 100));
    r = await svc.post('/v1/poll', { task_id: r.body.task_id }, key);
    if (r.status === 200 || r.status === 202) expectDeclared('/v1/poll', r.status, r.body);
  }
  return r;
}

describe('request examples', () => {
  it('every operation with a request body, and the model export, carries at least one example in the document', () => {
    const list = documented();
    expect(list.map((d) => d.id)).toEqual(
      expect.arrayContaining([...SPEC_OPERATIONS.filter((name) => name !== 'register_agent'), 'export_model']),
    );
    for (const d of list) {
      expect(d.examples.length, d.id).toBeGreaterThan(0);
      const inDoc = doc.paths[d.path].post.requestBody.content['application/json'].examples;
      expect(Object.keys(inDoc), d.id).toEqual(d.examples.map((e) => e.name));
    }
  });

  it('has request examples that pass the request schema', () => {
    for (const d of documented()) {
      for (const example of d.examples) {
        const parsed = v.safeParse(d.request, example.value);
        expect(parsed.success, `${d.id} ${example.name}: ${JSON.stringify(parsed.issues?.[0]?.message)}`).toBe(true);
      }
    }
  });

  it("has every id placeholder in an example known to the as-is table, and every stateful operation's example uses one", () => {
    for (const d of documented()) {
      for (const example of d.examples) {
        if (namedIds(example.value).length > 0) expect(AS_IS[d.id], `${d.id} names ids but has no as-is expectation`).toBeDefined();
      }
    }
    for (const id of Object.keys(AS_IS)) {
      const d = documented().find((x) => x.id === id)!;
      expect(
        d.examples.every((e) => namedIds(e.value).length > 0),
        id,
      ).toBe(true);
    }
  });

  it('answers every example that needs no earlier call with 2xx (a test key; a live key where test keys are refused) and a reply of its schema', async () => {
    const testKey = await svc.testKey();
    const liveKey = await svc.liveKey('openapi-examples');
    let sent = 0;
    // a route under a link an earlier call gave (an upload's pieces URL) cannot be sent as it is
    for (const d of documented().filter((x) => !x.path.includes('{'))) {
      for (const example of d.examples.filter((e) => namedIds(e.value).length === 0)) {
        let r = await postAndFollow(d.path, example.value, testKey);
        // docs/reference/auth.md#test-keys: a test key works on samples only; an example storing a table needs a live key.
        if (r.status === 403 && r.body.code === 'test_key_samples_only') r = await postAndFollow(d.path, example.value, liveKey);
        expect(r.status, `${d.id} ${example.name}: ${r.status} ${JSON.stringify(r.body)}`).toBeGreaterThanOrEqual(200);
        expect(r.status, `${d.id} ${example.name}: ${r.status} ${JSON.stringify(r.body)}`).toBeLessThan(300);
        expect(v.safeParse(d.response, r.body).success, `${d.id} ${example.name} reply`).toBe(true);
        expectDeclared(d.path, r.status, r.body, `${d.id} ${example.name}`);
        sent++;
      }
    }
    expect(sent).toBeGreaterThanOrEqual(SAMPLES.length + 4);
  });

  it("answers each sample's example ask with the sample's expected state", async () => {
    const testKey = await svc.testKey();
    for (const s of SAMPLES) {
      const r = await postAndFollow('/v1/ask', s.try, testKey);
      expect(r.status, s.name).toBe(200);
      expect(r.body.answers.q.state, s.name).toBe(s.expected_state);
    }
  });

  describe('examples that name ids of earlier calls', () => {
    let key: string;
    const real: Record<string, string> = {};

    beforeAll(async () => {
      // The state the examples name, built with one live key that can report outcomes (docs/reference/outcomes.md#report scopes).
      key = await svc.liveKey('openapi-stateful', true);
      const stored = await svc.post(
        '/v1/add-dataset',
        {
          rows: [
            { id: 'a', x: 1, y: true },
            { id: 'b', x: 2, y: false },
          ],
        },
        key,
      );
      expect(stored.status, JSON.stringify(stored.body)).toBe(200);
      real[EXAMPLE_IDS.datasetId] = stored.body.dataset_id;

      // docs/reference/schedules.md#schedule, docs/reference/schedules.md#delete: a mapping over a fetch_url to schedule, and a schedule of it to delete
      const mapped = await svc.post(
        '/v1/map',
        {
          sources: [{ fetch_url: `https://127.0.0.1:${origin.port}/customer_events.csv` }],
          answers: { outcome: { offer_id: 'lapsed:customer_events' } },
        },
        key,
      );
      expect(mapped.body.status, JSON.stringify(mapped.body).slice(0, 300)).toBe('confirmed');
      real[EXAMPLE_IDS.mappingId] = mapped.body.mapping_id;
      const scheduled = await svc.post(
        '/v1/schedule',
        { mapping_id: mapped.body.mapping_id, cadence: 'monthly', subject_kind: 'org' },
        key,
      );
      expect(scheduled.status, JSON.stringify(scheduled.body).slice(0, 300)).toBe(200);
      real[EXAMPLE_IDS.scheduleId] = scheduled.body.schedule.schedule_id;

      // outcome_is_desirable gives levers (docs/reference/ask.md#reasons); no other ask here uses it, so this is a first fit and,
      // with pendingWaitMs 0, a pending task.
      const ask = {
        ...getSample('saas_churn')!.try,
        questions: { q: { type: 'yesno', outcome_column: 'churned', outcome_is_desirable: false } },
        cases: { ids: ['cust_0001', 'cust_0002'] },
      };
      const pending = await svc.post('/v1/ask', ask, key);
      expect(pending.status, JSON.stringify(pending.body)).toBe(202);
      real[EXAMPLE_IDS.taskId] = pending.body.task_id;
      const done = await postAndFollow('/v1/ask', ask, key);
      expect(done.status).toBe(200);
      const answer = done.body.answers.q;
      expect(answer.state).toBe('answered');
      real[EXAMPLE_IDS.modelRef] = answer.model_ref;
      const lever = answer.cases.find((c: any) => c.entity_id === 'cust_0001').levers?.[0];
      expect(lever, 'cust_0001 has a lever to attest').toBeDefined();
      real[EXAMPLE_IDS.leverToken] = lever.lever_token;

      // docs/reference/ask.md#large-answers: over MCP a large answer comes back as page one with a cursor for svc_page
      const mcp = await connectMcp(svc.url, { key });
      try {
        let ranked: any = await mcp.callTool({
          name: 'svc_ask',
          arguments: {
            ...getSample('saas_churn')!.try,
            questions: { q: { type: 'rank', outcome_column: 'churned', top_k: 300 } },
            cases: undefined,
          },
        });
        // pendingWaitMs is 0 here: a first fit goes pending, and svc_poll pages the answer alike
        for (let i = 0; i < 600 && ranked.structuredContent.status === 'pending'; i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          ranked = await mcp.callTool({ name: 'svc_poll', arguments: { task_id: ranked.structuredContent.task_id } });
        }
        expect(ranked.isError, JSON.stringify(ranked.structuredContent).slice(0, 300)).toBeFalsy();
        expectDeclared('/v1/ask', 200, ranked.structuredContent, 'page one of an MCP answer');
        real[EXAMPLE_IDS.cursor] = ranked.structuredContent.page.next_cursor;
        expect(real[EXAMPLE_IDS.cursor]).toEqual(expect.any(String));
      } finally {
        await mcp.close();
      }
    });

    it.each(Object.keys(AS_IS))(
      '%s: as it is, the unknown-id Problem; with the ids earlier calls gave, 2xx and a reply of its schema',
      async (id) => {
        const d = documented().find((x) => x.id === id)!;
        for (const example of d.examples) {
          const asIs = await svc.post(d.path, example.value, key);
          expect(asIs.body, `${id} ${example.name} as it is`).toMatchObject(AS_IS[id]);
          if (AS_IS[id].code === 'invalid_request') expect(asIs.body.detail).toMatch(/not a lever token of this service/);

          const filled = withIds(example.value, real);
          expect(namedIds(filled), 'every placeholder replaced').toEqual([]);
          const r = await svc.post(d.path, filled, key);
          expect(r.status, `${id} ${example.name}: ${r.status} ${JSON.stringify(r.body)}`).toBeGreaterThanOrEqual(200);
          expect(r.status, `${id} ${example.name}: ${r.status} ${JSON.stringify(r.body)}`).toBeLessThan(300);
          expect(v.safeParse(d.response, r.body).success, `${id} ${example.name} reply ${JSON.stringify(r.body).slice(0, 300)}`).toBe(true);
          expectDeclared(d.path, r.status, r.body, `${id} ${example.name}`);
        }
      },
    );
  });

  it('answers register_agent, which has no body, with 201 and a reply of its schema', async () => {
    const res = await fetch(`${svc.url}/v1/agents/register`, { method: 'POST' });
    expect(res.status).toBe(201);
    const register = OPERATIONS.find((op) => op.name === 'register_agent')!;
    const body = await res.json();
    expect(v.safeParse(register.response!, body).success).toBe(true);
    expectDeclared('/v1/agents/register', 201, body);
    expect(doc.paths['/v1/agents/register'].post.requestBody).toBeUndefined();
  });
});

/**
 * Ask replies beyond the examples, each checked strictly against the served schema: every question type, band,
 * levers, unreadable cases, a namespace profile, refused and not_yet, the lean formats and the CSV export.
 * They reuse the fits the examples above ran (fits are shared by content), so they cost about one new fit.
 */
describe('ask replies declare every field they carry', () => {
  let key: string;
  beforeAll(async () => {
    key = await svc.liveKey('openapi-replies');
  });

  const ask = async (body: unknown): Promise<any> => {
    const r = await postAndFollow('/v1/ask', body, key);
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
    expectDeclared('/v1/ask', 200, r.body);
    return r.body;
  };
  const churn = getSample('saas_churn')!.try;
  const questions = {
    stay: { type: 'yesno', outcome_column: 'churned', outcome_is_desirable: false },
    risk: { type: 'score', outcome_column: 'churned' },
    top: { type: 'rank', outcome_column: 'churned', top_k: 2 },
  };
  /** Two known customers and one the record does not hold (an unreadable case). */
  const cases = { ids: ['cust_0001', 'cust_0002', 'cust_9999'] };

  it('yesno, score and rank with band, levers and an unreadable case; in a namespace with a profile', async () => {
    const plain = await ask({ ...churn, questions, cases, band: true });
    expect(Object.values<any>(plain.answers).map((a) => a.state)).toEqual(['answered', 'answered', 'answered']);
    expect(plain.answers.stay.cases[0].levers?.length, 'levers').toBeGreaterThan(0);
    const profile = await svc.post(
      '/v1/profile',
      { namespace: 'strict', words: { case: 'account', outcome: 'cancels' }, fixed: ['plan'] },
      key,
    );
    expect(profile.status, JSON.stringify(profile.body)).toBe(200);
    const spoken = await ask({ ...churn, questions, cases, namespace: 'strict' });
    expect(spoken.answers.stay.cases[0].says).toEqual(expect.any(String));
    // a rank of the whole record says how many it left out
    expect((await ask({ ...churn, questions: { top: questions.top }, cases: undefined })).answers.top.ranked_note).toEqual(
      expect.any(String),
    );
    expect(seen).toContain('case not_scoreable');
  });

  it('choice by a column and by one outcome column per option', async () => {
    await ask(getSample('telco_churn')!.try);
    const leads = getSample('b2b_leads')!.try;
    const both = await ask({
      ...leads,
      questions: { via: { type: 'choice', option_outcomes: { demo: 'demo_requested', won: 'converted' }, outcome_is_desirable: true } },
    });
    expect(Object.keys(both.answers.via.model_refs)).toEqual(['demo', 'won']);
  });

  it('refused and not_yet', async () => {
    await ask(getSample('coin_flips')!.try);
    const rows = Array.from({ length: 6 }, (_, i) => ({ id: `r${i}`, x: i, y: i % 2 === 0 }));
    const few = await ask({
      data: { rows },
      entity_column: 'id',
      subject_kind: 'other',
      questions: { q: { type: 'yesno', outcome_column: 'y' } },
      cases: { ids: ['r1'] },
    });
    expect(few.answers.q.have).toBeDefined();
    for (const state of ['answered', 'refused', 'not_yet']) expect(seen, state).toContain(`state ${state}`);
  });

  it('the concise and compact formats, and an answer exported as CSV', async () => {
    for (const response_format of ['concise', 'compact']) {
      const lean = await ask({ ...churn, questions, cases, band: true, response_format });
      expect(lean.answers.stay.verdicts_withheld).toMatchObject({ reason: `response_format_${response_format}` });
    }
    const exported = await ask({ ...churn, questions: { stay: questions.stay }, cases, export: 'csv' });
    expect(exported.export.results_url).toEqual(expect.any(String));
  });

  it('saw pending replies of ask and poll on the way', () => {
    for (const kind of ['/v1/ask 202', '/v1/poll 202', '/v1/poll 200', '/v1/page 200']) expect(seen, kind).toContain(kind);
  });
});

describe('POST /v1/export-model in the document', () => {
  it('has its real request and reply schemas, key security, and the Problems of a keyed body route', () => {
    const post = doc.paths['/v1/export-model'].post;
    expect(post.operationId).toBe('export_model');
    expect(post['x-mcp-tool']).toBeUndefined();
    expect(post.security).toEqual([{ bearer: [] }]);
    expect(post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ExportModelRequest' });
    expect(post.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ExportModelResponse' });
    expect(doc.components.schemas.ExportModelRequest).toMatchObject({
      type: 'object',
      required: ['model_ref'],
      additionalProperties: false,
    });
    const reply = doc.components.schemas.ExportModelResponse;
    expect(reply.required).toEqual(expect.arrayContaining(['model_ref', 'core_hash', 'state', 'quality', 'model']));
    expect(reply.properties.model.required).toEqual(['header', 'array_base64']);
    for (const status of ['401', '404', '422'])
      expect(post.responses[status], status).toEqual({ $ref: `#/components/responses/Problem${status}` });
  });
});
