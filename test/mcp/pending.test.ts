// A pending ask over MCP (docs/reference/tasks.md#pending): svc_ask returns the pending object as a normal result, and svc_poll
// follows it to the same answer the ask would have returned.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SAMPLES } from '../../samples/catalog.ts';
import { connectMcp, startTestService, type TestService } from './helpers.ts';

let svc: TestService;
let client: Client;
beforeAll(async () => {
  // No wait at all: every first fit turns the ask into a pending task.
  svc = await startTestService({ pendingWaitMs: 0 });
  client = await connectMcp(svc.url, { key: await svc.testKey() });
});
afterAll(async () => {
  await client?.close();
  await svc?.close();
});

it('returns a pending ask as a result, not an error, and svc_poll reaches the answer', async () => {
  const sample = SAMPLES.find((s) => s.name === 'b2b_leads')!;
  const asked: any = await client.callTool({ name: 'svc_ask', arguments: sample.try as any });
  expect(asked.isError).toBeFalsy();
  expect(asked.structuredContent).toMatchObject({ status: 'pending', task_id: expect.stringMatching(/^tk_/) });
  expect(asked.structuredContent.retry_after_ms).toBeGreaterThan(0);

  let polled: any;
  for (let i = 0; i < 600; i++) {
    polled = await client.callTool({ name: 'svc_poll', arguments: { task_id: asked.structuredContent.task_id } });
    expect(polled.isError).toBeFalsy();
    if (polled.structuredContent.status === 'done') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(polled.structuredContent.status).toBe('done');
  expect(polled.structuredContent.answers.q.state).toBe(sample.expected_state);
});
