// vitest global setup: make sure build/engine.wasm is current, so every suite runs the real engine, and start
// one real PostgreSQL 15 server for the whole run (its URL goes to test files through provide/inject).
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildWasm, wasmIsStale } from '../host/cli/build.ts';
import { postgresMissing, startPostgres } from './helpers/postgres.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** postgres:// URL of this run's server, or '' when it could not be started (then postgresError says why). */
    postgresUrl: string;
    postgresError: string;
  }
}

const root = path.resolve(import.meta.dirname, '..');

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (wasmIsStale()) buildWasm();
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
  // A run stopped with Ctrl-C (or SIGTERM) skips the teardown below: the server and its folder go here, at
  // once and synchronously. Then the signal does what it would have done (vitest's own handler, if any,
  // runs beside this one; with none, it is raised again with no handler, so the process ends by it).
  const onSignal = (signal: NodeJS.Signals) => {
    const s = server;
    server = undefined;
    s?.destroySync();
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return async () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await server?.destroy();
  };
}
