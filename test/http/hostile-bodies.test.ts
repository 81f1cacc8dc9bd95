// Hostile bodies and requests, over real HTTP: a number too large for a double (1e400) and
// nesting thousands of levels deep are one 422 naming the field, over REST and MCP, with or without an
// idempotency key; headers past Node's limit and malformed HTTP are Problems too; an MCP call whose params
// are malformed is JSON-RPC -32602 "Invalid params" with the Problem in `error.data`.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectProblem, startTestService, type TestService } from './helpers.ts';

let svc: TestService;
let key: string;
beforeAll(async () => {
  svc = await startTestService();
  key = await svc.liveKey('hostile');
});
afterAll(() => svc?.close());

const rows = Array.from({ length: 40 }, (_, i) => ({ id: `c${i}`, x: i, y: i % 2 ? 'yes' : 'no' }));
const ask = (extra: object = {}) => ({
  data: { rows },
  entity_column: 'id',
  subject_kind: 'other',
  questions: { q: { type: 'yesno', outcome_column: 'y' } },
  cases: { ids: ['c1'] },
  ...extra,
});
/** The ask's JSON with row 3's x replaced by `value` (raw JSON text, so 1e400 reaches the server as written). */
const withX = (value: string, extra: object = {}) => JSON.stringify(ask(extra)).replace('"x":3,', `"x":${value},`);
const DEEP = `${'['.repeat(6000)}1${']'.repeat(6000)}`;

const mcp = async (text: string) => {
  const res = await fetch(`${svc.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key}` },
    body: text,
  });
  return { status: res.status, body: (await res.json()) as any };
};
const toolCall = (args: string) => `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"svc_ask","arguments":${args}}}`;

describe('one rule for non-finite numbers and deep nesting', () => {
  it.each([
    ['1e400, no key', withX('1e400'), 'data.rows.3.x', /too large for a 64-bit float/],
    ['1e400, idempotency key', withX('1e400', { idempotency_key: 'k-inf' }), 'data.rows.3.x', /too large for a 64-bit float/],
    [
      '-1e400 in a question',
      JSON.stringify(ask()).replace('"type":"yesno"', '"type":"score","cuts":[0.5,-1e400]'),
      'questions.q.cuts.1',
      /infinite/,
    ],
    ['6,000 levels, no key', withX(DEEP), `data.rows.3.x${'.0'.repeat(60)}`, /nested more than 64 levels deep/],
    ['6,000 levels, idempotency key', withX(DEEP, { idempotency_key: 'k-deep' }), `data.rows.3.x${'.0'.repeat(60)}`, /nested more/],
  ])('REST: %s is 422 invalid_request naming the field', async (_name, raw, field, detail) => {
    const r = await call(svc.url, '/v1/ask', undefined, { key, raw });
    expectProblem(r, 422, 'invalid_request');
    expect(r.json.field).toBe(field);
    expect(r.json.detail).toMatch(detail);
    expect(r.json.remedy).not.toBe('');
  });

  it.each([
    ['1e400, no key', withX('1e400'), 'data.rows.3.x'],
    ['1e400, idempotency key', withX('1e400', { idempotency_key: 'm-inf' }), 'data.rows.3.x'],
    ['6,000 levels', withX(DEEP), `data.rows.3.x${'.0'.repeat(60)}`],
  ])('MCP: %s is the same Problem, as the tool result of an invalid argument', async (_name, args, field) => {
    const r = await mcp(toolCall(args));
    expect(r.status).toBe(200);
    expect(r.body.result.isError).toBe(true);
    expect(r.body.result.structuredContent).toMatchObject({ status: 422, code: 'invalid_request', field });
  });

  it('every other route reads its body under the same rule (add-dataset, report-outcomes)', async () => {
    const add = await call(svc.url, '/v1/add-dataset', undefined, { key, raw: '{"rows":[{"id":"a","x":1e400}]}' });
    expectProblem(add, 422, 'invalid_request');
    expect(add.json.field).toBe('rows.0.x');
    const out = await call(svc.url, '/v1/report-outcomes', undefined, { key, raw: `{"model_ref":${DEEP}}` });
    // without the capability the key is refused before its body is read (docs/reference/auth.md#capabilities)
    expectProblem(out, 403, 'scope_required');
  });

  it('the service is still answering after them', async () => {
    expect((await svc.post('/v1/describe', {})).status).toBe(200);
  });
});

describe('requests refused before any route', () => {
  it('an Authorization header of 60 KB is 431 headers_too_large as a Problem', async () => {
    const r = await call(svc.url, '/v1/describe', {}, { headers: { authorization: `Bearer ${'a'.repeat(60_000)}` } });
    expectProblem(r, 431, 'headers_too_large');
    expect(r.json.detail).toMatch(/16384 bytes/);
  });

  it('a malformed request line is 400 bad_request as a Problem', async () => {
    const url = new URL(svc.url);
    const text = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(url.port), url.hostname, () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let got = '';
      socket.on('data', (d) => (got += d.toString()));
      socket.on('end', () => resolve(got));
      socket.on('error', reject);
    });
    expect(text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(text).toMatch(/content-type: application\/problem\+json/);
    const problem = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
    expect(problem).toMatchObject({ status: 400, code: 'bad_request' });
    expect(problem.remedy).toMatch(/HTTP\/1\.1/);
  });
});

describe('MCP tools/call with malformed params', () => {
  it.each([
    ['arguments an array', '{"name":"svc_ask","arguments":[1]}', 'params.arguments'],
    ['arguments a string', '{"name":"svc_ask","arguments":"x"}', 'params.arguments'],
    ['no name', '{"arguments":{}}', 'params.name'],
    ['name a number', '{"name":7}', 'params.name'],
    ['an unknown tool', '{"name":"svc_nothing","arguments":{}}', 'params.name'],
    ['params an array', '[1,2]', 'params'],
  ])('%s: -32602 Invalid params, the Problem (code, field, remedy) in error.data', async (_name, params, field) => {
    const r = await mcp(`{"jsonrpc":"2.0","id":"a1","method":"tools/call","params":${params}}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ jsonrpc: '2.0', id: 'a1', error: { code: -32602 } });
    expect(r.body.error.message).toMatch(/^Invalid params: /);
    expect(r.body.error.data).toMatchObject({ code: 'invalid_request', status: 422, field });
    expect(typeof r.body.error.data.remedy).toBe('string');
  });

  it('any other request whose params the protocol refuses is -32602 with its Problem too (never -32603 with a raw issue list)', async () => {
    const r = await mcp('{"jsonrpc":"2.0","id":3,"method":"initialize"}');
    expect(r.body).toMatchObject({ id: 3, error: { code: -32602 } });
    expect(r.body.error.message).toMatch(/^Invalid params: params: /);
    expect(r.body.error.data).toMatchObject({ code: 'invalid_request', field: 'params', status: 422 });
    expect(r.body.error.data.remedy).toMatch(/initialize's params/);
  });
});
