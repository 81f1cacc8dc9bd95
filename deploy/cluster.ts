// `npm run cluster`: a local cluster for trying the multi-node mode (README "More than one machine"): a
// temporary PostgreSQL server from Debian's binaries, N nodes of the service (3 by default) on it, and
// HAProxy with deploy/haproxy.cfg in front on PORT (default 8787). Ctrl-C (or SIGTERM) stops it all and
// removes every file it made. Options: --nodes N, --keep (keep the data directory on exit).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { freePort, postgresMissing, startPostgres, withDatabase, type PostgresServer } from './postgres.ts';
import { haproxyMissing, startHaproxy, type RunningHaproxy } from './haproxy.ts';

const root = path.resolve(import.meta.dirname, '..');

interface Node {
  name: string;
  port: number;
  child: ChildProcess;
  exited: Promise<void>;
}

/** Starts one node (host/main.ts) and resolves when it logs 'listening'; its log lines go to `logFile`. */
function startNode(name: string, port: number, env: NodeJS.ProcessEnv, logFile: string): Promise<Node> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'host/main.ts'], {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = fs.createWriteStream(logFile, { flags: 'a' });
  child.stderr!.pipe(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let listening = false;
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      log.write(line + '\n');
      if (!listening && line.includes('"msg":"listening"')) {
        listening = true;
        resolve({ name, port, child, exited });
      }
    });
    void exited.then(() => {
      if (!listening) reject(new Error(`${name} exited before it listened; its log: ${logFile}`));
    });
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { nodes: { type: 'string', default: '3' }, keep: { type: 'boolean', default: false } } });
  const count = Number(values.nodes);
  if (!Number.isInteger(count) || count < 1 || count > 16) throw new Error('--nodes takes a whole number from 1 to 16');
  for (const missing of [postgresMissing(), haproxyMissing()]) if (missing) throw new Error(missing);
  const listen = process.env.PORT ? Number(process.env.PORT) : 8787;

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oq-cluster-'));
  let server: PostgresServer | undefined;
  const nodes: Node[] = [];
  let proxy: RunningHaproxy | undefined;
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await proxy?.stop();
      for (const n of nodes) n.child.kill('SIGTERM');
      await Promise.all(nodes.map((n) => n.exited));
      await (values.keep ? server?.stop() : server?.destroy());
      if (!values.keep) fs.rmSync(dir, { recursive: true, force: true });
    })());
  process.once('SIGINT', () => void stop().then(() => process.exit(0)));
  process.once('SIGTERM', () => void stop().then(() => process.exit(0)));

  try {
    console.log('starting PostgreSQL 15 ...');
    server = await startPostgres();
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    await admin.query('CREATE DATABASE outcome');
    await admin.end();
    const databaseUrl = withDatabase(server.url, 'outcome');
    const baseUrl = `http://localhost:${listen}`;
    console.log(`starting ${count} nodes ...`);
    for (let i = 1; i <= count; i++) {
      const name = `node${i}`;
      const dataDir = path.join(dir, name);
      fs.mkdirSync(dataDir, { recursive: true });
      // One after another: the first migrates the empty database and makes the signing key (nodes
      // starting together would also agree, but the log reads better this way).
      nodes.push(
        await startNode(
          name,
          await freePort(),
          {
            DATABASE_URL: databaseUrl,
            DATA_DIR: dataDir,
            BASE_URL: process.env.BASE_URL || baseUrl,
            TRUST_PROXY: '127.0.0.1',
            // PostgreSQL connections: 3 nodes x 5 stay far below the server's max_connections.
            DATABASE_POOL_SIZE: process.env.DATABASE_POOL_SIZE || '5',
          },
          path.join(dir, `${name}.log`),
        ),
      );
    }
    proxy = await startHaproxy(
      listen,
      nodes.map((n) => `127.0.0.1:${n.port}`),
    );
  } catch (err) {
    await stop();
    throw err;
  }
  const lines = [
    '',
    `Cluster up: ${proxy.url} (HAProxy, deploy/haproxy.cfg) in front of ${count} nodes on one PostgreSQL database.`,
    '',
    ...nodes.map((n) => `  ${n.name}: http://127.0.0.1:${n.port}  pid ${n.child.pid}  log ${path.join(dir, `${n.name}.log`)}`),
    `  PostgreSQL: ${withDatabase(server!.url, 'outcome')}  (data in ${server!.dir})`,
    '',
    'A live key:',
    `  DATABASE_URL=${withDatabase(server!.url, 'outcome')} npm run keys -- create --workspace demo`,
    `Try failover: kill -9 one node's pid; HAProxy sends its requests to the others, and a pending ask it`,
    'held is finished by another node once its lease (TASK_LEASE_MS, 15 s) runs out.',
    '',
    `Stop: Ctrl-C here (or kill ${process.pid}); everything under ${dir} is removed${values.keep ? ' (kept: --keep)' : ''}.`,
  ];
  console.log(lines.join('\n'));
  // A node that dies is reported; the cluster keeps serving on the others.
  for (const n of nodes) void n.exited.then(() => stopping || console.log(`${n.name} (pid ${n.child.pid}) exited`));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
