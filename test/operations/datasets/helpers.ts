// Dataset test helpers (the service itself is test/helpers/service.ts): the service in a child process
// (memory, crashes), a check that nothing holds an object any more, and a loopback https server with a
// self-signed cert.
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

/** Starts test/operations/datasets/server-process.ts over `dataDir` (config `overrides`) and waits until it listens. */
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
