// Every setting of the service in one place: the Config type, its defaults, and how each is read from the
// environment (docs/guides/configuration.md). The server, the keys CLI and the tests all resolve it here, once.
import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { BACKGROUND_NICE_STEP } from './lib/thread-priority.ts';
import { OAuthConfigError, parseOAuthIssuers, type TrustedIssuer } from './signing/oauth-config.ts';

const DAY_MS = 86_400_000;
/** Longest delay a Node timer keeps; a larger one fires at once (so a huge timeout would be none). */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * 64 MiB: admits an 8,000,000-character csv (docs/reference/limits.md#limits) however the client writes JSON: with every
 * character escaped as \uXXXX (Python's json.dumps default for non-ASCII text) it is 48,000,000
 * bytes, leaving 16 MiB for the rest of the ask.
 */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

/** SHUTDOWN_DRAIN_MS with DATABASE_URL set (docs/decisions/0080-drain-on-stop.md). */
export const DEFAULT_DRAIN_MS = 8000;

export interface Config {
  /** HTTP port (0: any free port; the real one is known once listening). */
  port: number;
  /** The SQLite file, uploads and token secrets live here. */
  dataDir: string;
  /** postgres://... selects the PostgreSQL store (docs/design/architecture.md#postgresql); null: SQLite under dataDir. */
  databaseUrl: string | null;
  /** Connections this node opens to PostgreSQL at most (its share of the server's max_connections). */
  databasePoolSize: number;
  /** Public base URL used in problem `type`s, upload URLs and texts ({base_url}). */
  baseUrl: string;
  /** {keys_url}: where an operator tells users to get live keys. */
  keysUrl: string;
  /** METRICS_TOKEN: GET /metrics answers only `Authorization: Bearer <this>`; null: /metrics is off (403). */
  metricsToken: string | null;
  /** pino level. */
  logLevel: string;
  /** docs/reference/tasks.md#pending: a fit not finished after this wait turns the ask into 202 pending. */
  pendingWaitMs: number;
  /** Requests per minute per workspace. */
  rateLimitPerMinute: number;
  /** Registrations per hour per client address (docs/reference/auth.md#test-keys). */
  registerLimitPerHour: number;
  /** Verdict lifetime (docs/reference/verdicts.md: 90 days). */
  verdictTtlMs: number;
  /** Largest accepted JSON body in bytes. */
  maxBodyBytes: number;
  /** Lease of pending work; a task or in-flight idempotent call unrenewed this long is taken over by any process. */
  taskLeaseMs: number;
  /**
   * Task threads of this process (FIT_WORKERS): each runs one cold ask at a time (reading its record, the
   * fit, the answer) on its own heap and event loop, so the request thread never stalls on one.
   */
  fitWorkers: number;
  /** Heap limit of each task thread in MiB (V8 old generation); a task that needs more fails alone. */
  taskMemoryMb: number;
  /**
   * How much nicer than the request thread the task threads and fit workers run (BACKGROUND_NICE, 0-19;
   * Linux only), so cached asks are not queued behind cold fits for a core.
   */
  backgroundNice: number;
  /**
   * Start one task thread and the fit workers as soon as the server listens (WARM_THREADS), so the first ask
   * does not wait about a second for them; off, they start when first needed.
   */
  warmThreads: boolean;
  /** Tasks waiting for a thread, over the whole service (the store's pending tasks); past it, 503 server_busy. */
  taskQueueMax: number;
  /** Queued plus running tasks of one workspace; past it, 429 workspace_busy. */
  workspaceTasksMax: number;
  /** Bytes of request bodies being read and worked on at once; past it, 503 server_busy. */
  bodyMemoryBytes: number;
  /** How often expired datasets, tasks and idempotency records are swept (docs/reference/limits.md#limits retention). */
  sweepEveryMs: number;
  /** docs/reference/schedules.md#runs "Dispatch hourly": how often each node looks for schedules whose run is due. */
  scheduleTickMs: number;
  /** docs/reference/datasets.md: largest presigned upload in bytes. */
  maxUploadBytes: number;
  /**
   * An upload is stored in parts of about this many bytes, cut at row boundaries: SQLite holds a few copies
   * of a part while storing it (measured: 4 MiB parts peak ~15 MB higher than 1 MiB parts).
   */
  uploadPartBytes: number;
  /** Longest row an upload may hold (the inline csv cap of docs/reference/limits.md#limits read as bytes); with uploadPartBytes it bounds memory. */
  maxUploadRowBytes: number;
  /** docs/reference/datasets.md#fetch-url: deadline for a whole download. */
  fetchTimeoutMs: number;
  /** Extra CA (PEM) trusted by fetch_url besides the system roots (tests: a self-signed CA). Never from the environment. */
  fetchCaPem: string | null;
  /** Test-only: lets fetch_url reach loopback https hosts (still https, no redirects). Never from the environment. */
  allowLoopbackFetchForTests: boolean;
  /** docs/reference/auth.md#oauth: identity providers whose access tokens are accepted (OAUTH_ISSUERS); empty: svck_ keys only. */
  oauthIssuers: TrustedIssuer[];
  /** How often the signing keys are read again from the store, so a key rotated elsewhere is signed with here. */
  signingKeyReloadMs: number;
  /**
   * Addresses of the load balancers in front (TRUST_PROXY): a request from one of them is counted against the
   * client address it names last in X-Forwarded-For (register_agent's limit per address). Empty: the socket's.
   */
  trustProxy: string[];
  /**
   * How often an event stream reads the store for a task running on another process (docs/reference/tasks.md#events); events
   * written by this process wake its streams at once.
   */
  eventPollMs: number;
  /** docs/reference/tasks.md#events: a comment line this often on a quiet event stream. */
  eventHeartbeatMs: number;
  /**
   * SHUTDOWN_DRAIN_MS (docs/guides/operating.md#stopping-a-node): on SIGTERM the node keeps serving this
   * long while its health checks answer 503, so the load balancer stops sending before it closes.
   */
  shutdownDrainMs: number;
  /** docs/reference/tasks.md#events: an event stream is closed after this long (the client reconnects with Last-Event-ID). */
  eventStreamMaxMs: number;
}

/** A setting in the environment that makes no sense: the service refuses to start and says which. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

function isSet(env: Env, name: string): boolean {
  const raw = env[name];
  return raw !== undefined && raw.trim() !== '';
}

function intFrom(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (!isSet(env, name)) return fallback;
  const raw = env[name]!;
  // Plain decimal digits only: Number() would also take '1e3', '0x10' or '12.0' and hide a typo.
  const n = /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  }
  return n;
}

function databaseUrlFrom(env: Env): string | null {
  if (!isSet(env, 'DATABASE_URL')) return null;
  const raw = env.DATABASE_URL!.trim();
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('DATABASE_URL must be a postgres:// URL (postgres://user:password@host:5432/database)');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError(`DATABASE_URL must start with postgres:// or postgresql://, got ${url.protocol}//...`);
  }
  return raw;
}

/** OAUTH_ISSUERS (docs/guides/oauth.md): a JSON array of trusted issuers, parsed in host/signing/oauth-config.ts. */
/** A bearer token a scraper can send: 16 to 256 visible ASCII characters, no spaces. */
function metricsTokenFrom(env: Env): string | null {
  if (!isSet(env, 'METRICS_TOKEN')) return null;
  const token = env.METRICS_TOKEN!.trim();
  if (!/^[\x21-\x7e]{16,256}$/.test(token))
    throw new ConfigError('METRICS_TOKEN must be 16 to 256 visible ASCII characters without spaces (for example: openssl rand -hex 24)');
  return token;
}

function oauthIssuersFrom(env: Env): TrustedIssuer[] {
  try {
    return parseOAuthIssuers(env.OAUTH_ISSUERS);
  } catch (err) {
    if (err instanceof OAuthConfigError) throw new ConfigError(`OAUTH_ISSUERS${err.message.startsWith('[') ? '' : ' '}${err.message}`);
    throw err;
  }
}

/** TRUST_PROXY: comma-separated IP addresses (IPv4 or IPv6), each as the socket reports the proxy's. */
function trustProxyFrom(env: Env): string[] {
  if (!isSet(env, 'TRUST_PROXY')) return [];
  const list = env.TRUST_PROXY!.split(',').map((a) => a.trim());
  for (const a of list) {
    if (isIP(a) === 0) {
      throw new ConfigError(
        `TRUST_PROXY must list the IP addresses of your load balancers, comma-separated (e.g. 127.0.0.1,10.0.0.5), got ${JSON.stringify(a)}`,
      );
    }
  }
  return list;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** The Config for this environment (docs/guides/configuration.md); unset or empty variables take the defaults. */
export function configFromEnv(env: Env = process.env): Config {
  const port = intFrom(env, 'PORT', 8787, 0, 65_535);
  const baseUrl = (env.BASE_URL || `http://localhost:${port}`).replace(/\/+$/, '');
  const databaseUrl = databaseUrlFrom(env);
  const logLevel = isSet(env, 'LOG_LEVEL') ? env.LOG_LEVEL!.trim() : 'info';
  if (!LOG_LEVELS.includes(logLevel))
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(logLevel)}`);
  return {
    port,
    dataDir: path.resolve(env.DATA_DIR || './data'),
    databaseUrl,
    databasePoolSize: intFrom(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    baseUrl,
    keysUrl: env.KEYS_URL || `${baseUrl}/keys`,
    metricsToken: metricsTokenFrom(env),
    logLevel,
    pendingWaitMs: intFrom(env, 'PENDING_WAIT_MS', 2000, 0, MAX_TIMER_MS),
    rateLimitPerMinute: intFrom(env, 'RATE_LIMIT_PER_MINUTE', 600, 1),
    registerLimitPerHour: intFrom(env, 'REGISTER_LIMIT_PER_HOUR', 20, 1),
    // 100 years at most: a Verdict's expires_at must stay a real date.
    verdictTtlMs: intFrom(env, 'VERDICT_TTL_DAYS', 90, 1, 36_500) * DAY_MS,
    maxBodyBytes: intFrom(env, 'MAX_BODY_BYTES', DEFAULT_MAX_BODY_BYTES, 1024),
    taskLeaseMs: intFrom(env, 'TASK_LEASE_MS', 15_000, 100, MAX_TIMER_MS),
    // One worker per core, at most 4 by default: each fit of a large record holds its own copy of the table.
    fitWorkers: intFrom(env, 'FIT_WORKERS', Math.max(1, Math.min(os.availableParallelism(), 4)), 1, 64),
    // 2 GiB of heap holds the reading, typing and encoding of a 1,000,000 x 13 record with room to spare
    // (docs/benchmark-results.md#overload); a thread's wasm memory comes on top.
    taskMemoryMb: intFrom(env, 'TASK_MEMORY_MB', 2048, 64, 1_048_576),
    warmThreads: intFrom(env, 'WARM_THREADS', 1, 0, 1) === 1,
    backgroundNice: intFrom(env, 'BACKGROUND_NICE', BACKGROUND_NICE_STEP, 0, 19),
    taskQueueMax: intFrom(env, 'TASK_QUEUE_MAX', 64, 0, 1_000_000),
    workspaceTasksMax: intFrom(env, 'WORKSPACE_TASKS_MAX', 4, 1, 1_000_000),
    bodyMemoryBytes: intFrom(env, 'BODY_MEMORY_MB', 256, 1, 1_048_576) * 1024 * 1024,
    sweepEveryMs: intFrom(env, 'SWEEP_EVERY_MS', 10 * 60_000, 1000, MAX_TIMER_MS),
    scheduleTickMs: intFrom(env, 'SCHEDULE_TICK_MS', 60 * 60_000, 100, MAX_TIMER_MS),
    maxUploadBytes: intFrom(env, 'UPLOAD_MAX_BYTES', 100_000_000, 1),
    uploadPartBytes: 1024 * 1024,
    maxUploadRowBytes: 8_000_000,
    fetchTimeoutMs: intFrom(env, 'FETCH_TIMEOUT_MS', 30_000, 1, MAX_TIMER_MS),
    fetchCaPem: null,
    allowLoopbackFetchForTests: false,
    oauthIssuers: oauthIssuersFrom(env),
    signingKeyReloadMs: intFrom(env, 'SIGNING_KEY_RELOAD_MS', 60_000, 1000, MAX_TIMER_MS),
    trustProxy: trustProxyFrom(env),
    eventPollMs: intFrom(env, 'EVENT_POLL_MS', 500, 10, 60_000),
    eventHeartbeatMs: 15_000,
    eventStreamMaxMs: 5 * 60_000,
    // With a database, nodes sit behind a balancer: HAProxy's check (inter 2 s, fall 3) takes a node out
    // within 6 s of its first 503, and 2 s more is margin. SQLite is one node: nowhere else to send calls.
    shutdownDrainMs: intFrom(env, 'SHUTDOWN_DRAIN_MS', databaseUrl === null ? 0 : DEFAULT_DRAIN_MS, 0, 300_000),
  };
}

/**
 * The environment's Config with `overrides` on top (tests and embedders). When BASE_URL is not given, the
 * base and keys URLs follow the port the server really listens on (see `withListeningPort`).
 */
export function resolveConfig(env: Env, overrides: Partial<Config> = {}): Config {
  return { ...configFromEnv(env), ...overrides };
}

/** With port 0 the real port is known only after listening: the derived URLs follow it unless they were set. */
export function withListeningPort(config: Config, env: Env, overrides: Partial<Config>, port: number, url: string): void {
  if (overrides.baseUrl !== undefined || env.BASE_URL) return;
  config.port = port;
  config.baseUrl = url;
  if (overrides.keysUrl === undefined && !env.KEYS_URL) config.keysUrl = `${url}/keys`;
}

/**
 * What the request thread holds besides request bodies, MiB: its code and heap at rest, the records it keeps
 * parsed (at most 2,000,000 cells) and the fitted models it keeps (docs/guides/overload.md).
 */
const REQUEST_THREAD_MB = 600;
/** A parsed JSON body takes up to about this many times its bytes (objects and strings of the rows). */
const PARSED_BODY_FACTOR = 3;
/**
 * Per FIT_WORKERS beyond a task thread's capped heap, MiB: the thread's code and native buffers, and a fit
 * worker's wasm memory during a fit, which no heap cap counts (measured with a 1,000,000 x 13 record:
 * docs/benchmark-results.md#overload).
 */
const TASK_THREAD_EXTRA_MB = 700;

/**
 * The documented bound on the process's resident memory, MiB, for these settings: the request thread, the
 * request bodies it may hold (BODY_MEMORY_MB, parsed), and each task thread's capped heap (TASK_MEMORY_MB)
 * with what it holds outside the heap. Whatever the load, admission keeps the process under it.
 */
export function memoryBoundMb(c: Pick<Config, 'fitWorkers' | 'taskMemoryMb' | 'bodyMemoryBytes'>): number {
  const bodies = Math.ceil((c.bodyMemoryBytes / (1024 * 1024)) * PARSED_BODY_FACTOR);
  return REQUEST_THREAD_MB + bodies + c.fitWorkers * (c.taskMemoryMb + TASK_THREAD_EXTRA_MB);
}
