// The writer of answers kept for the track record (docs/reference/outcomes.md#track-record), batched as the usage ledger's is: an
// answer's told cases collect in memory and are written every 500 ms (or at once past 50,000 cases), and
// when the service stops, so an answered ask never waits on a synced SQLite write (one 1-case keep took
// p50 0.24 ms, p99 6.5 ms with synchronous=FULL). A track record read first writes this process's pending
// answers; another process's are at most one interval late. A process killed outright loses at most one
// interval of kept answers: their outcomes then count as without an earlier answer.
import type { Store, ToldAnswer } from '../store/index.ts';

/** Cases pending before a flush is started at once (bounds memory under bursts of 10,000-case asks). */
const FLUSH_AT_CASES = 50_000;

export class AnswerKeeper {
  private pending: ToldAnswer[] = [];
  private pendingCases = 0;
  private flushing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly store: Store,
    private readonly onError: (err: unknown) => void,
    everyMs = 500,
  ) {
    this.timer = setInterval(() => void this.flush(), everyMs);
    this.timer.unref();
  }

  /** Keeps one ask's told cases, one ToldAnswer per model_ref (written by the next flush). */
  keep(answers: readonly ToldAnswer[]): void {
    for (const a of answers) {
      if (a.entity_ids.length === 0) continue;
      this.pending.push(a);
      this.pendingCases += a.entity_ids.length;
    }
    if (this.pendingCases >= FLUSH_AT_CASES) void this.flush();
  }

  /** Writes what has collected, in one call to the store; a failed write keeps its answers for the next flush. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.pending.length === 0) return;
      const batch = this.pending;
      const cases = this.pendingCases;
      this.pending = [];
      this.pendingCases = 0;
      try {
        await this.store.keepToldAnswers(batch);
      } catch (err) {
        this.pending = batch.concat(this.pending);
        this.pendingCases += cases;
        this.onError(err);
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
