// The container image and deploy/compose.yaml, with real processes where no container engine runs: the
// image's own steps (deploy/image.sh assemble: dist/ and the runtime packages only; start; healthcheck),
// three nodes of it on one PostgreSQL database with the compose file's environment, and HAProxy with the
// shipped deploy/haproxy.cfg terminating TLS with a certificate made here. Calls over HTTPS answer, signed
// for BASE_URL; a node stopped with SIGTERM exits 0, one killed with SIGKILL costs callers nothing.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHaproxy, type RunningHaproxy } from '../../deploy/haproxy.ts';
import { freePort } from '../helpers/postgres.ts';
import { fileDatabase } from '../helpers/postgres-database.ts';
import { ensureDist, ROOT } from '../helpers/dist.ts';

const METRICS_TOKEN = 'compose-metrics-token-0123456789';
let dir: string;
let app: string;
let pem: string;
let proxy: RunningHaproxy | undefined;
const nodes: Array<{ child: ChildProcess; port: number; exited: Promise<number | null>; out: () => string }> = [];

function startNode(env: Record<string, string>, port: number) {
  const child = spawn(path.join(app, 'deploy/image.sh'), ['start'], {
    cwd: app,
    env: { ...process.env, ...env, PORT: String(port), DATA_DIR: path.join(dir, `data-${port}`), NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (b) => (out += b));
  child.stderr!.on('data', (b) => (out += b));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, port, exited, out: () => out };
}

/** A JSON call over HTTPS trusting the test's certificate. */
function call(url: string, method: string, body?: unknown, key?: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = https.request(
      url,
      {
        method,
        ca: pem,
        headers: { ...(data ? { 'content-type': 'application/json' } : {}), ...(key ? { authorization: `Bearer ${key}` } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

beforeAll(async () => {
  await ensureDist();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oq-image-'));
  app = path.join(dir, 'app');
  execFileSync(path.join(ROOT, 'deploy/image.sh'), ['assemble', app], { cwd: ROOT, stdio: 'inherit' });
  const cert = path.join(dir, 'oq.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  pem = fs.readFileSync(path.join(dir, 'cert.pem'), 'utf8');
  fs.writeFileSync(cert, pem + fs.readFileSync(path.join(dir, 'key.pem'), 'utf8'));

  // deploy/compose.yaml's node environment, with this machine's addresses
  const proxyPort = await freePort();
  const env = {
    DATABASE_URL: await fileDatabase(),
    BASE_URL: `https://127.0.0.1:${proxyPort}`,
    TRUST_PROXY: '127.0.0.1',
    METRICS_TOKEN,
    DATABASE_POOL_SIZE: '4',
    PENDING_WAIT_MS: '60000',
    // compose's nodes drain the default 8 s on stop; 1 s here keeps the file short (the drain itself:
    // test/http/drain.test.ts and test/release/rolling-upgrade.test.ts)
    SHUTDOWN_DRAIN_MS: '1000',
  };
  const ports = [await freePort(), await freePort(), await freePort()];
  for (const port of ports) nodes.push(startNode(env, port));
  for (const n of nodes) {
    for (let i = 0; i < 600 && !/"msg":"listening"/.test(n.out()); i++) await new Promise((r) => setTimeout(r, 100));
    expect(n.out()).toMatch(/"msg":"listening"/);
  }
  proxy = await startHaproxy(
    proxyPort,
    ports.map((p) => `127.0.0.1:${p}`),
    { tlsCert: cert },
  );
}, 240_000);

afterAll(async () => {
  for (const n of nodes) if (n.child.exitCode === null && n.child.signalCode === null) n.child.kill('SIGKILL');
  await Promise.all(nodes.map((n) => n.exited));
  await proxy?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

it('assembles only runtime packages, and its healthcheck passes on a running node', () => {
  const modules = path.join(app, 'node_modules');
  // (typescript stays: valibot names it as an optional peer, which npm keeps in a production tree)
  for (const tool of ['tsx', 'esbuild', 'assemblyscript', 'binaryen', 'vitest', 'prettier'])
    expect(fs.existsSync(path.join(modules, tool)), tool).toBe(false);
  for (const pkg of ['hono', 'better-sqlite3', 'pg', 'prom-client']) expect(fs.existsSync(path.join(modules, pkg)), pkg).toBe(true);
  expect(fs.existsSync(path.join(app, 'dist/main.js'))).toBe(true);
  const health = (port: number) =>
    spawn(path.join(app, 'deploy/image.sh'), ['healthcheck'], { cwd: app, env: { ...process.env, PORT: String(port) }, stdio: 'ignore' });
  return Promise.all([
    new Promise((resolve) => health(nodes[0]!.port).once('exit', resolve)).then((code) => expect(code).toBe(0)),
    new Promise((resolve) => health(1).once('exit', resolve)).then((code) => expect(code).toBe(1)),
  ]);
});

it('answers over TLS through HAProxy for BASE_URL, and survives one node stopped and one killed', async () => {
  const base = proxy!.url;
  expect(base).toMatch(/^https:/);
  expect((await call(`${base}/readyz`, 'GET')).status).toBe(200);
  const reg = await call(`${base}/v1/agents/register`, 'POST', {});
  expect(reg.status).toBe(201);
  const ask = {
    data: { dataset_id: 'sample:saas_churn' },
    entity_column: 'customer_id',
    subject_kind: 'org',
    questions: { q: { type: 'yesno', outcome_column: 'churned' } },
    cases: { ids: ['cust_0001'] },
  };
  // PENDING_WAIT_MS 60 s, as a caller that waits: the answer, not a 202, even on a loaded machine
  const first = await call(`${base}/v1/ask`, 'POST', ask, reg.body.api_key);
  expect(first.status, JSON.stringify(first.body)).toBe(200);
  // BASE_URL is the Verdicts' issuer and the address in every link the service hands out
  expect(JSON.stringify(first.body)).toContain(`https://127.0.0.1:${proxy!.port}`);
  expect(JSON.stringify(first.body)).not.toContain('localhost');

  const [a, b] = nodes;
  const sent = Date.now();
  a!.child.kill('SIGTERM');
  expect(await a!.exited).toBe(0);
  expect(Date.now() - sent).toBeLessThan(13_000); // the 1 s drain, the 10 s grace period, the rest of close()
  b!.child.kill('SIGKILL');
  await b!.exited;
  for (let i = 0; i < 6; i++) {
    const r = await call(`${base}/v1/ask`, 'POST', ask, reg.body.api_key);
    expect(r.status).toBe(200);
    expect(r.body.core_hash).toBe(first.body.core_hash);
  }
}, 120_000);
