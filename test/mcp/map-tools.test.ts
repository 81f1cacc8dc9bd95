// svc_suggest and svc_map as MCP tools (docs/reference/map.md#suggest, docs/reference/map.md#map) with the real MCP SDK client over loopback: the
// sample log mapped and its ready ask answered through tools alone, and a bad answer as an isError Problem.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectMcp, startTestService, type TestService } from './helpers.ts';

let svc: TestService;
let client: Client;
beforeAll(async () => {
  svc = await startTestService();
  client = await connectMcp(svc.url, { key: await svc.testKey() });
});
afterAll(async () => {
  await client?.close();
  await svc?.close();
});

it('suggests, maps and asks through tools alone', async () => {
  const s: any = await client.callTool({
    name: 'svc_suggest',
    arguments: { data: { dataset_id: 'sample:saas_churn' }, entity_column: 'customer_id' },
  });
  expect(s.isError).toBeFalsy();
  expect(s.structuredContent.candidates.map((c: any) => c.outcome_column)).toContain('churned');
  const m: any = await client.callTool({
    name: 'svc_map',
    arguments: {
      sources: [{ dataset_id: 'sample:customer_events' }],
      snapshot_every: '1w',
      answers: { outcome: { offer_id: 'lapsed:customer_events' } },
    },
  });
  expect(m.isError).toBeFalsy();
  expect(m.structuredContent.status).toBe('confirmed');
  const a: any = await client.callTool({ name: 'svc_ask', arguments: { ...m.structuredContent.ask, subject_kind: 'org' } });
  expect(a.isError).toBeFalsy();
  expect(a.structuredContent.answers.q.state).toBe('answered');
});

it('answers an unknown offer as an isError result carrying the Problem at its field', async () => {
  const r: any = await client.callTool({
    name: 'svc_map',
    arguments: { sources: [{ dataset_id: 'sample:customer_events' }], answers: { outcome: { offer_id: 'nope' } } },
  });
  expect(r.isError).toBe(true);
  expect(r.structuredContent).toMatchObject({ code: 'mapping_answers_incomplete', status: 422, field: 'answers.outcome.offer_id' });
});
