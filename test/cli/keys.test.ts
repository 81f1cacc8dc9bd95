// The operator key CLI (docs/reference/auth.md): create, list and revoke against the real store.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runKeysCli } from '../../host/cli/keys.ts';
import { hashApiKey } from '../../host/runtime/keys.ts';
import { getSample } from '../../samples/catalog.ts';
import { call, expectProblem, startTestService, type TestService } from '../http/helpers.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc?.close());

async function cli(...argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runKeysCli(argv, svc.services.store, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

const askRows = {
  ...getSample('saas_churn')!.try,
  data: { rows: [{ customer_id: 'a', churned: 'yes' }] },
};

describe('npm run keys', () => {
  it('create prints a live key once; only its hash is stored', async () => {
    const r = await cli('create', '--workspace', 'acme');
    expect(r.code).toBe(0);
    const key = r.out.join('\n').match(/svck_live_[0-9a-z]{32}/)?.[0];
    expect(key).toBeDefined();
    const rec = await svc.services.store.findApiKeyByHash(hashApiKey(key!));
    expect(rec).toMatchObject({ mode: 'live', scopes: [], revoked_at: null });
    // A live key passes the test-key check on inline data (docs/reference/auth.md#test-keys).
    const ask = await call(svc.url, '/v1/ask', askRows, { key });
    expect(ask.res.status).not.toBe(401);
    expect(ask.res.status).not.toBe(403);
  });

  it('create --can-report-outcomes grants write:outcomes, in the same workspace by name', async () => {
    const a = JSON.parse((await cli('create', '--workspace', 'acme', '--json')).out[0]);
    const b = JSON.parse((await cli('create', '--workspace', 'acme', '--can-report-outcomes', '--json')).out[0]);
    expect(a.scopes).toEqual([]);
    expect(b.scopes).toEqual(['write:outcomes']);
    expect(b.workspace_id).toBe(a.workspace_id);
    const other = JSON.parse((await cli('create', '--workspace', 'globex', '--json')).out[0]);
    expect(other.workspace_id).not.toBe(a.workspace_id);
  });

  it('list shows keys by workspace without the keys or their hashes', async () => {
    const r = await cli('list', '--workspace', 'acme', '--json');
    const keys = JSON.parse(r.out[0]);
    expect(keys.length).toBe(3);
    for (const k of keys) {
      expect(k.workspace).toBe('acme');
      expect(k.prefix).toMatch(/^svck_live_.{4}$/);
      expect(k).not.toHaveProperty('key_hash');
    }
    const all = JSON.parse((await cli('list', '--json')).out[0]);
    expect(all.map((k: any) => k.workspace)).toContain('globex');
    expect((await cli('list', '--workspace', 'nobody')).out).toEqual(['No keys.']);
  });

  it('revoke makes the key answer 401 at once', async () => {
    const made = JSON.parse((await cli('create', '--workspace', 'initech', '--json')).out[0]);
    const ask = getSample('saas_churn')!.try;
    expect((await call(svc.url, '/v1/ask', ask, { key: made.api_key })).res.status).toBe(200);
    const r = await cli('revoke', made.key_id);
    expect(r.code).toBe(0);
    expectProblem(await call(svc.url, '/v1/ask', ask, { key: made.api_key }), 401, 'unauthorized');
    const listed = JSON.parse((await cli('list', '--workspace', 'initech', '--json')).out[0]);
    expect(listed[0].revoked_at).not.toBeNull();
    expect((await cli('revoke', made.key_id)).code).toBe(1);
  });

  it('bad usage exits 2 with the usage text', async () => {
    for (const argv of [[], ['create'], ['revoke'], ['frobnicate'], ['list', '--bogus']]) {
      const r = await cli(...argv);
      expect(r.code).toBe(2);
      expect(r.err.join('\n')).toContain('usage: node dist/cli/keys.js');
    }
  });

  it('--help, -h and help print the usage on stdout and exit 0; the command line opens no store for it', async () => {
    for (const argv of [['--help'], ['-h'], ['help'], ['create', '--help']]) {
      const r = await cli(...argv);
      expect(r.code).toBe(0);
      expect(r.err).toEqual([]);
      expect(r.out.join('\n')).toContain('usage: node dist/cli/keys.js');
    }
    const dataDir = path.join(os.tmpdir(), `oq-keys-help-${process.pid}`);
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'host/cli/keys.ts', '--help'], {
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
      encoding: 'utf8',
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('usage: node dist/cli/keys.js');
    expect(run.stderr).toBe('');
    expect(fs.existsSync(dataDir)).toBe(false);
  });

  it('rotate-signing-key makes a new signing key in the store; the running service verifies it at once and signs with it after a reload', async () => {
    const old = svc.services.keyRing.activeKid;
    const r = await cli('rotate-signing-key', '--json');
    expect(r.code).toBe(0);
    const { kid, retired_kid } = JSON.parse(r.out[0]);
    expect(retired_kid).toBe(old);
    expect(kid).not.toBe(old);
    const stored = await svc.services.store.loadKeys();
    expect(stored.find((k) => k.kid === old)?.retired_at).not.toBeNull();
    expect(stored.find((k) => k.kid === kid)?.retired_at).toBeNull();
    // the service has not read it yet; a Verdict naming it makes it look
    expect(svc.services.keyRing.activeKid).toBe(old);
    expect(await svc.services.keyRing.findPublicKey(kid)).toBeDefined();
    expect(svc.services.keyRing.activeKid).toBe(kid);
  });
});
