// Property-based fuzzing of every operation of the table (host/operations/index.ts OPERATIONS) and of /mcp
//, over real HTTP against the real service: arbitrary JSON, the operations' own examples with a
// part replaced, removed or added, non-finite numbers, deep nesting, garbage text, wrong content types, any
// credential. Whatever comes in, the reply is never a 5xx (but 503 with Retry-After, the service's own
// capacity signal, and 502 fetch_failed, a download's), and every refusal is a complete Problem; over MCP
// never -32603, an invalid-params error carries its Problem, and a tool error is a Problem. fast-check
// prints the seed and the shrunk body of any failure (re-run it with FUZZ_SEED=<seed>).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, toolOperations } from '../../host/operations/index.ts';
import type { Operation } from '../../host/operations/operation.ts';
import { bodyText, jsonValue, toText } from './bodies.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

/** Runs per operation and per MCP tool: sized so the whole file takes well under a minute on 2 cores. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 30);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const params = { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) };

let svc: TestService;
let keys: Record<'live' | 'scoped' | 'test' | 'bogus' | 'none', string | undefined>;
beforeAll(async () => {
  svc = await startTestService({
    pendingWaitMs: 200,
    fetchTimeoutMs: 2000,
    rateLimitPerMinute: 1_000_000,
    registerLimitPerHour: 1_000_000,
  });
  keys = {
    live: await svc.liveKey('fuzz'),
    scoped: await svc.liveKey('fuzz-scoped', true),
    test: await svc.testKey(),
    bogus: `svck_live_${'x'.repeat(40)}`,
    none: undefined,
  };
});
afterAll(() => svc?.close());

// --- bodies ---------------------------------------------------------------------------------------------

const credential = fc.constantFrom('live', 'scoped', 'test', 'bogus', 'none') as fc.Arbitrary<keyof typeof keys>;
const contentType = fc.oneof(
  { weight: 8, arbitrary: fc.constant('application/json') },
  { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/json; charset=latin1', 'multipart/form-data', '') },
);

// --- what every reply must be ---------------------------------------------------------------------------

/** The 5xx a caller may see: the service's capacity signal (with Retry-After) and a failed download. */
function allowedServerError(status: number, problem: any, retryAfter: string | null): boolean {
  if (status === 503) return retryAfter !== null && Number(retryAfter) > 0;
  return status === 502 && problem?.code === 'fetch_failed';
}

function expectProblemShape(problem: any, status: number, what: string): void {
  expect(problem, what).toBeTypeOf('object');
  for (const f of ['type', 'title', 'detail', 'code', 'remedy']) {
    expect(typeof problem[f], `${what}: problem.${f}`).toBe('string');
    expect(problem[f].length, `${what}: problem.${f}`).toBeGreaterThan(0);
  }
  expect(problem.status, what).toBe(status);
}

async function send(op: Operation, body: string, who: keyof typeof keys, type: string, token: string): Promise<void> {
  const path = op.path.replace(':token', encodeURIComponent(token));
  const headers: Record<string, string> = {};
  if (type !== '') headers['content-type'] = op.body === 'stream' ? 'text/csv' : type;
  if (keys[who] !== undefined) headers.authorization = `Bearer ${keys[who]}`;
  const res = await fetch(svc.url + path, { method: op.method, headers, ...(op.method === 'GET' ? {} : { body }) });
  const text = await res.text();
  const what = `${op.method} ${path} (${who}, ${type || 'no type'}) ${body.slice(0, 200)} -> ${res.status} ${text.slice(0, 300)}`;
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (res.status >= 500) expect(allowedServerError(res.status, json, res.headers.get('retry-after')), what).toBe(true);
  if (res.status >= 400) {
    expect(res.headers.get('content-type'), what).toMatch(/^application\/problem\+json/);
    expectProblemShape(json, res.status, what);
    if (res.status === 429 || res.status === 503) expect(Number(res.headers.get('retry-after')), what).toBeGreaterThan(0);
  }
}

describe('every operation of the table', () => {
  it.each(OPERATIONS.map((op) => [`${op.method} ${op.path}`, op] as const))(
    '%s: never a 5xx, every refusal a Problem',
    async (_name, op) => {
      await fc.assert(
        fc.asyncProperty(bodyText(op), credential, contentType, fc.string({ maxLength: 40 }), async (body, who, type, token) => {
          await send(op, body, who, type, token);
        }),
        params,
      );
      // and it still answers afterwards
      expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
    },
  );
});

// --- MCP ------------------------------------------------------------------------------------------------

async function mcp(text: string, who: keyof typeof keys): Promise<{ status: number; body: any; what: string }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (keys[who] !== undefined) headers.authorization = `Bearer ${keys[who]}`;
  const res = await fetch(`${svc.url}/mcp`, { method: 'POST', headers, body: text });
  const raw = await res.text();
  let body: any;
  try {
    body = JSON.parse(raw);
  } catch {
    body = raw;
  }
  return { status: res.status, body, what: `${text.slice(0, 200)} (${who}) -> ${res.status} ${raw.slice(0, 300)}` };
}

/** A JSON-RPC reply to a tools/call: a result (a Problem when isError) or an error that is never -32603. */
function expectToolReply(r: { status: number; body: any; what: string }): void {
  expect(r.status, r.what).toBeLessThan(500);
  if (r.status >= 400) return expectProblemShape(r.body, r.status, r.what); // the HTTP layer refused the body
  const messages = Array.isArray(r.body) ? r.body : [r.body];
  for (const m of messages) {
    if (m.error) {
      expect(m.error.code, r.what).not.toBe(-32603);
      if (m.error.code === -32602 && m.error.data !== undefined) expectProblemShape(m.error.data, m.error.data.status, r.what);
    } else if (m.result?.isError) {
      const p = m.result.structuredContent;
      expectProblemShape(p, p.status, r.what);
      if (p.status >= 500) expect(p.status === 503 || p.code === 'fetch_failed', r.what).toBe(true);
    }
  }
}

describe('/mcp', () => {
  it.each(toolOperations(OPERATIONS).map((op) => [op.name, op] as const))(
    'tools/call %s with any arguments: never -32603, every error a Problem',
    async (_name, op) => {
      await fc.assert(
        fc.asyncProperty(bodyText(op), credential, fc.integer(), async (args, who, id) => {
          const text = `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":${JSON.stringify(op.name)},"arguments":${args}}}`;
          expectToolReply(await mcp(text, who));
        }),
        { ...params, numRuns: Math.ceil(RUNS / 2) },
      );
    },
  );

  it('any envelope: never a 5xx, never -32603', async () => {
    const envelope = fc.record(
      {
        jsonrpc: fc.oneof(fc.constant('2.0'), jsonValue),
        id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), jsonValue),
        method: fc.oneof(fc.constantFrom('tools/call', 'tools/list', 'initialize', 'ping', 'resources/list'), fc.string({ maxLength: 12 })),
        params: jsonValue,
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(envelope.map(toText), jsonValue.map(toText), fc.array(envelope, { maxLength: 3 }).map(toText)),
        credential,
        async (text, who) => {
          const r = await mcp(text, who);
          expect(r.status, r.what).toBeLessThan(500);
          if (r.status >= 400 && r.status !== 406 && typeof r.body === 'object' && r.body?.code)
            expectProblemShape(r.body, r.status, r.what);
          const messages = Array.isArray(r.body) ? r.body : [r.body];
          for (const m of messages) if (m?.error) expect(m.error.code, r.what).not.toBe(-32603);
        },
      ),
      { ...params, numRuns: RUNS * 2 },
    );
  });
});
