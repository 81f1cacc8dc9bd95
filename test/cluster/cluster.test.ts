// Three real node processes on one PostgreSQL database behind HAProxy (deploy/haproxy.cfg), started at once
// on an empty database: one signing key; the same fit asked on every node at the same moment runs
// once; an idempotent retry on another node replays; rate limits hold for the cluster; tokens and upload URLs
// of one node are taken by another; a rotated signing key is verified and used everywhere; the retention
// sweep runs once per period; and a node killed with SIGKILL costs HAProxy's clients nothing.
import { execFile } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bigRows } from '../helpers/big-rows.ts';
import { churnAsk, churnRows } from '../helpers/churn.ts';
import { post, startCluster, type TestCluster } from '../helpers/cluster.ts';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const RATE_LIMIT = 40;
const SWEEP_MS = 1000;

let c: TestCluster;
let urls: string[];

beforeAll(async () => {
  c = await startCluster({
    env: {
      PENDING_WAIT_MS: '60000', // answers in-line: this file is about what nodes share, not about tasks
      FIT_WORKERS: '1',
      RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
      REGISTER_LIMIT_PER_HOUR: '3',
      TRUST_PROXY: '127.0.0.1',
      SWEEP_EVERY_MS: String(SWEEP_MS),
    },
    // node 1 reads the signing keys every second; nodes 2 and 3 only when a kid is new to them
    nodeEnv: (i) => ({ SIGNING_KEY_RELOAD_MS: i === 0 ? '1000' : '600000' }),
  });
  urls = c.nodes.map((n) => n.url);
});
afterAll(() => c?.close());

async function jwks(url: string): Promise<string[]> {
  const res = await fetch(`${url}/.well-known/jwks.json`);
  return ((await res.json()) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid).sort();
}

/** A small inline ask of its own (seeded rows), one case answered. */
function smallAsk(seed: number, extra: Record<string, unknown> = {}) {
  const rows = churnRows({ seed, rows: 400 });
  return churnAsk(rows, { outcome_is_desirable: false }, { cases: { ids: [rows[0].customer_id] }, ...extra });
}

describe('three nodes behind HAProxy', () => {
  it('started together on an empty database, they publish one signing key and answer through HAProxy', async () => {
    const sets = await Promise.all(urls.map(jwks));
    expect(sets[0]).toHaveLength(1);
    expect(sets[1]).toEqual(sets[0]);
    expect(sets[2]).toEqual(sets[0]);
    const { key } = await c.liveCaller();
    const r = await post(c.proxy!.url, '/v1/ask', smallAsk(1), key);
    expect(r.status).toBe(200);
    expect(r.body.answers.q.verdicts[0].signature.kid).toBe(sets[0][0]);
  });

  it('runs the same fit asked on every node at the same moment once in total (fits_run sums to 1), and bills it once', async () => {
    const { key } = await c.liveCaller('flight');
    // four records, each asked on the three nodes at once: the node that runs a fit links it to the workspace
    // before the others may take it (ask/fits.ts obtainFit); when it linked after, a node that saw the stored
    // fit first answered as the workspace's first ask too (fits_run 1 twice, billed twice)
    for (const rows of [3600, 3800, 4000, 4200]) {
      const ask = {
        data: { rows: bigRows().slice(0, rows) },
        entity_column: 'id',
        subject_kind: 'other',
        questions: { q: { type: 'yesno', outcome_column: 'y' } },
        cases: { ids: ['e1', 'e2'] },
      };
      const replies = await Promise.all(urls.map((u) => post(u, '/v1/ask', ask, key)));
      expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(
        replies.reduce((n, r) => n + r.body.fits_run, 0),
        `${rows} rows`,
      ).toBe(1);
      expect(replies.filter((r) => r.body.answers.q.cache === 'miss')).toHaveLength(1);
      expect(new Set(replies.map((r) => r.body.answers.q.model_ref)).size).toBe(1);
      const ps = replies.map((r) => JSON.stringify(r.body.answers.q.cases.map((x: any) => x.p)));
      expect(new Set(ps).size).toBe(1);
    }
  });

  it('replays an idempotent retry sent to another node, and refuses a reused key with another body the same way on every node', async () => {
    const { key } = await c.liveCaller('idem');
    const first = await post(urls[0], '/v1/ask', smallAsk(2, { idempotency_key: 'k-1' }), key);
    expect(first.status).toBe(200);
    const retry = await post(urls[1], '/v1/ask', smallAsk(2, { idempotency_key: 'k-1' }), key);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body); // the same Verdicts, ids and signatures included
    expect(retry.body.fits_run).toBe(first.body.fits_run);
    const reused = await Promise.all(urls.map((u) => post(u, '/v1/ask', smallAsk(3, { idempotency_key: 'k-1' }), key)));
    for (const r of reused) {
      expect(r.status).toBe(reused[0].status);
      expect(r.body).toMatchObject({ code: 'idempotency_key_reused', field: 'idempotency_key' });
    }
    expect(reused[0].status).toBe(422); // as on one node (host/errors.ts)
  });

  it('holds one workspace rate limit for the whole cluster, not one per node', async () => {
    const { key } = await c.liveCaller('limit');
    // 50 calls within one minute's window: past its last seconds, wait for the next one
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 50));
    const statuses: number[] = [];
    for (let i = 0; i < 50; i += 5) {
      const batch = await Promise.all(
        [0, 1, 2, 3, 4].map(async (j) => {
          const res = await fetch(`${urls[(i + j) % 3]}/v1/ask`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: '{', // counted before the body is read: a cheap call
          });
          await res.arrayBuffer();
          return res.status;
        }),
      );
      statuses.push(...batch);
    }
    expect(statuses.filter((s) => s === 400)).toHaveLength(RATE_LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(50 - RATE_LIMIT);
  });

  it('holds the registration limit per client address for the whole cluster, each client counted behind HAProxy', async () => {
    /** POST /v1/agents/register through HAProxy from a loopback address of our choosing. */
    const register = (from: string) =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(`${c.proxy!.url}/v1/agents/register`, { method: 'POST', localAddress: from }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        });
        req.on('error', reject);
        req.end();
      });
    const fromA: number[] = [];
    for (let i = 0; i < 5; i++) fromA.push(await register('127.0.0.2'));
    expect(fromA).toEqual([201, 201, 201, 429, 429]);
    expect(await register('127.0.0.3')).toBe(201); // another client has its own count
  });

  it("takes one node's lever tokens and upload URLs on another (the secrets are in the store)", async () => {
    const { key } = await c.liveCaller('tokens', true);
    const rows = churnRows({ seed: 4, rows: 1500 });
    const ids = rows.slice(0, 40).map((r) => r.customer_id);
    const asked = await post(urls[0], '/v1/ask', churnAsk(rows, { outcome_is_desirable: false }, { cases: { ids } }), key);
    expect(asked.status).toBe(200);
    const q = asked.body.answers.q;
    const withLever = q.cases.find((x: any) => x.levers.length > 0);
    expect(withLever).toBeDefined();
    const lever = withLever.levers[0];
    const reason = withLever.reasons.find((r: any) => r.feature_label === lever.feature_label);
    const attested = await post(
      urls[1],
      '/v1/attest',
      {
        model_ref: q.model_ref,
        entity_id: withLever.entity_id,
        lever_token: lever.lever_token,
        post_value: reason.value,
        acted_at: '2026-01-02',
      },
      key,
    );
    expect(attested.status).toBe(200);
    expect(attested.body).toMatchObject({ written: true, evaluated_feature: lever.feature_label });

    const added = await post(urls[1], '/v1/add-dataset', { upload: true, filename: 'u.csv' }, key);
    expect(added.status).toBe(200);
    const token = added.body.upload_url.slice(added.body.upload_url.lastIndexOf('/') + 1);
    const columns = Object.keys(rows[0]);
    const csv = [columns.join(','), ...rows.map((r) => columns.map((k) => r[k]).join(','))].join('\n') + '\n';
    const put = await fetch(`${urls[2]}/v1/uploads/${token}`, { method: 'PUT', headers: { 'content-type': 'text/csv' }, body: csv });
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({ dataset_id: added.body.dataset_id, status: 'ready', rows: rows.length });
  });

  it('verifies a signing key rotated from the CLI on every node at once, and signs with it after a reload', async () => {
    const { key } = await c.liveCaller('rotate');
    const [old] = await jwks(urls[0]);
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'host/cli/keys.ts', 'rotate-signing-key', '--json'], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: c.databaseUrl },
    });
    const { kid, retired_kid } = JSON.parse(stdout) as { kid: string; retired_kid: string };
    expect(retired_kid).toBe(old);
    // node 1 reloads every second: it signs with the new key soon
    let signed: any;
    for (let i = 0; i < 100; i++) {
      const r = await post(urls[0], '/v1/ask', smallAsk(1), key);
      signed = r.body.answers.q.verdicts[0];
      if (signed.signature.kid === kid) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    expect(signed.signature.kid).toBe(kid);
    // node 3 has not read the keys since it started: the unknown kid makes it reload, and it verifies
    const before = await jwks(urls[2]);
    expect(before).toEqual([old]);
    expect((await post(urls[2], '/v1/verify', signed)).body).toEqual({ status: 'valid' });
    expect(await jwks(urls[2])).toEqual([old, kid].sort());
    // and signs with it from then on; a Verdict of the retired key still verifies anywhere
    const after = await post(urls[2], '/v1/ask', smallAsk(1), key);
    expect(after.body.answers.q.verdicts[0].signature.kid).toBe(kid);
    const first = await post(urls[1], '/v1/ask', smallAsk(1), key); // node 2: still the old key (no reason to reload yet)
    expect(first.body.answers.q.verdicts[0].signature.kid).toBe(old);
    expect((await post(urls[0], '/v1/verify', first.body.answers.q.verdicts[0])).body).toEqual({ status: 'valid' });
  });

  it('runs the retention sweep once per period across the cluster, not once per node', async () => {
    const since = Date.now();
    await new Promise((r) => setTimeout(r, 5 * SWEEP_MS + 300));
    const runs = c.nodes
      .flatMap((n, i) =>
        n.logs.filter((l) => l.msg === 'retention sweep' && (l.time as number) >= since).map((l) => ({ node: i, at: l.time as number })),
      )
      .sort((a, b) => a.at - b.at);
    // about one a second between the three nodes; three nodes sweeping on their own would make ~15
    expect(runs.length).toBeGreaterThanOrEqual(3);
    expect(runs.length).toBeLessThanOrEqual(7);
    for (let i = 1; i < runs.length; i++) expect(runs[i].at - runs[i - 1].at).toBeGreaterThanOrEqual(0.9 * SWEEP_MS - 50);
  });

  it('costs HAProxy clients nothing when a node is killed with SIGKILL', async () => {
    await c.nodes[2].kill();
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await post(c.proxy!.url, '/v1/describe', {})).status);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    // the health check takes it out (3 failed checks 2 s apart); it never took a live node out
    const deadline = Date.now() + 20_000;
    while (!/node3 is DOWN/.test(c.proxy!.output()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(c.proxy!.output()).toMatch(/Server nodes\/node3 is DOWN/);
    expect(c.proxy!.output()).not.toMatch(/node[12] is DOWN/);
  });
});
