// The one entry: config from env, logger, store, signing keys, engine, fit pool, createApp, serve.
// `startService` does the same for tests (port 0, a temp DATA_DIR) and hands back a close().
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { pathToFileURL } from 'node:url';
import { buildWasm, wasmIsStale } from './cli/build.ts';
import { serve } from '@hono/node-server';
import { pino, type Logger } from 'pino';
import { createApp } from './app.ts';
import { openStore, StoreError } from './store/index.ts';
import { KeyRing } from './signing/index.ts';
import { FitPool, loadEngine } from './engine/index.ts';
import { startSweeper } from './operations/datasets/sweeper.ts';
import type { Services } from './services.ts';
import { ConfigError, resolveConfig, withListeningPort, type Config } from './config.ts';
import { TaskRunner } from './operations/tasks.ts';
import { LeaseKeeper } from './operations/leases.ts';
import { RateLimits } from './operations/rate-limits.ts';
import { TaskEventHub } from './operations/events/hub.ts';
import { FitCache } from './operations/ask/fits.ts';
import { RecordCache } from './operations/datasets/read.ts';
import { StoredAnswerCache } from './operations/stored-answers.ts';
import { OPERATIONS, taskExecutorsOf } from './operations/index.ts';
import { UsageMeter } from './operations/usage-meter.ts';
import { DatabaseClock } from './operations/clock.ts';
import { loadTokenSecrets } from './operations/hmac-token.ts';

/** Idle keep-alive lifetime of a connection (see where the server is made). */
const KEEP_ALIVE_MS = 65_000;

export interface StartOptions {
  log?: Logger;
  now?: () => number;
  /** Interface to bind; default all. */
  hostname?: string;
  env?: NodeJS.ProcessEnv;
}

export interface RunningService {
  /** Where the server listens, e.g. http://127.0.0.1:39123. */
  url: string;
  services: Services;
  server: Server;
  /** Stops accepting, gives in-flight requests `graceMs` (default 0), drops the rest, closes pool and store. */
  close(graceMs?: number): Promise<void>;
}

export async function startService(overrides: Partial<Config> = {}, opts: StartOptions = {}): Promise<RunningService> {
  const env = opts.env ?? process.env;
  const config = resolveConfig(env, overrides);
  const log = opts.log ?? pino({ level: config.logLevel });

  fs.mkdirSync(config.dataDir, { recursive: true });
  const store = await openStore({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    poolSize: config.databasePoolSize,
    now: opts.now,
  });
  let pool: FitPool | undefined;
  let clock: DatabaseClock | undefined;
  let keyRing: KeyRing | undefined;
  try {
    // Nodes sharing a PostgreSQL store keep time by its clock (leases written on one node are judged on
    // another); a test's injected clock is left as it is.
    clock = opts.now ? undefined : await DatabaseClock.start(store, log);
    const now = opts.now ?? clock!.now;
    // Signing keys are made on first start and kept in the store (architecture.md "Runtime pieces"), and
    // read again now and then, so a key rotated on another node is signed with here too.
    keyRing = await KeyRing.open(store, { now });
    keyRing.startRefresh(config.signingKeyReloadMs, (err) => log.warn({ err }, 'reloading the signing keys'));
    const secrets = await loadTokenSecrets(store, config.dataDir, now());
    const engine = await loadEngine();
    pool = new FitPool(config.fitWorkers);
    const usage = new UsageMeter(store, (err) => log.error({ err }, 'writing the usage ledger'));
    // The service's lifecycle objects: made here, closed in close() below, never module globals.
    const services: Services = {
      config,
      store,
      keyRing,
      engine,
      pool,
      log,
      now,
      secrets,
      usage,
      leases: new LeaseKeeper(config.taskLeaseMs, log),
      tasks: new TaskRunner(taskExecutorsOf(OPERATIONS)),
      limits: new RateLimits(config, now, store),
      events: new TaskEventHub(now),
      fitCache: new FitCache(),
      records: new RecordCache(),
      storedAnswers: new StoredAnswerCache(),
    };
    const app = createApp(services, OPERATIONS);

    const server = await new Promise<Server>((resolve, reject) => {
      const s = serve({ fetch: app.fetch, port: config.port, hostname: opts.hostname }) as Server;
      s.once('listening', () => resolve(s));
      s.once('error', reject);
    });
    // Idle keep-alive connections stay open longer than any client or load balancer keeps them (HAProxy's
    // and undici's defaults are shorter), so the server is never the side that closes a connection just as
    // a client sends on it (a reset the client cannot retry for a POST).
    server.keepAliveTimeout = KEEP_ALIVE_MS;
    server.headersTimeout = KEEP_ALIVE_MS + 1000;
    const { port } = server.address() as AddressInfo;
    const host = !opts.hostname || opts.hostname === '0.0.0.0' || opts.hostname === '::' ? 'localhost' : opts.hostname;
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    withListeningPort(config, env, overrides, port, url);

    const stopSweeper = startSweeper(services, config.sweepEveryMs);
    // Tasks left unfinished by a stopped process are claimed again and finished (spec 3.2).
    services.tasks.start(services);

    let closing: Promise<void> | undefined;
    const close = (graceMs = 0) =>
      (closing ??= (async () => {
        stopSweeper();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        // In-flight requests get graceMs to finish; then every connection is dropped (tests pass 0).
        if (graceMs > 0) await Promise.race([closed, new Promise((r) => setTimeout(r, graceMs).unref())]);
        server.closeAllConnections();
        await closed;
        // Before the pool goes: tasks and in-flight idempotent calls still running are handed back
        // (leases released), so the fits the pool is about to kill are not recorded as failures and
        // another process takes them over at once (spec 3.2).
        services.tasks.stop();
        await services.leases.stop();
        await pool!.close();
        await usage.close();
        keyRing!.stopRefresh();
        clock?.stop();
        await store.close();
      })());
    log.info({ url, data_dir: config.dataDir, base_url: config.baseUrl }, 'listening');
    return { url, services, server, close };
  } catch (err) {
    keyRing?.stopRefresh();
    clock?.stop();
    await pool?.close();
    await store.close();
    throw err;
  }
}

async function main(): Promise<void> {
  // `npm start`: build the engine only when its sources changed (host/cli/build.ts); the page's script is
  // bundled by the server itself on first request (host/web/serve.ts).
  if (wasmIsStale()) buildWasm();
  const running = await startService();
  const log = running.services.log;
  const stop = (signal: string) => {
    log.info({ signal }, 'shutting down');
    running.close(10_000).then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((err: unknown) => {
    // A bad setting is the operator's to fix: say which, without a stack trace.
    console.error(err instanceof ConfigError ? `configuration error: ${err.message}` : err instanceof StoreError ? err.message : err);
    process.exit(1);
  });
}
