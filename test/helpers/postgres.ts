// Test side of the throw-away PostgreSQL server (deploy/postgres.ts starts it): fresh databases and schemas on it.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { withDatabase } from '../../deploy/postgres.ts';

export { freePort, PG_BIN, postgresMissing, startPostgres, withDatabase, type PostgresServer } from '../../deploy/postgres.ts';

/** CREATE DATABASE with a random name (about 0.15 s: a copy of template1); returns its URL. */
export async function createDatabase(serverUrl: string, prefix = 't'): Promise<string> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return withDatabase(serverUrl, name);
}

/** A schema of its own in an existing database: the URL sets search_path, so a store there starts empty. */
export async function createSchema(databaseUrl: string, prefix = 's'): Promise<string> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA ${name}`);
  } finally {
    await admin.end();
  }
  const u = new URL(databaseUrl);
  u.searchParams.set('options', `-c search_path=${name}`);
  return u.toString();
}
