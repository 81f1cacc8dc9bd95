// What every operation is handed: configuration, the store, the signing key ring, the engine, a logger and
// the lifecycle objects; plus who is calling. Transports build an OpContext and call operations.
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Store } from '../store/index.ts';
import type { KeyRing } from '../signing/index.ts';
import type { EngineModule, FitRunner } from '../engine/index.ts';
import type { UsageMeter } from './usage-meter.ts';
import type { AnswerKeeper } from './answer-keeper.ts';
import type { LeaseKeeper } from './leases.ts';
import type { TaskRunner } from './tasks.ts';
import type { RateLimits } from './rate-limits.ts';
import type { Admission } from './admission.ts';
import type { FitCache } from './fit-cache.ts';
import type { RecordCache } from './record-cache.ts';
import type { TokenSecrets } from '../signing/hmac-token.ts';
import type { TaskEventHub } from './events/hub.ts';
import type { StoredAnswerCache } from './stored-answers.ts';
import type { ServiceMetrics } from './metrics.ts';
import type { Drain } from './drain.ts';

export type { Config } from '../config.ts';

export interface Services {
  config: Config;
  store: Store;
  keyRing: KeyRing;
  /** The compiled engine (scoring runs where the call is; fits run in the fit pool's workers). */
  engine: EngineModule;
  /**
   * Where fits run: the process's fit workers, whose idle workers share each fit's bags. A task thread
   * reaches them through the request thread (host/runtime/task-threads.ts), so its heap holds the table, not the fit.
   */
  pool: FitRunner;
  log: Logger;
  /** Injected clock (tests move time); epoch ms. On PostgreSQL the database server's (runtime/clock.ts). */
  now: () => number;
  /** The HMAC secrets of lever and upload tokens, shared through the store by every node. */
  secrets: TokenSecrets;
  /** The usage ledger's batching writer (host/runtime/usage-meter.ts). */
  usage: UsageMeter;
  /** The batching writer of answers kept for the track record (host/runtime/answer-keeper.ts). */
  keptAnswers: AnswerKeeper;
  /** Leases this process holds on pending tasks and in-flight idempotent calls. */
  leases: LeaseKeeper;
  /** Runs calls that need a fit as tasks on this process's task threads, and resumes tasks other processes left. */
  tasks: TaskRunner;
  /** Per-workspace and per-address request limits. */
  limits: RateLimits;
  /** What this process takes on at once: body bytes and tasks (host/runtime/admission.ts). */
  admission: Admission;
  /** Fitted models kept parsed, and fits running now. */
  fitCache: FitCache;
  /** Parsed tables of sealed datasets. */
  records: RecordCache;
  /** Wakes this process's task event streams when events are written here; watch link limits (docs/reference/tasks.md#events, docs/reference/tasks.md#watch). */
  events: TaskEventHub;
  /** Stored answers kept parsed while they are paged (docs/reference/models.md#stored-answers svc_page). */
  storedAnswers: StoredAnswerCache;
  /** What GET /metrics reports (host/runtime/metrics.ts). */
  metrics: ServiceMetrics;
  /** Set once the process is stopping: it still serves, but tells the balancer to stop sending (host/runtime/drain.ts). */
  drain: Drain;
}

export interface Caller {
  workspaceId: string;
  /** docs/reference/auth.md#oauth: how the caller proved who it is: an svck_ key, or an OAuth access token of a trusted issuer. */
  via: 'key' | 'oauth';
  /** The API key's id; null for an OAuth caller. */
  keyId: string | null;
  /** Who calls, stable across requests: `key:<key id>`, or `oauth:<issuer>#<sub>` for a token (an issuer has no `#`). */
  subject: string;
  /** An OAuth caller is live: tokens are not test keys (docs/reference/auth.md#test-keys). */
  mode: 'live' | 'test';
  scopes: string[];
}

export interface OpContext {
  services: Services;
  /** null for operations that need no key (verify, describe, register). */
  caller: Caller | null;
  requestId: string;
  /** Client address (rate limit of register_agent). */
  clientAddress: string;
}

/** An operation's reply: HTTP status and JSON body (transports add problem+json for errors). */
export interface OpResult<T = unknown> {
  status: number;
  body: T;
  headers?: Record<string, string>;
  /** The body as JSON text, for operations that can write it faster than JSON.stringify(body) can. */
  bodyJson?: () => string;
  /**
   * The body as UTF-8 JSON bytes, for operations that can write them faster than bodyJson() can be
   * encoded; the same bytes as bodyJson() (REST sends these; anything that keeps or rewrites the reply
   * uses bodyJson and drops this).
   */
  bodyBytes?: () => Uint8Array<ArrayBuffer>;
  /**
   * A reply that is not one JSON object (an event stream, a CSV download): REST sends these bytes with
   * `contentType` instead of `body`, which then describes it for MCP or stays null.
   */
  stream?: { contentType: string; bytes: ReadableStream<Uint8Array> };
}

/** JSON text of an operation's reply body: the operation's own writer when it has one. */
export function resultJson(result: OpResult): string {
  return result.bodyJson ? result.bodyJson() : JSON.stringify(result.body);
}
