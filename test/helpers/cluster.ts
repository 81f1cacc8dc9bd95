// A real cluster for the multi-node tests: N node processes (host/main.ts, test/helpers/child-service.ts)
// on one PostgreSQL database (this file's own on the run's server, or one given), started at once, and
// HAProxy with the shipped deploy/haproxy.cfg in front. Everything is stopped after the test file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { startHaproxy, type RunningHaproxy } from '../../deploy/haproxy.ts';
import { createLiveKey } from '../../host/runtime/keys.ts';
import { openPostgresStore, type Store } from '../../host/store/index.ts';
import { startChildService, type ChildService } from './child-service.ts';
import { fileDatabase } from './postgres-database.ts';
import { freePort } from './postgres.ts';

export interface ClusterOptions {
  nodes?: number;
  /** Settings for every node (added to child-service.ts's defaults). */
  env?: Record<string, string>;
  /** Settings for node i (0-based) on top of `env`. */
  nodeEnv?: (i: number) => Record<string, string>;
  /** Default: this test file's own database on the run's server. */
  databaseUrl?: string;
  /** Put HAProxy in front (default true). */
  haproxy?: boolean;
}

export interface TestCluster {
  databaseUrl: string;
  nodes: ChildService[];
  /** HAProxy in front of the nodes (absent with haproxy: false). */
  proxy?: RunningHaproxy;
  /** The test's own connection to the cluster's database: keys are made here, as an operator's CLI would. */
  store: Store;
  /** A live key in a fresh workspace; its id with it. */
  liveCaller(name?: string, canReportOutcomes?: boolean): Promise<{ key: string; workspaceId: string }>;
  /** Starts one more node on the same database. */
  addNode(env?: Record<string, string>): Promise<ChildService>;
  close(): Promise<void>;
}

const toClose: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of toClose.splice(0)) await close().catch(() => undefined);
});

let made = 0;

export async function startCluster(opts: ClusterOptions = {}): Promise<TestCluster> {
  const databaseUrl = opts.databaseUrl ?? (await fileDatabase());
  const dirs: string[] = [];
  const startNode = (env: Record<string, string> = {}) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oq-node-'));
    dirs.push(dir);
    return startChildService(dir, { DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: '4', ...opts.env, ...env });
  };
  // All at once, as nodes of a real deployment start: the first start on an empty database must still
  // migrate it once and make one signing key.
  const nodes = await Promise.all(Array.from({ length: opts.nodes ?? 3 }, (_, i) => startNode(opts.nodeEnv?.(i))));
  const store = await openPostgresStore(databaseUrl, { poolSize: 4 });
  let proxy: RunningHaproxy | undefined;
  if (opts.haproxy !== false) {
    proxy = await startHaproxy(
      await freePort(),
      nodes.map((n) => new URL(n.url).host.replace('localhost', '127.0.0.1')),
    );
  }
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await proxy?.stop();
    await Promise.all(nodes.map((n) => (n.child.exitCode === null && n.child.signalCode === null ? n.kill() : undefined)));
    await store.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  };
  toClose.push(close);
  return {
    databaseUrl,
    nodes,
    proxy,
    store,
    async liveCaller(name = 'cluster', canReportOutcomes = false) {
      const { key, record } = await createLiveKey(store, { workspaceName: `${name}-${++made}`, canReportOutcomes, now: Date.now() });
      return { key, workspaceId: record.workspace_id };
    },
    async addNode(env) {
      const node = await startNode(env);
      nodes.push(node);
      return node;
    },
    close,
  };
}

/** POST a JSON body to `base` (a node or the proxy). */
export async function post(
  base: string,
  pathname: string,
  body: unknown,
  key?: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(base + pathname, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // HAProxy's own pages are HTML
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/** Polls `task_id` on the given nodes in turn until it is done or failed. */
export async function pollUntilDone(bases: string[], taskId: string, key: string, timeoutMs = 60_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; ; i++) {
    const r = await post(bases[i % bases.length], '/v1/poll', { task_id: taskId }, key);
    if (r.status !== 202) return r;
    if (Date.now() > deadline) throw new Error(`task ${taskId} still pending after ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, 100));
  }
}
