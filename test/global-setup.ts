// vitest global setup: make sure build/engine.wasm is current, so every suite runs the real engine, and start
// one real PostgreSQL 15 server for the whole run (its URL goes to test files through provide/inject).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { postgresMissing, startPostgres } from './helpers/postgres.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** postgres:// URL of this run's server, or '' when it could not be started (then postgresError says why). */
    postgresUrl: string;
    postgresError: string;
  }
}

const root = path.resolve(import.meta.dirname, '..');

function wasmIsStale(): boolean {
  const wasm = path.join(root, 'build/engine.wasm');
  if (!existsSync(wasm)) return true;
  const built = statSync(wasm).mtimeMs;
  const sources = readdirSync(path.join(root, 'assembly')).map((f) => path.join(root, 'assembly', f));
  return [...sources, path.join(root, 'asconfig.json')].some((f) => statSync(f).mtimeMs > built);
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (wasmIsStale()) {
    execFileSync('npx', ['asc', '--config', 'asconfig.json', '--target', 'release'], { cwd: root, stdio: 'inherit' });
  }
  // Missing binaries or a failed start do not stop the run: every PostgreSQL test then fails with this
  // message (test/helpers/postgres.ts), while the rest of the suite still runs.
  const missing = postgresMissing();
  let server: Awaited<ReturnType<typeof startPostgres>> | undefined;
  let error = missing ?? '';
  if (!missing) {
    try {
      server = await startPostgres();
    } catch (err) {
      error = `the test PostgreSQL server did not start: ${(err as Error).message}`;
    }
  }
  project.provide('postgresUrl', server?.url ?? '');
  project.provide('postgresError', error);
  return async () => {
    await server?.destroy();
  };
}
