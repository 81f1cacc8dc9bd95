// The service as a real child process (`host/main.ts`), for restarts and SIGKILLs: started on port 0
// over a given DATA_DIR, its pino log lines read from stdout; every child is killed after the file.
import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import path from 'node:path';
import { afterAll } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const children = new Set<ChildProcess>();
afterAll(() => children.forEach((c) => c.kill('SIGKILL')));

export interface ChildService {
  url: string;
  child: ChildProcess;
  /** Every JSON log line so far, and a promise of the first one (already logged or to come) matching `test`. */
  logs: Array<Record<string, unknown>>;
  waitForLog(test: (rec: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** SIGKILL (no cleanup of any kind) and wait for the exit. */
  kill(): Promise<void>;
  /** SIGTERM (a graceful close) and wait for the exit; resolves with the exit code. */
  stop(): Promise<number | null>;
  post(pathname: string, body: unknown, key: string): Promise<{ status: number; body: any; headers: Headers }>;
}

/** Starts `host/main.ts` in its own process; resolves once it listens. `env` adds to or overrides the defaults. */
export function startChildService(dataDir: string, env: Record<string, string> = {}): Promise<ChildService> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'host/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: '0',
      DATA_DIR: dataDir,
      PENDING_WAIT_MS: '50',
      TASK_LEASE_MS: '1500',
      LOG_LEVEL: 'info',
      BASE_URL: '',
      DATABASE_URL: '', // SQLite under DATA_DIR unless a test passes one: never a database from the shell
      // A stopped node closes at once (on PostgreSQL it would drain 8 s first: no balancer here to notice);
      // test/http/drain.test.ts sets its own.
      SHUTDOWN_DRAIN_MS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => (children.delete(child), resolve(code))));
  const logs: Array<Record<string, unknown>> = [];
  const watchers = new Set<(rec: Record<string, unknown>) => void>();
  readline.createInterface({ input: child.stdout! }).on('line', (line) => {
    let rec: Record<string, unknown>;
    try {
      rec = JSON.parse(line);
    } catch {
      return; // not a log line
    }
    logs.push(rec);
    for (const w of [...watchers]) w(rec);
  });
  const waitForLog = (test: (rec: Record<string, unknown>) => boolean, timeoutMs = 60_000) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const seen = logs.find(test);
      if (seen) return resolve(seen);
      const timer = setTimeout(() => (watchers.delete(watch), reject(new Error('no such log line in time'))), timeoutMs);
      const watch = (rec: Record<string, unknown>) => {
        if (!test(rec)) return;
        clearTimeout(timer);
        watchers.delete(watch);
        resolve(rec);
      };
      watchers.add(watch);
      void exited.then((code) => {
        if (!watchers.has(watch)) return;
        clearTimeout(timer);
        watchers.delete(watch);
        reject(new Error(`service exited with ${code} before the log line`));
      });
    });
  return waitForLog((rec) => rec.msg === 'listening').then((rec) => {
    const url = rec.url as string;
    return {
      url,
      child,
      logs,
      waitForLog,
      async kill() {
        child.kill('SIGKILL');
        await exited;
      },
      async stop() {
        child.kill('SIGTERM');
        return exited;
      },
      async post(pathname, body, key) {
        const res = await fetch(url + pathname, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: JSON.stringify(body),
        });
        const text = await res.text();
        return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
      },
    };
  });
}
