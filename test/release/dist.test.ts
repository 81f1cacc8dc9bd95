// The built service (`npm run build` -> dist/) as an operator runs it: from a tree that holds only dist/,
// package.json and the runtime packages (no tsx, no TypeScript, no esbuild, no asc within reach), started
// with the README's start command (`npm start`, which execs `node dist/main.js`). It answers an ask (fit
// workers and task threads run from dist/ too), serves the page's prebuilt script, and on SIGTERM hands the
// running task back and exits within the grace period.
import { spawn, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bigRows } from '../helpers/big-rows.ts';
import { ensureDist, ROOT } from '../helpers/dist.ts';
import { createLiveKey } from '../../host/runtime/keys.ts';
import { openSqliteStore } from '../../host/store/index.ts';

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const RUNTIME = new Set(Object.keys(pkg.dependencies));

function filesUnder(dir: string, pattern: RegExp): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => pattern.test(f));
}

/** The package a bare specifier names (`@scope/name/sub` -> `@scope/name`); null for relative and node: ones. */
function packageOf(spec: string): string | null {
  if (spec.startsWith('.') || spec.startsWith('node:') || spec.startsWith('/')) return null;
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** The top-level runtime packages of this checkout's node_modules (what `npm ci --omit=dev` installs). */
function runtimePackageDirs(): string[] {
  const out = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: ROOT, encoding: 'utf8' });
  const top = path.join(ROOT, 'node_modules') + path.sep;
  return out
    .split('\n')
    .filter((p) => p.startsWith(top) && !p.slice(top.length).includes(`${path.sep}node_modules${path.sep}`))
    .map((p) => p.slice(top.length));
}

let tree: string;

beforeAll(async () => {
  await ensureDist();
  tree = fs.mkdtempSync(path.join(os.tmpdir(), 'oq-dist-'));
  fs.cpSync(path.join(ROOT, 'dist'), path.join(tree, 'dist'), { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(tree, 'package.json'));
  for (const dir of runtimePackageDirs()) {
    fs.mkdirSync(path.dirname(path.join(tree, 'node_modules', dir)), { recursive: true });
    fs.symlinkSync(path.join(ROOT, 'node_modules', dir), path.join(tree, 'node_modules', dir));
  }
}, 180_000);

afterAll(() => {
  if (tree) fs.rmSync(tree, { recursive: true, force: true });
});

describe('dist/', () => {
  it('imports no build tool: every package it names is a runtime dependency', () => {
    const named = new Map<string, string>();
    for (const file of filesUnder(path.join(ROOT, 'dist'), /\.js$/)) {
      // The page's bundler, imported only when the service runs from source (host/web/serve.ts).
      if (file === path.join('host', 'web', 'bundle.js')) continue;
      const text = fs.readFileSync(path.join(ROOT, 'dist', file), 'utf8');
      for (const m of text.matchAll(
        /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*'([^']+)'|import\(\s*'([^']+)'\s*\)|^import\s*'([^']+)'/gm,
      )) {
        const p = packageOf(m[1] ?? m[2] ?? m[3]!);
        if (p) named.set(p, file);
      }
    }
    expect(named.size).toBeGreaterThan(5); // the scan sees imports at all
    expect([...named].filter(([p]) => !RUNTIME.has(p))).toEqual([]);
    // and the source mode's loader never reaches dist/: the thread entries there are the compiled modules
    expect(filesUnder(path.join(ROOT, 'dist'), /\.mjs$/)).toEqual([]);
  });

  it('serves with only runtime packages under npm start, and SIGTERM hands the task back and exits', async () => {
    const dataDir = path.join(tree, 'data');
    const store = await openSqliteStore(dataDir);
    const { key, record } = await createLiveKey(store, { workspaceName: 'dist', now: Date.now() });
    await store.close();

    const child: ChildProcess = spawn('npm', ['start'], {
      cwd: tree,
      env: { ...process.env, PORT: '0', DATA_DIR: dataDir, PENDING_WAIT_MS: '0', LOG_LEVEL: 'info', NODE_OPTIONS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (b) => (out += b));
    child.stderr!.on('data', (b) => (out += b));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      let url: string | undefined;
      for (let i = 0; i < 600 && !url; i++) {
        url = /"msg":"listening"/.test(out) ? /"url":"([^"]+)"/.exec(out)?.[1] : undefined;
        if (!url) await new Promise((r) => setTimeout(r, 100));
      }
      expect(url, out).toBeDefined();
      const post = async (p: string, body: unknown) => {
        const res = await fetch(url + p, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as any };
      };

      // A sample ask: a task thread reads the record, a fit worker fits, the service signs.
      const small = await post('/v1/ask', {
        data: { dataset_id: 'sample:saas_churn' },
        entity_column: 'customer_id',
        subject_kind: 'org',
        questions: { q: { type: 'yesno', outcome_column: 'churned' } },
        cases: { ids: ['cust_0001'] },
      });
      let answer = small;
      for (let i = 0; i < 600 && answer.status === 202; i++) {
        await new Promise((r) => setTimeout(r, 100));
        answer = await post('/v1/poll', { task_id: small.body.task_id });
      }
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.answers.q.state).toBeDefined();
      const wasm = fs.readFileSync(path.join(tree, 'dist/build/engine.wasm'));
      const { createHash } = await import('node:crypto');
      expect(answer.body.core_hash).toBe(createHash('sha256').update(wasm).digest('hex'));

      const page = await fetch(url + '/preview.js');
      expect(page.status).toBe(200);
      expect(Buffer.from(await page.arrayBuffer()).equals(fs.readFileSync(path.join(tree, 'dist/build/web/preview.js')))).toBe(true);
      expect((await fetch(url + '/docs')).status).toBe(200);

      // A long fit running when SIGTERM arrives: handed back (pending, unleased, not failed), exit 0.
      const pending = await post('/v1/ask', {
        data: { rows: bigRows() },
        entity_column: 'id',
        subject_kind: 'other',
        questions: { q: { type: 'yesno', outcome_column: 'y' } },
        cases: { ids: ['e1'] },
      });
      expect(pending.status).toBe(202);
      await new Promise((r) => setTimeout(r, 300));
      const sent = Date.now();
      child.kill('SIGTERM');
      const code = await exited;
      expect(code, out).toBe(0);
      // the 10 s grace period and the rest of close(); no drain first: SQLite is one node, SHUTDOWN_DRAIN_MS 0
      expect(Date.now() - sent).toBeLessThan(12_000);
      expect(out).toContain('"signal":"SIGTERM"');
      await expect(fetch(url + '/healthz')).rejects.toThrow();

      const after = await openSqliteStore(dataDir);
      try {
        const task = await after.getTask(record.workspace_id, pending.body.task_id);
        expect(task).toMatchObject({ lease_owner: null, lease_until: null, problem: null });
        expect(task!.status === 'pending' || task!.status === 'done').toBe(true);
      } finally {
        await after.close();
      }
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 120_000);
});
