// Route test helpers: a real service on loopback (port 0, temp DATA_DIR, real SQLite and wasm) and
// small fetch wrappers; every Problem is checked for the spec 2.13 fields the same way.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { pino } from 'pino';
import { startService, type RunningService, type StartOptions } from '../../host/main.ts';
import { createLiveKey } from '../../host/operations/keys.ts';
import type { Config } from '../../host/services.ts';

export interface TestService extends RunningService {
  dataDir: string;
  /** A fresh live key in a new workspace. */
  liveKey(opts?: { canReportOutcomes?: boolean }): Promise<string>;
  /** A fresh test key from POST /v1/agents/register (spec 4.12). */
  testKey(): Promise<string>;
}

export async function startTestService(overrides: Partial<Config> = {}, opts: StartOptions = {}): Promise<TestService> {
  const dataDir = overrides.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'routes-test-'));
  const running = await startService(
    { port: 0, pendingWaitMs: 60_000, ...overrides, dataDir },
    { log: pino({ level: 'silent' }), hostname: '127.0.0.1', env: {}, ...opts },
  );
  let n = 0;
  return {
    ...running,
    dataDir,
    async liveKey(o = {}) {
      const { key } = await createLiveKey(running.services.store, {
        workspaceName: `test-ws-${++n}`,
        canReportOutcomes: o.canReportOutcomes,
        now: running.services.now(),
      });
      return key;
    },
    async testKey() {
      const res = await fetch(`${running.url}/v1/agents/register`, { method: 'POST' });
      if (res.status !== 201) throw new Error(`register failed: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { api_key: string }).api_key;
    },
    async close() {
      await running.close();
      if (overrides.dataDir === undefined) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface CallOptions {
  key?: string;
  headers?: Record<string, string>;
  method?: string;
  /** A raw body sent as is (string or bytes); otherwise `body` is JSON-encoded. */
  raw?: BodyInit;
}

/** POSTs `body` as JSON (unless opts.raw) and returns the response with its parsed JSON. */
export async function call(base: string, route: string, body?: unknown, opts: CallOptions = {}): Promise<{ res: Response; json: any }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers };
  if (opts.key !== undefined) headers.authorization = `Bearer ${opts.key}`;
  const init: RequestInit = { method: opts.method ?? 'POST', headers };
  if (opts.raw !== undefined) init.body = opts.raw;
  else if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(base + route, init);
  const text = await res.text();
  let json: any;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = text;
  }
  return { res, json };
}

/** spec 2.13 / wire.md "Problems": content type, required fields, status, code, type and request id. */
export function expectProblem(r: { res: Response; json: any }, status: number, code: string, baseUrl?: string): void {
  const { res, json } = r;
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  for (const f of ['type', 'title', 'detail', 'code', 'remedy']) {
    expect(typeof json[f], `problem.${f}`).toBe('string');
    expect(json[f].length, `problem.${f}`).toBeGreaterThan(0);
  }
  expect(json.status).toBe(status);
  expect(json.code).toBe(code);
  expect(typeof json.request_id).toBe('string');
  expect(json.request_id).toBe(res.headers.get('x-request-id'));
  expect(json.type).toMatch(new RegExp(`/problems/${code}$`));
  if (baseUrl !== undefined) expect(json.type).toBe(`${baseUrl}/problems/${code}`);
}
