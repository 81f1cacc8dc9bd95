// The one entry: config from env, logger, the services (host/runtime/services-open.ts), task threads, createApp, serve.
// `startService` does the same for tests (port 0, a temp DATA_DIR) and hands back a close().
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server, ServerOptions, ServerResponse } from 'node:http';
import { pathToFileURL } from 'node:url';
import { serve } from '@hono/node-server';
import { pino, type Logger } from 'pino';
import { createApp } from './app.ts';
import { StoreError } from './store/index.ts';
import { FitPool } from './engine/index.ts';
import { startSweeper } from './runtime/sweeper.ts';
import { startScheduler } from './operations/schedules/dispatch.ts';
import type { Services } from './runtime/services.ts';
import { ConfigError, memoryBoundMb, resolveConfig, withListeningPort, type Config } from './config.ts';
import { OPERATIONS } from './operations/index.ts';
import { openServices } from './runtime/services-open.ts';
import { TaskThreads } from './runtime/task-threads.ts';
import { answerClientErrors } from './http/client-errors.ts';
import { RUNNING_BUILT } from './lib/built.ts';
import { CONNECTION_TIMEOUTS, type ConnectionTimeouts } from './http/connection-timeouts.ts';

/**
 * Cells of sealed datasets the request thread keeps parsed: it reads only records small enough to read
 * there (operations/ask/record.ts), so a few dozen of those.
 */
const REQUEST_THREAD_RECORD_CELLS = 2_000_000;

/**
 * What each task thread runs: the thread body with the operation table's task executors. Built (dist/),
 * the compiled module itself; from source, an entry that first registers the TypeScript loader in the thread.
 */
const TASK_THREAD_ENTRY = RUNNING_BUILT
  ? new URL('./task-thread-main.js', import.meta.url)
  : new URL('./task-thread-entry.mjs', import.meta.url);

/** A busy port is the operator's to fix (docs/guides/configuration.md): one line naming PORT, no stack trace. */
function portInUse(port: number): ConfigError {
  const other = port >= 65_535 ? port - 1 : port + 1;
  return new ConfigError(`port ${port} is already in use by another program; set PORT to a free one (e.g. PORT=${other} npm start)`);
}

export interface StartOptions {
  log?: Logger;
  now?: () => number;
  /** Interface to bind; default all. */
  hostname?: string;
  env?: NodeJS.ProcessEnv;
  /** The connection timeouts (host/http/connection-timeouts.ts); tests shorten them to watch them fire. */
  connectionTimeouts?: ConnectionTimeouts;
}

export interface RunningService {
  /** Where the server listens, e.g. http://127.0.0.1:39123. */
  url: string;
  services: Services;
  server: Server;
  /** Settles once the threads WARM_THREADS starts at boot are ready (at once when it is off). */
  warmed: Promise<void>;
  /** Threads of this process now: task threads started so far and alive, and fit workers alive. */
  threadCounts(): { taskThreadsStarted: number; taskThreads: number; fitWorkers: number };
  /**
   * Drains for `drainMs` (default 0: still serving, health checks answering 503, replies closing their
   * connections), then stops accepting, gives in-flight requests `graceMs` (default 0), drops the rest,
   * closes threads and store. Called again with no drainMs while draining, it ends the drain at once.
   */
  close(graceMs?: number, drainMs?: number): Promise<void>;
}

export async function startService(overrides: Partial<Config> = {}, opts: StartOptions = {}): Promise<RunningService> {
  const env = opts.env ?? process.env;
  const config = resolveConfig(env, overrides);
  const log = opts.log ?? pino({ level: config.logLevel });

  // The task threads (the fits, and reading large records) are this process's TaskHost; they open their
  // own services on the same store when first needed.
  const pool = new FitPool(config.fitWorkers, config.backgroundNice);
  const threads = new TaskThreads(config, log, pool, TASK_THREAD_ENTRY, opts.now !== undefined);
  const opened = await openServices(config, {
    log,
    now: opts.now,
    pool,
    taskHost: threads,
    recordCacheCells: REQUEST_THREAD_RECORD_CELLS,
    usageFlushMs: 1000,
  });
  const { services } = opened;
  pool.onFit = (seconds, outcome) => services.metrics.fitSeconds.observe({ outcome }, seconds);
  try {
    const app = createApp(services, OPERATIONS);
    const timeouts = opts.connectionTimeouts ?? CONNECTION_TIMEOUTS;

    const server = await new Promise<Server>((resolve, reject) => {
      const s = serve({ fetch: app.fetch, port: config.port, hostname: opts.hostname, serverOptions: serverOptionsOf(timeouts) }) as Server;
      s.once('listening', () => resolve(s));
      s.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'EADDRINUSE' ? portInUse(config.port) : err));
    });
    answerClientErrors(server, () => config.baseUrl);
    const { port } = server.address() as AddressInfo;
    const host = !opts.hostname || opts.hostname === '0.0.0.0' || opts.hostname === '::' ? 'localhost' : opts.hostname;
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    withListeningPort(config, env, overrides, port, url);

    // The first ask need not wait about a second for a task thread and the fit workers to start.
    const warmed = config.warmThreads ? Promise.all([pool.warm(), threads.warm()]).then(() => undefined) : Promise.resolve();
    const stopSweeper = startSweeper(services, config.sweepEveryMs);
    // Tasks left unfinished by a stopped process are claimed again and finished (docs/reference/tasks.md#pending).
    services.tasks.start(services);
    // docs/reference/schedules.md#runs: scheduled runs due now (a period missed while down runs once) and every tick after
    const stopScheduler = startScheduler(services, config.scheduleTickMs);

    // While the process drains (host/runtime/drain.ts) every reply says `Connection: close`: the client or
    // balancer ends that connection itself after the reply, so none is left idle for close() to cut just as
    // a request is sent on it. Set before the app writes its headers, which keep it unless they name their own.
    server.prependListener('request', (_req, res: ServerResponse) => {
      if (services.drain.draining) res.setHeader('connection', 'close');
    });

    let closing: Promise<void> | undefined;
    let endDrain: (() => void) | undefined;
    const close = (graceMs = 0, drainMs = 0) => {
      // A second close (a second Ctrl-C) while draining ends the drain now.
      if (closing && drainMs === 0) endDrain?.();
      return (closing ??= (async () => {
        stopSweeper();
        stopScheduler();
        services.drain.begin();
        if (drainMs > 0) {
          // Still listening and serving: /readyz and /healthz answer 503 so the balancer stops sending here
          // (docs/guides/operating.md#stopping-a-node).
          log.info({ drain_ms: drainMs }, 'draining');
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, drainMs);
            endDrain = () => (clearTimeout(timer), resolve());
          });
        }
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        // In-flight requests get graceMs to finish; then every connection is dropped (tests pass 0).
        if (graceMs > 0) await Promise.race([closed, new Promise((r) => setTimeout(r, graceMs).unref())]);
        server.closeAllConnections();
        await closed;
        // Before the threads go: tasks and in-flight idempotent calls still running are handed back
        // (leases released), so the tasks the threads are about to drop are not recorded as failures and
        // another process takes them over at once (docs/reference/tasks.md#pending).
        services.tasks.stop();
        await services.leases.stop();
        await threads.close();
        await opened.close();
        await pool.close();
      })());
    };
    log.info({ url, data_dir: config.dataDir, base_url: config.baseUrl, memory_bound_mb: memoryBoundMb(config) }, 'listening');
    const threadCounts = () => {
      const t = threads.counts();
      return { taskThreadsStarted: t.started, taskThreads: t.live, fitWorkers: pool.workers };
    };
    return { url, services, server, warmed, threadCounts, close };
  } catch (err) {
    await threads.close();
    await opened.close();
    await pool.close();
    throw err;
  }
}

/** The node:http options that set the connection timeouts, each chosen in host/http/connection-timeouts.ts. */
function serverOptionsOf(t: ConnectionTimeouts): ServerOptions {
  return {
    keepAliveTimeout: t.keepAliveMs,
    headersTimeout: t.headersMs,
    requestTimeout: t.requestMs,
    connectionsCheckingInterval: t.checkEveryMs,
  };
}

/** What calls still running when a stopped node closes get to finish (docs/guides/operating.md#stopping-a-node). */
const IN_FLIGHT_GRACE_MS = 10_000;

async function main(): Promise<void> {
  // Nothing is built here: `npm run build` (host/cli/build.ts) made the engine, the page and dist/ before.
  // The signal handlers come first: a supervisor (or a test) that stops the process as soon as it logs
  // 'listening' must get the graceful close, never Node's default exit. A signal during start-up is acted on
  // once the service has started; a second one while it is still starting leaves at once.
  let running: Awaited<ReturnType<typeof startService>> | undefined;
  let signalledWhileStarting: string | undefined;
  let stopping = false;
  const stop = (signal: string, service: NonNullable<typeof running>) => {
    const log = service.services.log;
    const { shutdownDrainMs } = service.services.config;
    if (stopping) {
      // A second signal (Ctrl-C again): skip the rest of the drain, still close gracefully.
      log.info({ signal }, 'ending the drain');
      void service.close();
      return;
    }
    stopping = true;
    log.info({ signal, drain_ms: shutdownDrainMs }, 'shutting down');
    // SHUTDOWN_DRAIN_MS of draining, then 10 s for the calls still running; the service manager's stop
    // timeout must cover both and the rest of close() (TimeoutStopSec, stop_grace_period: 30 s).
    service.close(IN_FLIGHT_GRACE_MS, shutdownDrainMs).then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  const onSignal = (signal: string) => () => {
    if (running) stop(signal, running);
    else if (signalledWhileStarting) process.exit(130);
    else signalledWhileStarting = signal;
  };
  process.on('SIGINT', onSignal('SIGINT'));
  process.on('SIGTERM', onSignal('SIGTERM'));
  running = await startService();
  if (signalledWhileStarting) stop(signalledWhileStarting, running);
}

/** `node dist/main.js` (`npm start`), or `tsx host/main.ts` from source. */
export async function runMain(): Promise<void> {
  await main().catch((err: unknown) => {
    // A bad setting is the operator's to fix: say which, without a stack trace.
    console.error(err instanceof ConfigError ? `configuration error: ${err.message}` : err instanceof StoreError ? err.message : err);
    process.exit(1);
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await runMain();
