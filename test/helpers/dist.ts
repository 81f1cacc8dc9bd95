// The built service (dist/) for the tests that run it as an operator does (test/release/). CI builds it
// before the tests; a checkout whose dist/ is missing or older than its sources builds it here, once for
// all test files at a time (a lock directory: files run in parallel, and a build replaces dist/ whole).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Newest modification time under `dir`. */
function newest(dir: string): number {
  let t = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(full) : fs.statSync(full).mtimeMs);
  }
  return t;
}

function stale(): boolean {
  const built = path.join(ROOT, 'dist', 'main.js');
  const sources = Math.max(...['host', 'assembly', 'docs', 'samples'].map((d) => newest(path.join(ROOT, d))));
  return !fs.existsSync(built) || fs.statSync(built).mtimeMs < sources;
}

/** Makes sure dist/ is built from the current sources. */
export async function ensureDist(): Promise<void> {
  const lock = path.join(ROOT, 'test-artifacts', 'dist-build.lock');
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  for (let i = 0; ; i++) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      // another file is building (a lock older than 5 minutes is a crashed run's)
      if (Date.now() - fs.statSync(lock, { throwIfNoEntry: false })!.mtimeMs > 300_000) fs.rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    if (stale())
      execFileSync(process.execPath, [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'host/cli/build.ts'], {
        cwd: ROOT,
        stdio: 'inherit',
      });
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}
