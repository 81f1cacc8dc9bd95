// One node of the service in its own process (host/main.ts through tsx), for `npm run cluster` and the
// benchmarks: started with the given environment, resolved once it logs 'listening'.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';

const root = path.resolve(import.meta.dirname, '..');

export interface RunningNode {
  /** Where it listens, e.g. http://localhost:40123. */
  url: string;
  port: number;
  child: ChildProcess;
  exited: Promise<void>;
  /** SIGTERM (a graceful close) and wait for the exit. */
  stop(): Promise<void>;
}

/**
 * Starts a node; `env` goes over this process's environment (PORT defaults to 0: any free port). Its log
 * lines (stdout and stderr) go to `logFile` when given, else nowhere.
 */
export function startNode(env: NodeJS.ProcessEnv, logFile?: string): Promise<RunningNode> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'host/main.ts'], {
    cwd: root,
    // SHUTDOWN_DRAIN_MS 0 unless given: `npm run cluster` and the benchmarks stop every node at once, so there
    // is no other node for the balancer to send calls to while one drains (docs/guides/operating.md#stopping-a-node).
    env: { ...process.env, PORT: '0', SHUTDOWN_DRAIN_MS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = logFile ? fs.createWriteStream(logFile, { flags: 'a' }) : null;
  if (log) child.stderr!.pipe(log);
  else child.stderr!.resume();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let listening = false;
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      log?.write(line + '\n');
      if (listening || !line.includes('"msg":"listening"')) return;
      listening = true;
      const url = (JSON.parse(line) as { url: string }).url;
      resolve({
        url,
        port: Number(new URL(url).port),
        child,
        exited,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    });
    void exited.then(() => {
      if (!listening) reject(new Error(`a node exited before it listened${logFile ? `; its log: ${logFile}` : ''}`));
    });
  });
}
