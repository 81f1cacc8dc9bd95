// Runs HAProxy with deploy/haproxy.cfg in front of local nodes (`npm run cluster`, the cluster tests, the
// benchmarks): the shipped file itself, its addresses from the environment; other than 3 nodes, its server
// lines are repeated or cut to the number of nodes.
import { spawn, type ChildProcess } from 'node:child_process';
import https from 'node:https';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const HAPROXY_CFG = path.resolve(import.meta.dirname, 'haproxy.cfg');

/** Where Debian puts haproxy, else whatever PATH finds. */
export function haproxyBinary(): string | null {
  if (fs.existsSync('/usr/sbin/haproxy')) return '/usr/sbin/haproxy';
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const file = path.join(dir, 'haproxy');
    if (dir && fs.existsSync(file)) return file;
  }
  return null;
}

export function haproxyMissing(): string | null {
  return haproxyBinary() ? null : 'HAProxy is not installed: `apt-get install -y --no-install-recommends haproxy` (Debian 12 ships 2.6)';
}

/** deploy/haproxy.cfg with one `server nodeK "${NODEK}"` line per node. */
export function haproxyConfigFor(nodes: number): string {
  const text = fs.readFileSync(HAPROXY_CFG, 'utf8');
  const lines = text.split('\n');
  const servers = lines.flatMap((l, i) => (/^\s*server node\d+ /.test(l) ? [i] : []));
  if (servers.length === 0) throw new Error(`${HAPROXY_CFG} has no "server nodeN" lines`);
  const indent = /^\s*/.exec(lines[servers[0]])![0];
  const wanted = Array.from({ length: nodes }, (_, i) => `${indent}server node${i + 1} "\${NODE${i + 1}}"`);
  return [...lines.slice(0, servers[0]), ...wanted, ...lines.slice(servers.at(-1)! + 1)].join('\n');
}

export interface RunningHaproxy {
  /** http://127.0.0.1:PORT */
  url: string;
  port: number;
  child: ChildProcess;
  /** Everything haproxy wrote (warnings, alerts). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts `haproxy -W -db` (master-worker, in the foreground) on 127.0.0.1:`port` in front of `nodes`
 * (host:port each); resolves when it answers /healthz through a node that is up.
 */
export async function startHaproxy(
  port: number,
  nodes: string[],
  opts: { readyTimeoutMs?: number; /** a PEM with certificate and key: HAProxy terminates TLS (https://) */ tlsCert?: string } = {},
): Promise<RunningHaproxy> {
  const bin = haproxyBinary();
  if (!bin) throw new Error(haproxyMissing()!);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'haproxy-'));
  const cfg = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(cfg, haproxyConfigFor(nodes.length));
  const env: NodeJS.ProcessEnv = { ...process.env, LISTEN: `127.0.0.1:${port}` };
  if (opts.tlsCert) env.TLS_CERT = opts.tlsCert;
  nodes.forEach((n, i) => (env[`NODE${i + 1}`] = n));
  const child = spawn(bin, ['-W', '-db', '-f', cfg], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `${opts.tlsCert ? 'https' : 'http'}://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 30_000);
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`haproxy exited with ${child.exitCode}: ${out.trim()}`);
    }
    if (await answers(`${url}/healthz`, opts.tlsCert)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`haproxy did not answer on ${url} in time: ${out.trim()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, port, child, output: () => out, stop };
}

async function answers(url: string, tlsCert?: string): Promise<boolean> {
  if (tlsCert) return httpsAnswers(url, fs.readFileSync(tlsCert, 'utf8'));
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

/** GET `url` over TLS trusting `pem`'s certificate (fetch takes no CA of its own). */
function httpsAnswers(url: string, pem: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = https.get(url, { ca: pem, timeout: 2000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
  });
}
