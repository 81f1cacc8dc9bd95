// The operation table is the one place an operation is declared: REST, MCP tools, the OpenAPI document and
// the task executors all follow the table an app is made with, so adding an operation is one file plus one
// line in host/operations/index.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { createApp } from '../../host/app.ts';
import { askOperation } from '../../host/operations/ask/ask.ts';
import { describeOperation } from '../../host/operations/account/describe.ts';
import { registerOperation } from '../../host/operations/account/register.ts';
import { addDatasetOperation } from '../../host/operations/datasets/add-dataset.ts';
import { deleteDatasetOperation } from '../../host/operations/datasets/delete-dataset.ts';
import { OPERATIONS, taskExecutorsOf, type Operation } from '../../host/operations/index.ts';
import { parseBody } from '../../host/schemas/index.ts';
import { connectMcp, startTestService, type TestService } from './helpers.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc?.close());

async function surfaces(ops: Operation[]): Promise<{ tools: string[]; paths: string[] }> {
  const app = createApp(svc.services, ops);
  const inProcess = (url: string | URL, init?: RequestInit) => Promise.resolve(app.fetch(new Request(url, init)));
  const client = await connectMcp('http://in-process', { fetch: inProcess });
  try {
    const { tools } = await client.listTools();
    const doc = await (await app.request('/openapi.json')).json();
    return { tools: tools.map((t) => t.name), paths: Object.keys(doc.paths) };
  } finally {
    await client.close();
  }
}

describe('tools and paths follow the operation table', () => {
  it('serves only the tools of the operations given, register_agent among them (docs/reference/mcp.md: every operation is a tool)', async () => {
    const { tools, paths } = await surfaces([askOperation, describeOperation, registerOperation]);
    expect(tools).toEqual(['svc_ask', 'svc_describe', 'register_agent']);
    expect(paths).toEqual(['/v1/ask', '/v1/describe', '/v1/agents/register']);
  });

  it('adds svc_add_dataset and svc_delete_dataset when their operations are added', async () => {
    const { tools, paths } = await surfaces([askOperation, addDatasetOperation, describeOperation, deleteDatasetOperation]);
    expect(tools).toEqual(['svc_ask', 'svc_add_dataset', 'svc_describe', 'svc_delete_dataset']);
    expect(paths).toEqual(['/v1/ask', '/v1/add-dataset', '/v1/describe', '/v1/delete-dataset']);
  });

  it('one new declaration is a REST route, an MCP tool, a documented path and (when it can go pending) a task executor', async () => {
    const EchoRequest = v.strictObject({ word: v.pipe(v.string(), v.minLength(1)) });
    const EchoReply = v.strictObject({ echoed: v.string() });
    const echo: Operation = {
      name: 'svc_echo',
      resource: 'account',
      path: '/v1/echo',
      method: 'POST',
      auth: 'none',
      body: 'json',
      title: 'Echo',
      description: 'Says the word back.',
      request: EchoRequest,
      response: EchoReply,
      status: 200,
      tool: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      examples: [{ name: 'word', summary: 'A word', value: { word: 'hello' } }],
      task: async (_ctx, body) => ({ status: 200, body: { echoed: parseBody(EchoRequest, body).word } }),
      run: async (_ctx, body) => ({ status: 200, body: { echoed: parseBody(EchoRequest, body).word } }),
    };
    const ops = [...OPERATIONS, echo];
    const { tools, paths } = await surfaces(ops);
    expect(tools).toContain('svc_echo');
    expect(paths).toContain('/v1/echo');
    expect([...taskExecutorsOf(ops).keys()]).toEqual(['svc_ask', 'svc_backtest', 'svc_schedule', 'svc_echo']);
    const app = createApp(svc.services, ops);
    const res = await app.request('/v1/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"word":"hi"}' });
    expect(await res.json()).toEqual({ echoed: 'hi' });
    const bad = await app.request('/v1/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"word":""}' });
    expect(bad.status).toBe(422);
    expect((await bad.json()).field).toBe('word');
  });
});
