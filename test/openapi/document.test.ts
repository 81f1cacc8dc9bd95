// GET /openapi.json (issue 7): a valid OpenAPI 3.1 document generated from the same valibot schemas as the
// service validates with; every schema converts; every request example is accepted by the service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { toJsonSchema } from '@valibot/to-json-schema';
import { Validator } from '@seriousme/openapi-schema-validator';
import { REQUEST_SCHEMAS, RESPONSE_SCHEMAS, ProblemSchema } from '../../host/schemas/index.ts';
import { PROBLEM_CODES } from '../../host/http/problem.ts';
import { OPERATIONS, implementedOperations } from '../../host/operations/registry.ts';
import { ROUTES } from '../../host/routes/index.ts';
import { jsonSchemaOf } from '../../host/openapi/json-schema.ts';
import { SAMPLES } from '../../samples/catalog.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

let svc: TestService;
let doc: any;
let res: Response;
beforeAll(async () => {
  svc = await startTestService();
  res = await fetch(`${svc.url}/openapi.json`);
  doc = await res.json();
});
afterAll(() => svc?.close());

const served = () => implementedOperations(ROUTES);

describe('schema conversion', () => {
  const all = [
    ...Object.entries(REQUEST_SCHEMAS).map(([name, s]) => [`${name} request`, s] as const),
    ...Object.entries(RESPONSE_SCHEMAS).map(([name, s]) => [`${name} response`, s] as const),
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
        toJsonSchema(op.request, { target: 'draft-2020-12', errorMode: 'throw' });
      } catch {
        convertsWhole = false;
      }
      if (!convertsWhole) expect(op.rules, `${op.name} drops raw checks`).toMatch(/exactly one of/);
    }
  });

  it('has a registry entry for every spec-4 operation schema', () => {
    const names = OPERATIONS.map((op) => op.name);
    for (const name of Object.keys(RESPONSE_SCHEMAS)) expect(names).toContain(name);
    for (const op of OPERATIONS) if (op.name !== 'register_agent') expect(op.request).toBe(REQUEST_SCHEMAS[op.name as keyof typeof REQUEST_SCHEMAS]);
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

  it('covers every operation this server serves, and every other route', () => {
    for (const op of served()) expect(doc.paths[op.path]?.post?.operationId, op.name).toBe(op.name);
    for (const route of ROUTES) expect(doc.paths[route.path]?.[route.method.toLowerCase()], route.path).toBeDefined();
  });

  it('asks for the bearer key exactly where the route does (spec 5.5)', () => {
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const op of served()) {
      const security = doc.paths[op.path].post.security;
      expect(security, op.name).toEqual(op.auth === 'key' ? [{ bearer: [] }] : []);
    }
    expect(doc.paths['/v1/describe'].post.security).toEqual([]);
    expect(doc.paths['/v1/verify'].post.security).toEqual([]);
    expect(doc.paths['/v1/agents/register'].post.security).toEqual([]);
    expect(doc.paths['/v1/ask'].post.security).toEqual([{ bearer: [] }]);
  });

  it('describes the 202 pending reply of ask and poll (spec 3.2)', () => {
    for (const path of ['/v1/ask', '/v1/poll']) {
      const pending = doc.paths[path].post.responses['202'].content['application/json'];
      expect(pending.schema.allOf[1].properties.status).toEqual({ const: 'pending' });
      expect(pending.schema.allOf[1].required).toEqual(['status', 'task_id', 'retry_after_ms']);
    }
    expect(doc.paths['/v1/describe'].post.responses['202']).toBeUndefined();
    expect(doc.paths['/v1/agents/register'].post.responses['201']).toBeDefined();
  });

  it('answers errors as application/problem+json with the codes of each status', () => {
    expect(doc.components.schemas.Problem.required).toEqual(expect.arrayContaining(['type', 'title', 'status', 'detail', 'code', 'remedy']));
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

  it('has request examples that pass the request schema', () => {
    for (const op of served()) {
      for (const example of op.examples) {
        expect(v.safeParse(op.request!, example.value).success, `${op.name} ${example.name}`).toBe(true);
      }
    }
  });

  it('has request examples the service accepts (test key; a live key where test keys are refused)', async () => {
    const testKey = await svc.testKey();
    const liveKey = await svc.liveKey('openapi-examples');
    let sent = 0;
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      const examples = item.post?.requestBody?.content?.['application/json']?.examples ?? {};
      for (const [name, example] of Object.entries<any>(examples)) {
        let r = await svc.post(path, example.value, testKey);
        // Spec 5.2: a test key works on samples only; an example storing a table needs a live key.
        if (r.status === 403 && r.body.code === 'test_key_samples_only') r = await svc.post(path, example.value, liveKey);
        expect([200, 202], `${path} ${name}: ${r.status} ${JSON.stringify(r.body)}`).toContain(r.status);
        sent++;
      }
    }
    expect(sent).toBeGreaterThanOrEqual(SAMPLES.length + 2);
  });
});
