// register_agent as an MCP tool (docs/reference/mcp.md, docs/reference/auth.md#test-keys): no key, a test key that works on samples when sent as the
// Authorization header, and the same per-address limit as POST /v1/agents/register (one limiter for both).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startService, type RunningService } from '../../host/main.ts';
import { hashApiKey } from '../../host/runtime/keys.ts';
import { getSample } from '../../samples/catalog.ts';
import { connectMcp } from './helpers.ts';

const HOUR = 3_600_000;
const LIMIT = 3;
// A clock the test moves: half past the hour, so no fixed hourly window ends while a test runs.
let clock = Date.UTC(2026, 0, 5, 10, 30, 0);
let svc: RunningService;
let dataDir: string;
let anonymous: Client;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-register-'));
  svc = await startService(
    { port: 0, dataDir, registerLimitPerHour: LIMIT, pendingWaitMs: 120_000 },
    { hostname: '127.0.0.1', log: pino({ level: 'silent' }), env: {}, now: () => clock },
  );
  anonymous = await connectMcp(svc.url);
});
afterAll(async () => {
  await anonymous?.close();
  await svc?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const registerOverMcp = (args: Record<string, unknown> = {}): Promise<any> =>
  anonymous.callTool({ name: 'register_agent', arguments: args });

async function registerOverRest(): Promise<{ status: number; body: any }> {
  const res = await fetch(`${svc.url}/v1/agents/register`, { method: 'POST' });
  return { status: res.status, body: await res.json() };
}

describe('register_agent over MCP', () => {
  it('needs no key and returns a new test key, in a new workspace, as structured content and text', async () => {
    clock += HOUR;
    const result = await registerOverMcp();
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      api_key: expect.stringMatching(/^svck_test_[0-9a-z]{32}$/),
      mode: 'test',
      note: expect.any(String),
    });
    expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
    const stored = await svc.services.store.findApiKeyByHash(hashApiKey(result.structuredContent.api_key));
    expect(stored).toMatchObject({ mode: 'test', revoked_at: null });

    const second = await registerOverMcp();
    const other = await svc.services.store.findApiKeyByHash(hashApiKey(second.structuredContent.api_key));
    expect(other!.workspace_id).not.toBe(stored!.workspace_id);
  });

  it('gives a key that answers a sample over MCP when sent as the Authorization header, and only samples', async () => {
    clock += HOUR;
    const { structuredContent: reg } = await registerOverMcp();
    const keyed = await connectMcp(svc.url, { key: reg.api_key });
    try {
      const sample = getSample('saas_churn')!;
      const asked: any = await keyed.callTool({ name: 'svc_ask', arguments: sample.try as any });
      expect(asked.isError).toBeFalsy();
      expect(asked.structuredContent.answers.q.state).toBe('answered');
      const inline: any = await keyed.callTool({
        name: 'svc_ask',
        arguments: { ...sample.try, data: { rows: [{ customer_id: 'a', churned: 1 }] } },
      });
      expect(inline.structuredContent).toMatchObject({ status: 403, code: 'test_key_samples_only' });
    } finally {
      await keyed.close();
    }
  });

  it('ignores arguments, as REST never reads its body (docs/reference/auth.md#test-keys: no body schema)', async () => {
    clock += HOUR;
    const result = await registerOverMcp({ name: 'my-agent', anything: [1, 2] });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.mode).toBe('test');
  });

  it('counts against the same per-address limit as REST: the fourth in an hour, by either, is rate_limited', async () => {
    clock += HOUR;
    expect((await registerOverRest()).status).toBe(201);
    expect((await registerOverMcp()).isError).toBeFalsy();
    expect((await registerOverRest()).status).toBe(201);

    const refused = await registerOverMcp();
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(refused.structuredContent.detail).toMatch(new RegExp(`at most ${LIMIT} per hour`));
    expect(refused.structuredContent.retry_after_ms).toBe(HOUR / 2);
    const rest = await registerOverRest();
    expect(rest.status).toBe(429);
    expect(rest.body.code).toBe('rate_limited');

    // A refused call is not counted, and the next hour opens again for both.
    clock += HOUR;
    expect((await registerOverMcp()).isError).toBeFalsy();
    expect((await registerOverRest()).status).toBe(201);
  });
});
