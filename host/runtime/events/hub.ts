// This process's wake-ups for task event streams, and the per-task limits of watch links (docs/reference/tasks.md#watch). A
// stream reads the store (any process may have written the events); a writer on this process wakes the
// readers here at once, and readers of a task running elsewhere find its events on their next poll
// (config.eventPollMs). PostgreSQL's LISTEN/NOTIFY could wake those too (docs/decisions/README.md).
import { FixedWindowLimiter } from '../rate-limits.ts';

/** docs/reference/tasks.md#watch: per task, 5 watch streams open at once and 60 opens a minute. */
export const WATCH_OPEN_AT_ONCE = 5;
export const WATCH_OPENS_PER_MINUTE = 60;

export type WatchSlot = { ok: true; release: () => void } | { ok: false; retryAfterMs: number; why: 'open' | 'opens' };

export class TaskEventHub {
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly openWatches = new Map<string, number>();
  private readonly watchOpens: FixedWindowLimiter;
  private streams = 0;

  constructor(now: () => number) {
    this.watchOpens = new FixedWindowLimiter('watch', WATCH_OPENS_PER_MINUTE, 60_000, now);
  }

  /** Event streams open on this process now (GET /metrics). */
  get openStreams(): number {
    return this.streams;
  }

  /** Counts an event stream as open until the returned function runs (once; it runs `onClose` too). */
  countStream(onClose?: () => void): () => void {
    this.streams++;
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      this.streams--;
      onClose?.();
    };
  }

  /** New events of `taskId` are in the store. */
  notify(taskId: string): void {
    const set = this.waiters.get(taskId);
    if (!set) return;
    this.waiters.delete(taskId);
    for (const wake of set) wake();
  }

  /** Resolves on the next notify for `taskId`, after `ms`, or when `signal` aborts, whichever is first. */
  wait(taskId: string, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      let set = this.waiters.get(taskId);
      if (!set) this.waiters.set(taskId, (set = new Set()));
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        const current = this.waiters.get(taskId);
        current?.delete(done);
        if (current?.size === 0) this.waiters.delete(taskId);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      set.add(done);
    });
  }

  /** A watch stream of `taskId` may open (docs/reference/tasks.md#watch limits, counted on this process); release it when it closes. */
  async openWatch(taskId: string): Promise<WatchSlot> {
    if ((this.openWatches.get(taskId) ?? 0) >= WATCH_OPEN_AT_ONCE) return { ok: false, retryAfterMs: 1000, why: 'open' };
    const d = await this.watchOpens.take(taskId);
    if (!d.allowed) return { ok: false, retryAfterMs: d.resetMs, why: 'opens' };
    // read again: another stream may have opened while the limiter counted
    const open = this.openWatches.get(taskId) ?? 0;
    if (open >= WATCH_OPEN_AT_ONCE) return { ok: false, retryAfterMs: 1000, why: 'open' };
    this.openWatches.set(taskId, open + 1);
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        const left = (this.openWatches.get(taskId) ?? 1) - 1;
        if (left <= 0) this.openWatches.delete(taskId);
        else this.openWatches.set(taskId, left);
      },
    };
  }
}
