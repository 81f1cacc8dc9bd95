// Test side of the throw-away PostgreSQL server (deploy/postgres.ts starts it): fresh databases and schemas on it.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export {
  createDatabase,
  freePort,
  PG_BIN,
  postgresMissing,
  startPostgres,
  withDatabase,
  type PostgresServer,
} from '../../deploy/postgres.ts';

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
