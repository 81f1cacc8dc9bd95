// Dataset test helpers: a real service on loopback (SQLite, wasm, HTTP) with the dataset routes
// mounted, an operation context per workspace, the service in a child process (memory, crashes),
// a check that nothing holds an object any more, and a loopback https server with a self-signed cert.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { startService, type RunningService } from '../../host/main.ts';
import { createLiveKey, issueApiKey } from '../../host/operations/keys.ts';
import type { Config, OpContext } from '../../host/services.ts';

export interface DatasetService {
  /** Where the dataset routes answer (the service itself once app.ts mounts them). */
  url: string;
  running: RunningService;
  dataDir: string;
  /** Moves the injected clock (epoch ms). */
  clock: { now: number };
  liveKey(workspace: string): Promise<{ key: string; workspaceId: string }>;
  testKey(): Promise<string>;
  ctx(workspaceId: string, mode?: 'live' | 'test'): OpContext;
  close(): Promise<void>;
}

export async function startDatasetService(overrides: Record<string, unknown> = {}): Promise<DatasetService> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'datasets-test-'));
  const clock = { now: Date.now() };
  const running = await startService({ port: 0, pendingWaitMs: 60_000, dataDir, ...overrides } as Partial<Config>, {
    log: pino({ level: 'silent' }),
    hostname: '127.0.0.1',
    env: {},
    now: () => clock.now,
  });
  const url = running.url;
  let n = 0;
  return {
    url,
    running,
    dataDir,
    clock,
    async liveKey(workspace) {
      const { key, record } = await createLiveKey(running.services.store, { workspaceName: `${workspace}-${++n}`, now: clock.now });
      return { key, workspaceId: record.workspace_id };
    },
    async testKey() {
      const ws = await running.services.store.createWorkspace('test-only', clock.now);
      return (await issueApiKey(running.services.store, { workspaceId: ws.id, mode: 'test', now: clock.now })).key;
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
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** POSTs JSON with a bearer key; returns status and parsed body. */
export async function post(base: string, route: string, body: unknown, key?: string): Promise<{ status: number; body: any }> {
  const res = await fetch(base + route, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** A self-signed EC certificate for localhost, 127.0.0.1 and ::1, made with the openssl CLI. */
export function selfSignedCert(): { key: string; cert: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: fs.readFileSync(path.join(dir, 'key.pem'), 'utf8'), cert: fs.readFileSync(path.join(dir, 'cert.pem'), 'utf8') };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export interface HttpsTestServer {
  port: number;
  cert: string;
  /** Request headers seen, by path. */
  seen: Map<string, Record<string, string | string[] | undefined>>;
  close(): Promise<void>;
}

/** A loopback https server answering each path with the given handler. */
export async function startHttpsServer(
  handlers: Record<string, (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void>,
): Promise<HttpsTestServer> {
  const { key, cert } = selfSignedCert();
  const seen = new Map<string, Record<string, string | string[] | undefined>>();
  const server = https.createServer({ key, cert }, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://localhost');
    seen.set(url.pathname, req.headers);
    const handler = handlers[url.pathname];
    if (handler) handler(req, res);
    else res.writeHead(404).end('not here');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cert,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface ServerProcess {
  url: string;
  key: string;
  workspaceId: string;
  pid: number;
  /** A /proc/<pid>/status figure in bytes, e.g. VmRSS or VmHWM (peak RSS). */
  memory(field: 'VmRSS' | 'VmHWM'): number;
  /** Resets VmHWM to the current RSS (Linux clear_refs 5), so a later peak belongs to what ran since. */
  resetPeak(): void;
  /** SIGKILL: no cleanup, as a crash. */
  kill(): Promise<void>;
  /** SIGTERM: the service closes its store and exits. */
  stop(): Promise<void>;
}

/** Starts test/datasets/server-process.ts over `dataDir` (config `overrides`) and waits until it listens. */
export async function startServerProcess(dataDir: string, overrides: Record<string, unknown> = {}): Promise<ServerProcess> {
  const script = path.join(path.dirname(new URL(import.meta.url).pathname), 'server-process.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', script, dataDir, JSON.stringify(overrides)], {
    cwd: path.resolve(path.dirname(script), '../..'), // where tsx is installed
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const hello = await new Promise<{ url: string; key: string; workspaceId: string; pid: number }>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line)));
    child.once('exit', (code) => reject(new Error(`server process exited (${code}) before listening`)));
  });
  const status = () => fs.readFileSync(`/proc/${hello.pid}/status`, 'utf8');
  return {
    ...hello,
    memory(field) {
      const kb = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status());
      if (!kb) throw new Error(`no ${field} in /proc/${hello.pid}/status`);
      return Number(kb[1]) * 1024;
    },
    resetPeak() {
      fs.writeFileSync(`/proc/${hello.pid}/clear_refs`, '5');
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

let fullGc: (() => void) | undefined;

/**
 * Whether the object behind `ref` is garbage now, i.e. nothing (no cache) holds it: runs a full GC
 * (exposed at run time, so the tests need no node flag).
 */
export async function collectable(ref: WeakRef<object>): Promise<boolean> {
  if (!fullGc) {
    v8.setFlagsFromString('--expose-gc');
    fullGc = vm.runInNewContext('gc') as () => void;
  }
  // A WeakRef keeps its target alive until the job that made or read it ends.
  await new Promise((resolve) => setImmediate(resolve));
  fullGc();
  return ref.deref() === undefined;
}
