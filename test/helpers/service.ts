// A real service on loopback for tests: temp DATA_DIR, real SQLite, real wasm, real HTTP.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { startService, type RunningService } from '../../host/main.ts';
import { createLiveKey } from '../../host/operations/keys.ts';
import type { Config } from '../../host/services.ts';

export interface TestService extends RunningService {
  dataDir: string;
  /** POST a JSON body; returns status, parsed body and headers. */
  post(pathname: string, body: unknown, key?: string): Promise<{ status: number; body: any; headers: Headers }>;
  liveKey(workspace?: string, canReportOutcomes?: boolean): Promise<string>;
  testKey(): Promise<string>;
}

export function tempDir(prefix = 'oq-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export async function startTestService(overrides: Partial<Config> = {}, dataDir = tempDir()): Promise<TestService> {
  // vitest sets BASE_URL for vite; the service must not take it as its public address. A DATABASE_URL
  // from the shell must not send test writes to that database: SQLite under dataDir.
  const env = { ...process.env, BASE_URL: '', DATABASE_URL: '' };
  const running = await startService({ port: 0, dataDir, ...overrides }, { hostname: '127.0.0.1', log: pino({ level: 'silent' }), env });
  const post = async (pathname: string, body: unknown, key?: string) => {
    const res = await fetch(running.url + pathname, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
  };
  return {
    ...running,
    dataDir,
    post,
    async liveKey(workspace = 'tests', canReportOutcomes = false) {
      const { key } = await createLiveKey(running.services.store, { workspaceName: workspace, canReportOutcomes, now: Date.now() });
      return key;
    },
    async testKey() {
      const r = await post('/v1/agents/register', {});
      if (r.status !== 201) throw new Error(`register failed: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.api_key as string;
    },
  };
}
