// MCP tools and the OpenAPI document follow the routes an app serves: an operation appears in both as soon
// as its REST route is in the routes list, with no other edit (host/operations/registry.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../host/app.ts';
import { askRoute } from '../../host/routes/ask.ts';
import { describeRoute } from '../../host/routes/describe.ts';
import { registerRoute } from '../../host/routes/register.ts';
import { addDatasetRoute, deleteDatasetRoute } from '../../host/routes/datasets/index.ts';
import type { RouteSpec } from '../../host/routes/route.ts';
import { connectMcp, startTestService, type TestService } from './helpers.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc?.close());

async function surfaces(routes: RouteSpec[]): Promise<{ tools: string[]; paths: string[] }> {
  const app = createApp(svc.services, routes);
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

describe('tools and paths follow the routes', () => {
  it('serves only the tools of the routes given, register_agent among them (spec 1: every operation is a tool)', async () => {
    const { tools, paths } = await surfaces([askRoute, describeRoute, registerRoute]);
    expect(tools).toEqual(['svc_ask', 'svc_describe', 'register_agent']);
    expect(paths).toEqual(['/v1/ask', '/v1/describe', '/v1/agents/register']);
  });

  it('adds svc_add_dataset and svc_delete_dataset when their routes are added', async () => {
    const { tools, paths } = await surfaces([askRoute, addDatasetRoute, describeRoute, deleteDatasetRoute]);
    expect(tools).toEqual(['svc_ask', 'svc_add_dataset', 'svc_describe', 'svc_delete_dataset']);
    expect(paths).toEqual(['/v1/ask', '/v1/add-dataset', '/v1/describe', '/v1/delete-dataset']);
  });
});
