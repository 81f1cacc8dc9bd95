// The one test service: a real service on loopback (port 0, a temp DATA_DIR, real SQLite, real wasm, real
// HTTP), keys made straight in its store, an operation context for calling operations directly where HTTP
// is not the subject, and an optional manual clock. Every suite that needs a running service uses this.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino, type Logger } from 'pino';
import { startService, type RunningService } from '../../host/main.ts';
import { createLiveKey, issueApiKey } from '../../host/runtime/keys.ts';
import type { Config, OpContext } from '../../host/runtime/services.ts';
import type { ConnectionTimeouts } from '../../host/http/connection-timeouts.ts';

export interface TestServiceOptions {
  /** The service's clock reads `clock.now` (epoch ms), which the test moves; default: the real clock. */
  manualClock?: boolean;
  /** Its own clock function (a test that keeps its own counter). */
  now?: () => number;
  /** Environment the config is read from; default empty, so the machine's variables never leak in. */
  env?: NodeJS.ProcessEnv;
  /** Where the service logs; default silent. */
  log?: Logger;
  /** Connection timeouts other than the service's own (a test watching them fire). */
  connectionTimeouts?: ConnectionTimeouts;
}

export interface TestService extends RunningService {
  dataDir: string;
  /** The manual clock (epoch ms); moves the service's time only with `manualClock`. */
  clock: { now: number };
  /** POST a JSON body; returns status, parsed body and headers. */
  post(pathname: string, body: unknown, key?: string): Promise<{ status: number; body: any; headers: Headers }>;
  /** A live key: in the named workspace (made once, then reused), or in a fresh one when unnamed. */
  liveKey(workspace?: string, canReportOutcomes?: boolean): Promise<string>;
  /** A live key in a fresh workspace named after `workspace`, with that workspace's id. */
  liveCaller(workspace?: string, canReportOutcomes?: boolean): Promise<{ key: string; workspaceId: string }>;
  /** A test key (samples only) in a fresh workspace, made in the store (no register rate limit spent). */
  testKey(): Promise<string>;
  /** The context an operation runs with for a caller of this workspace (operations called directly). */
  ctx(workspaceId: string, mode?: 'live' | 'test'): OpContext;
}

export function tempDir(prefix = 'oq-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * Starts the service. Defaults: no threads started before the first task (WARM_THREADS off), PENDING_WAIT_MS of 60 s (an ask goes pending only when a test asks for it
 * with `pendingWaitMs`), a temp DATA_DIR removed on close (a given `dataDir` is kept).
 */
export async function startTestService(overrides: Partial<Config> = {}, opts: TestServiceOptions = {}): Promise<TestService> {
  const dataDir = overrides.dataDir ?? tempDir();
  const clock = { now: Date.now() };
  const now = opts.now ?? (opts.manualClock ? () => clock.now : Date.now);
  const running = await startService(
    // Threads start when first needed unless a test warms them (most tests start many services).
    { port: 0, pendingWaitMs: 60_000, warmThreads: false, ...overrides, dataDir },
    {
      hostname: '127.0.0.1',
      log: opts.log ?? pino({ level: 'silent' }),
      env: opts.env ?? {},
      now,
      connectionTimeouts: opts.connectionTimeouts,
    },
  );
  const { store } = running.services;
  const post = async (pathname: string, body: unknown, key?: string) => {
    const res = await fetch(running.url + pathname, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
  };
  let fresh = 0;
  const liveCaller = async (workspace = 'ws', canReportOutcomes = false) => {
    const { key, record } = await createLiveKey(store, { workspaceName: `${workspace}-${++fresh}`, canReportOutcomes, now: now() });
    return { key, workspaceId: record.workspace_id };
  };
  return {
    ...running,
    dataDir,
    clock,
    post,
    async liveKey(workspace, canReportOutcomes = false) {
      if (workspace === undefined) return (await liveCaller('ws', canReportOutcomes)).key;
      return (await createLiveKey(store, { workspaceName: workspace, canReportOutcomes, now: now() })).key;
    },
    liveCaller,
    async testKey() {
      const ws = await store.createWorkspace('test-only', now());
      return (await issueApiKey(store, { workspaceId: ws.id, mode: 'test', now: now() })).key;
    },
    ctx(workspaceId, mode = 'live') {
      return {
        services: running.services,
        caller: { workspaceId, via: 'key', keyId: 'key_test', subject: 'key:key_test', mode, scopes: [] },
        requestId: 'req_test',
        clientAddress: '127.0.0.1',
      };
    },
    async close() {
      await running.close();
      if (overrides.dataDir === undefined) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
