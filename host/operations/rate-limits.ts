// Rate limits (wire.md "Keys, workspaces, scopes", spec 3.12): requests per workspace per minute, and
// test-key registrations per client address per hour (spec 4.12). In-memory fixed windows of one process;
// one RateLimits object per running service, shared by REST and MCP.
import { ServiceError } from '../errors.ts';
import type { Config } from '../config.ts';

export interface LimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the current window ends. */
  resetMs: number;
}

export class FixedWindowLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    readonly name: string,
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  /** Counts one request for `key`; a refused request is not counted. */
  take(key: string): LimitDecision {
    const now = this.now();
    const start = now - (now % this.windowMs);
    let w = this.windows.get(key);
    if (!w || w.start !== start) {
      if (this.windows.size > 10_000) this.forgetBefore(start);
      w = { start, count: 0 };
      this.windows.set(key, w);
    }
    const resetMs = start + this.windowMs - now;
    if (w.count >= this.limit) return { allowed: false, limit: this.limit, remaining: 0, resetMs };
    w.count++;
    return { allowed: true, limit: this.limit, remaining: this.limit - w.count, resetMs };
  }

  private forgetBefore(start: number): void {
    for (const [k, w] of this.windows) if (w.start < start) this.windows.delete(k);
  }

  /** draft-ietf-httpapi-ratelimit-headers: RateLimit-Policy and RateLimit structured fields. */
  headers(d: LimitDecision): Record<string, string> {
    const policy = `"${this.name}";q=${this.limit};w=${Math.round(this.windowMs / 1000)}`;
    const state = `"${this.name}";r=${d.remaining};t=${Math.ceil(d.resetMs / 1000)}`;
    return { 'RateLimit-Policy': policy, RateLimit: state };
  }

  /** The 429 for a refused decision: Retry-After in seconds and retry_after_ms in the body (wire.md). */
  refusal(d: LimitDecision, what: string): ServiceError {
    return new ServiceError('rate_limited', `${what}: at most ${this.limit} per ${describeWindow(this.windowMs)}.`, {
      extra: { retry_after_ms: d.resetMs },
      headers: { ...this.headers(d), 'Retry-After': String(Math.max(1, Math.ceil(d.resetMs / 1000))) },
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

/** The service's limiters, made from its config at start. */
export class RateLimits {
  readonly workspace: FixedWindowLimiter;
  readonly register: FixedWindowLimiter;

  constructor(config: Pick<Config, 'rateLimitPerMinute' | 'registerLimitPerHour'>, now: () => number) {
    this.workspace = new FixedWindowLimiter('workspace', config.rateLimitPerMinute, MINUTE, now);
    this.register = new FixedWindowLimiter('register', config.registerLimitPerHour, HOUR, now);
  }

  /** Counts one request of the workspace; throws 429 rate_limited past the limit. */
  admitWorkspace(workspaceId: string): LimitDecision {
    const d = this.workspace.take(workspaceId);
    if (!d.allowed) throw this.workspace.refusal(d, 'Too many requests for this workspace');
    return d;
  }
}
