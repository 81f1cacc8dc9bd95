// Rate limits (docs/reference/auth.md, docs/reference/limits.md#rate-limits): requests per workspace per minute, and
// test-key registrations per client address per hour (docs/reference/auth.md#test-keys). Fixed windows, counted in memory by the
// one process of a SQLite store and in the store by the nodes of a PostgreSQL one; one RateLimits object per
// running service, shared by REST and MCP.
import { ServiceError } from '../errors.ts';
import type { Config } from '../config.ts';
import type { CoordinationStore } from '../store/index.ts';

export interface LimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the current window ends. */
  resetMs: number;
}

/**
 * A fixed-window limit: at most `limit` events per key per window. Where the counts live is the subclass's
 * affair; deciding, the headers and the 429 are the same for both.
 */
export abstract class WindowLimiter {
  constructor(
    readonly name: string,
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  /** Counts one event in `key`'s window starting at `start`: the count after it, or null when the window was full. */
  protected abstract count(key: string, start: number): Promise<number | null>;

  /** Counts one request for `key`; a refused request is not counted. */
  async take(key: string): Promise<LimitDecision> {
    const now = this.now();
    const start = now - (now % this.windowMs);
    const resetMs = start + this.windowMs - now;
    const count = await this.count(key, start);
    if (count === null) return { allowed: false, limit: this.limit, remaining: 0, resetMs };
    return { allowed: true, limit: this.limit, remaining: this.limit - count, resetMs };
  }

  /** draft-ietf-httpapi-ratelimit-headers: RateLimit-Policy and RateLimit structured fields. */
  headers(d: LimitDecision): Record<string, string> {
    const policy = `"${this.name}";q=${this.limit};w=${Math.round(this.windowMs / 1000)}`;
    const state = `"${this.name}";r=${d.remaining};t=${Math.ceil(d.resetMs / 1000)}`;
    return { 'RateLimit-Policy': policy, RateLimit: state };
  }

  /** The 429 for a refused decision: Retry-After in seconds and retry_after_ms in the body (docs/reference/README.md#idempotency). */
  refusal(d: LimitDecision, what: string): ServiceError {
    return new ServiceError('rate_limited', `${what}: at most ${this.limit} per ${describeWindow(this.windowMs)}.`, {
      extra: { retry_after_ms: d.resetMs },
      headers: { ...this.headers(d), 'Retry-After': String(Math.max(1, Math.ceil(d.resetMs / 1000))) },
    });
  }
}

/** Counts in this process's memory: the whole truth when one process serves (SQLite), with no write per request. */
export class FixedWindowLimiter extends WindowLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  protected async count(key: string, start: number): Promise<number | null> {
    let w = this.windows.get(key);
    if (!w || w.start !== start) {
      if (this.windows.size > 10_000) this.forgetBefore(start);
      w = { start, count: 0 };
      this.windows.set(key, w);
    }
    if (w.count >= this.limit) return null;
    return ++w.count;
  }

  private forgetBefore(start: number): void {
    for (const [k, w] of this.windows) if (w.start < start) this.windows.delete(k);
  }
}

/**
 * Counts in the shared store, so N nodes behind a load balancer hold one limit between them, not N: one
 * upsert per request decides (CoordinationStore.countInWindow). The window is read on the service's
 * clock, which follows the database's on PostgreSQL (clock.ts), so nodes agree on where windows start.
 */
export class SharedWindowLimiter extends WindowLimiter {
  constructor(
    name: string,
    limit: number,
    windowMs: number,
    now: () => number,
    private readonly store: Pick<CoordinationStore, 'countInWindow'>,
  ) {
    super(name, limit, windowMs, now);
  }

  protected count(key: string, start: number): Promise<number | null> {
    return this.store.countInWindow({
      bucket: `${this.name}:${key}`,
      window_start: start,
      expires_at: start + this.windowMs,
      limit: this.limit,
    });
  }
}

function describeWindow(ms: number): string {
  if (ms === 60_000) return 'minute';
  if (ms === 3_600_000) return 'hour';
  return `${Math.round(ms / 1000)} seconds`;
}

const MINUTE = 60_000;
const HOUR = 3_600_000;

/**
 * The service's limiters, made from its config at start. On PostgreSQL (several nodes may share the store)
 * they count in the store; on SQLite (one process) in memory.
 */
export class RateLimits {
  readonly workspace: WindowLimiter;
  readonly register: WindowLimiter;

  constructor(
    config: Pick<Config, 'rateLimitPerMinute' | 'registerLimitPerHour'>,
    now: () => number,
    store?: Pick<CoordinationStore, 'dialect' | 'countInWindow'>,
  ) {
    const make = (name: string, limit: number, windowMs: number) =>
      store?.dialect === 'postgres'
        ? new SharedWindowLimiter(name, limit, windowMs, now, store)
        : new FixedWindowLimiter(name, limit, windowMs, now);
    this.workspace = make('workspace', config.rateLimitPerMinute, MINUTE);
    this.register = make('register', config.registerLimitPerHour, HOUR);
  }

  /** Counts one request of the workspace; throws 429 rate_limited past the limit. */
  async admitWorkspace(workspaceId: string): Promise<LimitDecision> {
    const d = await this.workspace.take(workspaceId);
    if (!d.allowed) throw this.workspace.refusal(d, 'Too many requests for this workspace');
    return d;
  }
}
