// In-memory fixed-window rate limits (wire.md "Keys, workspaces, scopes"): per workspace per minute,
// and per client address per hour for register_agent (spec 4.12). One process; counts reset on restart.
import type { MiddlewareHandler } from 'hono';
import { ServiceError } from '../errors.ts';
import type { AppEnv } from './env.ts';
import type { Services } from '../services.ts';

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

// Limiter state belongs to one running service; REST and MCP share it through the Services object.
const limiters = new WeakMap<Services, { workspace: FixedWindowLimiter; register: FixedWindowLimiter }>();

export function limitersOf(services: Services): { workspace: FixedWindowLimiter; register: FixedWindowLimiter } {
  let l = limiters.get(services);
  if (!l) {
    const { rateLimitPerMinute, registerLimitPerHour } = services.config;
    l = {
      workspace: new FixedWindowLimiter('workspace', rateLimitPerMinute, MINUTE, services.now),
      register: new FixedWindowLimiter('register', registerLimitPerHour, HOUR, services.now),
    };
    limiters.set(services, l);
  }
  return l;
}

/** Middleware after bearer auth: counts the request against the caller's workspace. */
export function workspaceRateLimit(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const caller = c.get('caller');
    if (!caller) return next();
    const limiter = limitersOf(c.get('services')).workspace;
    const d = limiter.take(caller.workspaceId);
    if (!d.allowed) throw limiter.refusal(d, 'Too many requests for this workspace');
    for (const [k, v] of Object.entries(limiter.headers(d))) c.header(k, v);
    await next();
  };
}
