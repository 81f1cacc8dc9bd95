// The one entry: config from env, logger, store, signing keys, engine, fit pool, createApp, serve.
// `startService` does the same for tests (port 0, a temp DATA_DIR) and hands back a close().
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { pathToFileURL } from 'node:url';
import { serve } from '@hono/node-server';
import { pino, type Logger } from 'pino';
import { createApp } from './app.ts';
import { openStoreFromEnv, StoreError } from './store/index.ts';
import { KeyRing } from './signing/index.ts';
import { FitPool, loadEngine } from './engine/index.ts';
import { startSweeper } from './operations/datasets/sweeper.ts';
import type { Config, Services } from './services.ts';
import { startTaskRunner } from './operations/tasks.ts';
import { DEFAULT_FETCH_TIMEOUT_MS, DEFAULT_MAX_UPLOAD_BYTES } from './operations/datasets/config.ts';
import { UsageMeter } from './operations/usage-meter.ts';

const DAY_MS = 86_400_000;
/**
 * 64 MiB: admits an 8,000,000-character csv (spec 8) however the client writes JSON: with every
 * character escaped as \uXXXX (Python's json.dumps default for non-ASCII text) it is 48,000,000
 * bytes, leaving 16 MiB for the rest of the ask.
 */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

/** Longest delay a Node timer keeps; a larger one fires at once (so a huge timeout would be none). */
const MAX_TIMER_MS = 2_147_483_647;

/** A setting in the environment that makes no sense: the service refuses to start and says which. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

function intFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  // Plain decimal digits only: Number() would also take '1e3', '0x10' or '12.0' and hide a typo.
  const n = /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  }
  return n;
}

/** Reads the Config from environment variables (README lists them). */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): Config {
  const port = intFrom(env, 'PORT', 8787, 0, 65_535);
  const baseUrl = (env.BASE_URL || `http://localhost:${port}`).replace(/\/+$/, '');
  return {
    port,
    dataDir: path.resolve(env.DATA_DIR || './data'),
    baseUrl,
    keysUrl: env.KEYS_URL || `${baseUrl}/keys`,
    pendingWaitMs: intFrom(env, 'PENDING_WAIT_MS', 2000, 0, MAX_TIMER_MS),
    rateLimitPerMinute: intFrom(env, 'RATE_LIMIT_PER_MINUTE', 600, 1),
    registerLimitPerHour: intFrom(env, 'REGISTER_LIMIT_PER_HOUR', 20, 1),
    // 100 years at most: a Verdict's expires_at must stay a real date.
    verdictTtlMs: intFrom(env, 'VERDICT_TTL_DAYS', 90, 1, 36_500) * DAY_MS,
    maxBodyBytes: intFrom(env, 'MAX_BODY_BYTES', DEFAULT_MAX_BODY_BYTES, 1024),
    taskLeaseMs: intFrom(env, 'TASK_LEASE_MS', 15_000, 100, MAX_TIMER_MS),
    // wire.md "Datasets": the PUT upload cap is configurable (default 100 MB).
    maxUploadBytes: intFrom(env, 'UPLOAD_MAX_BYTES', DEFAULT_MAX_UPLOAD_BYTES, 1),
    // wire.md "fetch_url": a timeout on the whole download.
    fetchTimeoutMs: intFrom(env, 'FETCH_TIMEOUT_MS', DEFAULT_FETCH_TIMEOUT_MS, 1, MAX_TIMER_MS),
  };
}

export interface StartOptions {
  log?: Logger;
  now?: () => number;
  /** Interface to bind; default all. */
  hostname?: string;
  env?: NodeJS.ProcessEnv;
  /** How often expired datasets, answers, tasks and idempotency records are swept (spec 8 retention). */
  sweepEveryMs?: number;
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
  const config: Config = { ...configFromEnv(env), ...overrides };
  const log = opts.log ?? pino({ level: env.LOG_LEVEL || 'info' });
  const now = opts.now ?? Date.now;

  fs.mkdirSync(config.dataDir, { recursive: true });
  const store = await openStoreFromEnv(env, { dataDir: config.dataDir, now });
  let pool: FitPool | undefined;
  try {
    // Signing keys are made on first start and kept in the store (architecture.md "Runtime pieces").
    const keyRing = await KeyRing.open(store, { now });
    const engine = await loadEngine();
    pool = new FitPool();
    const usage = new UsageMeter(store, (err) => log.error({ err }, 'writing the usage ledger'));
    const services: Services = { config, store, keyRing, engine, pool, log, now, usage };
    const app = createApp(services);

    const server = await new Promise<Server>((resolve, reject) => {
      const s = serve({ fetch: app.fetch, port: config.port, hostname: opts.hostname }) as Server;
      s.once('listening', () => resolve(s));
      s.once('error', reject);
    });
    const { port } = server.address() as AddressInfo;
    const host = !opts.hostname || opts.hostname === '0.0.0.0' || opts.hostname === '::' ? 'localhost' : opts.hostname;
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    // With port 0 the real port is known only now; an explicit BASE_URL always wins.
    if (overrides.baseUrl === undefined && !env.BASE_URL) {
      config.port = port;
      config.baseUrl = url;
      if (overrides.keysUrl === undefined && !env.KEYS_URL) config.keysUrl = `${url}/keys`;
    }

    const stopSweeper = startSweeper(services, opts.sweepEveryMs ?? 10 * 60_000);
    // Tasks left unfinished by a stopped process are claimed again and finished (spec 3.2).
    const stopTasks = startTaskRunner(services);

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
        await stopTasks();
        await pool!.close();
        await usage.close();
        await store.close();
      })());
    log.info({ url, data_dir: config.dataDir, base_url: config.baseUrl }, 'listening');
    return { url, services, server, close };
  } catch (err) {
    await pool?.close();
    await store.close();
    throw err;
  }
}

async function main(): Promise<void> {
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
