// The shell snippets of README.md and docs/guides/ run as printed against a real service: every `sh` block
// that talks to localhost:8787 with a key of `$KEY` and names nothing a reader must fill in first (no `...`,
// no `<placeholder>`, no other host, no live key or token) is run by bash with the service's address in
// place of localhost:8787, after a test key is put in KEY (as "Try it" does). Every HTTP call it makes must
// answer 2xx. The line that installs and starts the service is the one thing not run: the suite starts it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, tempDir, type TestService } from '../helpers/service.ts';

const root = path.resolve(import.meta.dirname, '../..');
const START_LINE = 'npm ci && npm run build && npm start &';

interface Snippet {
  file: string;
  line: number;
  code: string;
}

/** Every ```sh block of README.md and docs/guides/*.md, with its file and first line. */
function shellBlocks(): Snippet[] {
  const guides = fs.readdirSync(path.join(root, 'docs', 'guides')).filter((f) => f.endsWith('.md'));
  const files = ['README.md', ...guides.sort().map((f) => `docs/guides/${f}`)];
  return files.flatMap((file) => {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    return [...text.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) => ({
      file,
      line: text.slice(0, m.index).split('\n').length,
      code: m[1],
    }));
  });
}

/** What a reader must fill in, or what this suite cannot reach; a block with any of it is not run. */
function notRunnable(code: string): string | null {
  const lines = code.split('\n').filter((l) => l.trim() !== START_LINE && !l.trim().startsWith('#'));
  const body = lines.map((l) => l.replace(/\s+#.*$/, '')).join('\n');
  if (!body.includes('localhost:8787')) return 'does not call the service';
  if (/\.\.\.|<[a-z_ ]+>|mp_|sc_|ds_|mr1_/.test(body)) return 'has a value to fill in';
  if (/\$(LIVE_KEY|TOKEN|METRICS_TOKEN)\b|https:\/\//.test(body)) return 'needs a live key, a token or another host';
  if (/^\s*(systemctl|tar|useradd|pg_dump|pg_restore)\b/m.test(body)) return 'operates a server';
  if (/^\s*(npm|npx|haproxy|[A-Z_]+=\S+ (npm|haproxy))\b/m.test(body)) return 'starts something';
  return null;
}

let svc: TestService;
let dir: string;
const blocks = shellBlocks();
const runnable = blocks.filter((b) => notRunnable(b.code) === null);

beforeAll(async () => {
  svc = await startTestService();
  dir = tempDir('oq-snippets-');
});
afterAll(() => svc?.close());

/** Runs a snippet in bash (asynchronously: the service answers from this process's event loop). */
async function run(snippet: Snippet): Promise<{ statuses: number[]; stdout: string }> {
  const heads = fs.mkdtempSync(path.join(dir, 'h-'));
  const host = new URL(svc.url).host;
  const code = snippet.code
    .split('\n')
    .filter((l) => l.trim() !== START_LINE)
    .join('\n')
    .replaceAll('localhost:8787', host);
  // Each curl also writes its response headers to a file of its own, so every status can be checked
  // without changing what the snippet's pipes read.
  const prelude = [
    'set -e',
    `curl() { command curl -D "$(mktemp -p '${heads}')" "$@"; }`,
    `KEY=$(command curl -s -X POST '${svc.url}/v1/agents/register' | node -pe 'JSON.parse(require("fs").readFileSync(0)).api_key')`,
  ].join('\n');
  const r = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn('bash', ['-c', `${prelude}\n${code}`], { timeout: 120_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
  const statuses = fs
    .readdirSync(heads)
    .flatMap((f) => fs.readFileSync(path.join(heads, f), 'utf8').match(/^HTTP\/[\d.]+ (\d{3})/gm) ?? [])
    .map((s) => Number(s.split(' ')[1]));
  if (r.status !== 0) throw new Error(`bash exited ${r.status}: ${r.stderr}\n${r.stdout}`);
  return { statuses, stdout: r.stdout };
}

describe('shell snippets of the README and the guides', () => {
  it('finds the runnable ones where they live', () => {
    const where = new Set(runnable.map((b) => b.file));
    for (const file of ['README.md', 'docs/guides/try-it.md', 'docs/guides/map-your-tables.md']) expect(where).toContain(file);
  });

  for (const b of runnable) {
    it(`${b.file}:${b.line} runs as printed, every call 2xx`, { timeout: 180_000 }, async () => {
      const { statuses, stdout } = await run(b);
      const calls = b.code
        .split('\n')
        .filter((l) => !l.trim().startsWith('#'))
        .join('\n')
        .match(/\bcurl\b/g)!.length;
      expect(statuses.length, stdout).toBeGreaterThanOrEqual(calls);
      expect(
        statuses.filter((s) => s < 200 || s > 299),
        stdout.slice(0, 2000),
      ).toEqual([]);
    });
  }
});
