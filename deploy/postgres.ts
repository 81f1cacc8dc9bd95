// A throw-away PostgreSQL 15 server from Debian's binaries (initdb + pg_ctl into a temp dir; as root, run as
// the `postgres` user through runuser): the test run's server, `npm run cluster` and the benchmarks use it.
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** Debian's PostgreSQL 15 (CI installs the `postgresql` package; .ci/run does it when missing). */
export const PG_BIN = process.env.PG_BIN || '/usr/lib/postgresql/15/bin';

/** Why no server can be started here, or null when the binaries are present. */
export function postgresMissing(): string | null {
  for (const tool of ['initdb', 'pg_ctl']) {
    if (!fs.existsSync(path.join(PG_BIN, tool))) {
      return (
        `PostgreSQL 15 is not installed: ${path.join(PG_BIN, tool)} is missing. The PostgreSQL store (its tests, npm run cluster) needs a real server: ` +
        'install it with `apt-get install -y --no-install-recommends postgresql` (or set PG_BIN to the directory holding initdb and pg_ctl)'
      );
    }
  }
  return null;
}

export interface PostgresServer {
  /** postgres://app@127.0.0.1:PORT/postgres (trust auth: any password is accepted). */
  url: string;
  port: number;
  dir: string;
  /** pg_ctl stop: 'fast' closes connections with 57P01; 'immediate' quits at once, as if the server crashed. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** pg_ctl start again on the same port and data directory. */
  start(): Promise<void>;
  /** Stops the server and removes its directory. */
  destroy(): Promise<void>;
  /** The same, synchronously: for a signal handler, where nothing asynchronous may be waited for. */
  destroySync(): void;
}

// PostgreSQL refuses to run as root: then every server command runs as the `postgres` user.
const asRoot = process.getuid?.() === 0;

async function pgTool(tool: string, args: string[]): Promise<string> {
  const file = path.join(PG_BIN, tool);
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
  try {
    const { stdout } = await run(cmd, argv, { env: { ...process.env, LC_ALL: 'C.UTF-8' } });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`${tool} ${args.join(' ')} failed: ${e.stderr?.trim() || e.message}`);
  }
}

/** A loopback port nothing listens on (at the moment of asking). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** initdb into a fresh temp dir and start on a free loopback port; unix socket in the same dir. */
export async function startPostgres(): Promise<PostgresServer> {
  const missing = postgresMissing();
  if (missing) throw new Error(missing);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-test-'));
  const data = path.join(dir, 'data');
  fs.mkdirSync(data, { mode: 0o700 });
  if (asRoot) {
    const { uid, gid } = await postgresUser();
    fs.chownSync(dir, uid, gid);
    fs.chownSync(data, uid, gid);
  }
  await pgTool('initdb', ['-D', data, '-U', 'app', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C.UTF-8', '--no-instructions']);
  let port = 0;
  const start = async () => {
    // fsync off: a test server never has to survive a power cut (a crash of the server itself loses
    // nothing: the WAL is written at each commit, only not flushed to disk).
    const opts = [
      `-p ${port}`,
      `-k ${dir}`,
      '-c listen_addresses=127.0.0.1',
      '-c fsync=off',
      '-c full_page_writes=off',
      '-c max_connections=300',
    ].join(' ');
    await pgTool('pg_ctl', ['-w', '-D', data, '-l', path.join(dir, 'server.log'), '-o', opts, 'start']);
  };
  // The free port can be taken between probing and binding: try a few.
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    try {
      await start();
      break;
    } catch (err) {
      if (attempt >= 3) {
        fs.rmSync(dir, { recursive: true, force: true });
        throw err;
      }
    }
  }
  const stop = (mode: 'fast' | 'immediate' = 'fast') => pgTool('pg_ctl', ['-w', '-D', data, '-m', mode, 'stop']).then(() => undefined);
  return {
    url: `postgres://app@127.0.0.1:${port}/postgres`,
    port,
    dir,
    stop,
    start,
    async destroy() {
      await pgTool('pg_ctl', ['-w', '-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
    destroySync() {
      const file = path.join(PG_BIN, 'pg_ctl');
      const args = ['-w', '-D', data, '-m', 'immediate', 'stop'];
      try {
        execFileSync(asRoot ? 'runuser' : file, asRoot ? ['-u', 'postgres', '--', file, ...args] : args, { stdio: 'ignore' });
      } catch {
        // already stopped
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const { stdout } = await run('id', ['postgres']);
  const uid = Number(/uid=(\d+)/.exec(stdout)?.[1]);
  const gid = Number(/gid=(\d+)/.exec(stdout)?.[1]);
  if (!Number.isInteger(uid) || !Number.isInteger(gid)) throw new Error(`cannot read the postgres user's ids from: ${stdout}`);
  return { uid, gid };
}

/** The same server URL pointing at another database. */
export function withDatabase(serverUrl: string, database: string): string {
  const u = new URL(serverUrl);
  u.pathname = `/${database}`;
  return u.toString();
}

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
