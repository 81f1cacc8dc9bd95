// /mcp over loopback with the real MCP SDK client (docs/reference/mcp.md): the tool list and hints, no-key and keyed
// tools, errors as isError results carrying the Problem, and the same answer as REST from the same operation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { OPERATIONS, toolOperations } from '../../host/operations/index.ts';
import { SAMPLES } from '../../samples/catalog.ts';
import { connectMcp, startTestService, withoutCallIdentity, type TestService } from './helpers.ts';

const sample = SAMPLES.find((s) => s.name === 'saas_churn')!;

let svc: TestService;
let key: string;
let keyed: Client;
let anonymous: Client;
beforeAll(async () => {
  svc = await startTestService();
  key = await svc.testKey();
  keyed = await connectMcp(svc.url, { key });
  anonymous = await connectMcp(svc.url);
});
afterAll(async () => {
  await keyed?.close();
  await anonymous?.close();
  await svc?.close();
});

/**
 * Every spec-4 operation is a tool of the same name (docs/reference/mcp.md), in spec order, with these hints. docs/reference/mcp.md
 * fixes readOnly, destructive and openWorld; idempotentHint is the registry's reading: an ask bills each
 * call, outcomes and attestations are idempotent only per event_id, each registration makes a new key.
 */
const HINTS: Record<string, { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean }> = {
  svc_ask: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  svc_add_dataset: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  svc_poll: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  svc_preflight: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  svc_report_outcomes: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  svc_drift: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  svc_verify: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  svc_describe: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  svc_delete_dataset: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  svc_attest: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  svc_evidence: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  register_agent: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  // contract 1.1 (docs/reference/README.md, "Read-only", "Idempotent", "Destructive"): svc_page is read-only; profile writes
  // (whole replace) and svc_extend_model (sets expiry) are idempotent; svc_delete_model is idempotent and destructive
  svc_profile: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  svc_page: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  svc_extend_model: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  svc_delete_model: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  // additions "Read-only": svc_track_record
  svc_track_record: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  // docs/reference/map.md#suggest, docs/reference/map.md#map: svc_suggest is read-only (open-world: data may be a fetch_url); svc_map writes on confirm (not idempotent) and fetches fetch_url sources
  svc_suggest: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  svc_map: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  // docs/reference/map.md#backtest: svc_backtest writes fits (billed), idempotent by idempotency_key; a mapping's fetch_url sources are fetched again
  svc_backtest: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  // docs/reference/schedules.md#runs, docs/reference/schedules.md#delete: svc_schedule writes (each call another schedule) and its runs fetch; svc_delete_schedule is destructive, a repeat unknown_schedule
  svc_schedule: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  svc_delete_schedule: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
};

describe('tools/list', () => {
  // One listing for the tests below that read what it lists (the first two list for themselves): the
  // server's catalog is built once and kept, and each listing costs the client a JSON Schema compile of
  // every tool's output schema, about half a second apiece on a loaded machine.
  let listed: Awaited<ReturnType<Client['listTools']>>;
  beforeAll(async () => {
    listed = await anonymous.listTools();
  });

  it('lists every spec-4 operation as a tool of the same name, in spec order (register_agent included)', async () => {
    const { tools } = await anonymous.listTools();
    expect(tools.map((t) => t.name)).toEqual(Object.keys(HINTS));
    // The operation table's tools are the same list, in the same order.
    expect(toolOperations(OPERATIONS).map((op) => op.name)).toEqual(Object.keys(HINTS));
  });

  it('lists the same tools with or without a key', async () => {
    const [a, b] = await Promise.all([anonymous.listTools(), keyed.listTools()]);
    expect(b.tools).toEqual(a.tools);
  });

  it('gives every tool a description, an object input schema in JSON Schema 2020-12 and an output schema', async () => {
    const { tools } = listed;
    for (const tool of tools) {
      expect(tool.description!.length, tool.name).toBeGreaterThan(80);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.inputSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(tool.outputSchema?.type).toBe('object');
    }
  });

  it.each(Object.entries(HINTS))('sets the four hints of %s explicitly, as docs/reference/mcp.md says', async (name, hints) => {
    const { tools } = listed;
    const tool = tools.find((t) => t.name === name);
    expect(tool, `${name} is not listed`).toBeDefined();
    expect(tool!.annotations).toEqual({ title: tool!.title, ...hints });
  });

  it('tells an agent how to get a key with register_agent and how to send it', async () => {
    const { tools } = listed;
    const register = tools.find((t) => t.name === 'register_agent')!;
    expect(register.description).toMatch(/svck_test_/);
    expect(register.description).toMatch(/sample datasets only/);
    expect(register.description).toMatch(/Authorization: Bearer <api_key>/);
    expect(register.description).toMatch(/Rate-limited per client address/);
    expect(register.description).toMatch(/Needs no API key/);
    expect(register.inputSchema).toMatchObject({ type: 'object', properties: {} });
    expect(tools.find((t) => t.name === 'svc_ask')!.description).toMatch(/register_agent/);
  });

  it('tells an agent what svc_ask costs, what a pending reply means and what the schema cannot say', async () => {
    const { tools } = listed;
    const ask = tools.find((t) => t.name === 'svc_ask')!;
    expect(ask.description).toMatch(/0\.00002 USD/);
    expect(ask.description).toMatch(/svc_poll/);
    expect(ask.description).toMatch(/acknowledge_decision_support/);
    expect(ask.inputSchema.description).toMatch(/exactly one of dataset_id, rows, csv, fetch_url/);
    expect(tools.find((t) => t.name === 'svc_describe')!.description).toMatch(/No key needed/i);
  });
});

describe('tools/call', () => {
  it('svc_describe needs no key and returns the describe reply as structured content and text', async () => {
    const result: any = await anonymous.callTool({ name: 'svc_describe', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.samples.map((s: any) => s.name)).toEqual(SAMPLES.map((s) => s.name));
    expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
  });

  it("runs a sample's `try` through svc_ask, verifies its Verdict with svc_verify, and matches the REST answer", async () => {
    const mcp: any = await keyed.callTool({ name: 'svc_ask', arguments: sample.try as any });
    expect(mcp.isError).toBeFalsy();
    expect(mcp.structuredContent.status).toBe('done');
    const answer = mcp.structuredContent.answers.q;
    expect(answer.state).toBe('answered');
    expect(answer.cases[0].entity_id).toBe('cust_0001');

    const [{ verdict, signature }] = answer.verdicts;
    const verified: any = await anonymous.callTool({ name: 'svc_verify', arguments: { verdict, signature } });
    expect(verified.structuredContent).toEqual({ status: 'valid' });

    // The first call ran the fit; both later calls reuse it (docs/reference/ask.md#fits), so they must agree exactly.
    const rest = await svc.post('/v1/ask', sample.try, key);
    expect(rest.status).toBe(200);
    const again: any = await keyed.callTool({ name: 'svc_ask', arguments: sample.try as any });
    expect(again.structuredContent.answers.q.cache).toBe('hit');
    expect(withoutCallIdentity(again.structuredContent)).toEqual(withoutCallIdentity(rest.body));
    expect(again.structuredContent.answers.q.cases).toEqual(answer.cases);
  });

  it('answers an unknown argument with an isError result carrying the invalid_request Problem naming it', async () => {
    const result: any = await keyed.callTool({ name: 'svc_ask', arguments: { ...sample.try, colour: 'blue' } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ status: 422, code: 'invalid_request', field: 'colour' });
    expect(result.structuredContent.detail).toMatch(/colour/);
    expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
  });

  it('answers a keyed tool called without a key with the unauthorized Problem', async () => {
    const result: any = await anonymous.callTool({ name: 'svc_ask', arguments: sample.try as any });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ status: 401, code: 'unauthorized' });
    // what an agent can do itself: the register_agent tool and its client's header, not a REST route
    expect(result.structuredContent.remedy).toMatch(/register_agent tool/);
    expect(result.structuredContent.remedy).toMatch(/Authorization: Bearer/);
    expect(result.structuredContent.remedy).not.toMatch(/\/v1\//);
    const { tools } = await anonymous.listTools();
    expect(tools.map((t) => t.name)).toContain('register_agent');
  });

  it('answers a keyed tool called with an unknown key with the unauthorized Problem', async () => {
    const stranger = await connectMcp(svc.url, { key: 'svck_test_not_a_real_key' });
    try {
      const result: any = await stranger.callTool({ name: 'svc_poll', arguments: { task_id: 'tk_aaaaaaaaaaaaaaaaaaaaaaaaaa' } });
      expect(result.structuredContent).toMatchObject({ status: 401, code: 'unauthorized' });
      // A no-key tool works whatever the header says, as over REST.
      const described: any = await stranger.callTool({ name: 'svc_describe', arguments: {} });
      expect(described.isError).toBeFalsy();
    } finally {
      await stranger.close();
    }
  });

  it('returns a test key used on non-sample data as the test_key_samples_only Problem', async () => {
    const args = { ...sample.try, data: { rows: [{ customer_id: 'a', churned: 1 }] } };
    const result: any = await keyed.callTool({ name: 'svc_ask', arguments: args });
    expect(result.structuredContent).toMatchObject({ status: 403, code: 'test_key_samples_only' });
  });

  it('returns an unknown task as the unknown_task Problem from svc_poll', async () => {
    const result: any = await keyed.callTool({ name: 'svc_poll', arguments: { task_id: 'tk_aaaaaaaaaaaaaaaaaaaaaaaaaa' } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ status: 404, code: 'unknown_task' });
  });

  it('rejects an unknown tool as a protocol error: -32602 Invalid params with the Problem in its data', async () => {
    const err: any = await anonymous.callTool({ name: 'svc_nothing', arguments: {} }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err?.code).toBe(-32602);
    expect(err.message).toMatch(/Invalid params: params\.name: unknown tool "svc_nothing"/);
    expect(err.data).toMatchObject({ code: 'invalid_request', field: 'params.name', status: 422 });
    expect(err.data.remedy).toMatch(/tools\/list/);
  });

  it('answers an unknown tool inside a batch with the same -32602 message the 1.x SDK server gave', async () => {
    const call = (id: number, name: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });
    const res = await fetch(`${svc.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify([call(1, 'svc_nothing'), call(2, 'svc_describe')]),
    });
    expect(res.status).toBe(200);
    const [unknown, described] = await res.json();
    // Byte-compatible with the 1.x server (docs/decisions/0081-mcp-server-package.md): no data, this exact message.
    expect(unknown).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'MCP error -32602: Unknown tool: svc_nothing' } });
    expect(described.result.structuredContent.interface_version).toBeDefined();
  });
});

describe('the /mcp endpoint', () => {
  it('answers GET and DELETE with 405 and Allow: POST (stateless, no stream, no session)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${svc.url}/mcp`, { method, headers: { accept: 'text/event-stream' } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(res.headers.get('content-type')).toBe('application/problem+json');
    }
  });

  it('issues no session id', async () => {
    const res = await fetch(`${svc.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const body = await res.json();
    expect(body.result.serverInfo.name).toBe('outcome-question-service');
  });

  it('reads the body like REST: a body that is not JSON is the invalid_json Problem', async () => {
    const res = await fetch(`${svc.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{not json',
    });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe('invalid_json');
  });
});
