// `npm run cluster`: a local cluster for trying the multi-node mode (docs/guides/more-than-one-machine.md): a
// temporary PostgreSQL server from Debian's binaries, N nodes of the service (3 by default) on it, and
// HAProxy with deploy/haproxy.cfg in front on PORT (default 8787). Ctrl-C (or SIGTERM) stops it all and
// removes every file it made. Options: --nodes N, --keep (keep the data directory on exit).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { postgresMissing, startPostgres, withDatabase, type PostgresServer } from './postgres.ts';
import { haproxyMissing, startHaproxy, type RunningHaproxy } from './haproxy.ts';
import { startNode, type RunningNode } from './node.ts';

interface Node extends RunningNode {
  name: string;
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
      await Promise.all(nodes.map((n) => n.stop()));
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
      const node = await startNode(
        {
          DATABASE_URL: databaseUrl,
          DATA_DIR: dataDir,
          BASE_URL: process.env.BASE_URL || baseUrl,
          TRUST_PROXY: '127.0.0.1',
          // PostgreSQL connections: 3 nodes x 5 stay far below the server's max_connections.
          DATABASE_POOL_SIZE: process.env.DATABASE_POOL_SIZE || '5',
        },
        path.join(dir, `${name}.log`),
      );
      nodes.push({ ...node, name });
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
