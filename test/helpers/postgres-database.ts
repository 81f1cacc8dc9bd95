// Test files' side of the run's PostgreSQL server (test/global-setup.ts): one database per test file, a schema per store.
import { inject } from 'vitest';
import { createDatabase, createSchema } from './postgres.ts';

/** The run's server URL; throws (failing the test, never skipping it) when there is no server. */
export function postgresServerUrl(): string {
  const url = inject('postgresUrl');
  if (!url) throw new Error(inject('postgresError') || 'no PostgreSQL server was started for this run (test/global-setup.ts)');
  return url;
}

let database: Promise<string> | undefined;

/** This test file's own database (created on first use, about 0.15 s), so files running in parallel never meet. */
export function fileDatabase(): Promise<string> {
  database ??= createDatabase(postgresServerUrl(), 'file');
  return database;
}

/** An empty schema in this file's database: a URL for a store that starts empty, like a fresh SQLite dir. */
export async function freshSchema(): Promise<string> {
  return createSchema(await fileDatabase());
}
