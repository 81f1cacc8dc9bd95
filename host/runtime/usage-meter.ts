// The usage ledger's writer (docs/reference/limits.md#cost): counts collect in memory and are written once a second,
// and when the service stops, as one row per workspace, kind and month, so an answered ask never
// waits on a synced SQLite write. A process killed outright loses at most one interval of counts:
// the ledger can undercount by that much, never overcount.
import type { UsageKind } from '../store/records.ts';
import type { Store } from '../store/index.ts';

export interface Pending {
  workspace_id: string;
  namespace: string;
  kind: UsageKind;
  count: number;
  at: number; // the latest event of this month's bucket
}

const monthOf = (at: number) => {
  const d = new Date(at);
  return d.getUTCFullYear() * 12 + d.getUTCMonth();
};

export class UsageMeter {
  private pending = new Map<string, Pending>();
  private flushing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Store,
    private readonly onError: (err: unknown) => void,
    /** 0: never writes on its own (a task thread's meter, drained into the request thread's after each task). */
    everyMs = 1000,
  ) {
    if (everyMs > 0) {
      this.timer = setInterval(() => void this.flush(), everyMs);
      this.timer.unref();
    }
  }

  /** Takes what has collected without writing it (a task thread hands it to the request thread's meter). */
  drain(): Pending[] {
    const out = [...this.pending.values()];
    this.pending = new Map();
    return out;
  }

  /** Counts `count` of `kind` for the workspace's namespace ('' = its own) at time `at` (written by the next flush). */
  add(workspace_id: string, kind: UsageKind, count: number, at: number, namespace = ''): void {
    if (count <= 0) return;
    // months are kept apart so a month's total (free fits are per month) never takes another's counts;
    // namespaces too (docs/reference/ask.md#namespace: usage is metered per namespace)
    const key = `${workspace_id}\u0000${namespace}\u0000${kind}\u0000${monthOf(at)}`;
    const p = this.pending.get(key);
    if (p) {
      p.count += count;
      p.at = Math.max(p.at, at);
    } else this.pending.set(key, { workspace_id, namespace, kind, count, at });
  }

  /** Writes what has collected; a failed write keeps its counts for the next flush. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.pending.size === 0) return;
      const batch = [...this.pending.values()];
      this.pending = new Map();
      for (let i = 0; i < batch.length; i++) {
        try {
          await this.store.recordUsage(batch[i]);
        } catch (err) {
          for (const p of batch.slice(i)) this.add(p.workspace_id, p.kind, p.count, p.at, p.namespace);
          this.onError(err);
          return;
        }
      }
    });
    return this.flushing;
  }

  /** Stops the timer and writes what is left (the service calls this before closing the store). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
