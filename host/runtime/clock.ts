// The service's clock on PostgreSQL: this process's clock corrected by its offset to the database server's,
// measured at start and again every few minutes, so leases written by one node and judged by another are
// judged on one clock (docs/guides/more-than-one-machine.md: "leases are judged on the database clock, not each node's"). On SQLite the
// one node's own clock is the clock, unchanged.
//
// Why an offset rather than the database's time inside each lease statement: a lease is also judged in
// this process (an idempotent retry compares a record's lease_until with now), timestamps of every row
// and Verdict then follow the same clock, and the statements stay the same for both dialects. The error
// is at most half the round trip of the best of a few readings (about a millisecond on a LAN) plus what
// the clocks drift apart between readings, both far below a lease (TASK_LEASE_MS, 15 s by default).
import type { CoordinationStore } from '../store/index.ts';

/** How often the offset is measured again: clocks drift apart by milliseconds an hour at most. */
export const CLOCK_SYNC_MS = 5 * 60_000;
/** Readings taken each time; the one with the shortest round trip is kept. */
const READINGS = 3;
/** An offset beyond this is logged: the node's clock is wrong and worth fixing, though the service copes. */
const WARN_OFFSET_MS = 1000;

interface ClockLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export class DatabaseClock {
  private offsetMs = 0;
  private timer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly store: Pick<CoordinationStore, 'databaseTime'>,
    private readonly log: ClockLog,
  ) {}

  /** Measures the offset (when the store has a clock of its own) and keeps it measured every `syncMs`. */
  static async start(store: Pick<CoordinationStore, 'databaseTime'>, log: ClockLog, syncMs = CLOCK_SYNC_MS): Promise<DatabaseClock> {
    const clock = new DatabaseClock(store, log);
    if (!(await clock.sync())) return clock; // SQLite: this process's clock, nothing to keep measuring
    clock.timer = setInterval(() => void clock.sync().catch(() => undefined), syncMs); // unreachable: keep the last offset
    clock.timer.unref();
    return clock;
  }

  /** Epoch ms on the database's clock (this process's clock on SQLite). */
  readonly now = (): number => Date.now() + this.offsetMs;

  /** The correction applied to this process's clock, in ms. */
  get offset(): number {
    return this.offsetMs;
  }

  /** Measures the offset again; false when the store has no clock of its own. */
  async sync(): Promise<boolean> {
    let best: { rtt: number; offset: number } | undefined;
    for (let i = 0; i < READINGS; i++) {
      const before = Date.now();
      const db = await this.store.databaseTime();
      const after = Date.now();
      if (db === null) return false;
      // The server read its clock somewhere within the round trip: take the middle.
      const reading = { rtt: after - before, offset: db - (before + after) / 2 };
      if (!best || reading.rtt < best.rtt) best = reading;
    }
    const offset = Math.round(best!.offset);
    const changed = Math.abs(offset - this.offsetMs) > WARN_OFFSET_MS;
    this.offsetMs = offset;
    if (Math.abs(offset) > WARN_OFFSET_MS && (changed || this.timer === undefined)) {
      this.log.warn(
        { offset_ms: offset, round_trip_ms: best!.rtt },
        "this machine's clock differs from the database server's; leases and timestamps follow the database's (fix the machine's clock with NTP)",
      );
    }
    return true;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
