// Leases this process holds on shared work (a pending task, an in-flight idempotent call): each is renewed
// every third of its length until done; when the service stops, every held lease is handed back (released,
// not failed) so another process takes the work over at once. One LeaseKeeper per running service.
import os from 'node:os';
import { randomUUID } from 'node:crypto';

/** This process, as the owner of the leases it takes (tasks and idempotency records name it). */
export const OWNER = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

/** Work this process holds a lease on until `done()`. */
export interface HeldLease {
  /** Set when the service stopped and handed the work back: its end must write nothing. */
  readonly abandoned: boolean;
  done(): void;
}

interface Held extends HeldLease {
  abandoned: boolean;
  timer: NodeJS.Timeout;
  release: () => Promise<unknown>;
}

interface LeaseLog {
  warn(obj: object, msg: string): void;
}

export class LeaseKeeper {
  private readonly held = new Set<Held>();
  private stopping = false;

  constructor(
    /** How long a lease lasts unrenewed (config.taskLeaseMs). */
    readonly leaseMs: number,
    private readonly log: LeaseLog,
    /** Sees every renewal (GET /metrics counts them by how they ended). */
    private readonly observe: <T>(renewing: Promise<T>) => Promise<T> = (p) => p,
  ) {}

  /** Renewal period: a third of the lease, so two renewals can fail before it lapses. */
  get renewMs(): number {
    return Math.max(50, Math.floor(this.leaseMs / 3));
  }

  get stopped(): boolean {
    return this.stopping;
  }

  /** Renews through `renew` until done(); `release` hands the work back if the service stops first. */
  hold(renew: () => Promise<unknown>, release: () => Promise<unknown>): HeldLease {
    const held: Held = {
      abandoned: false,
      timer: setInterval(() => void this.observe(renew()).catch(() => undefined), this.renewMs),
      release,
      done: () => {
        clearInterval(held.timer);
        this.held.delete(held);
      },
    };
    held.timer.unref();
    this.held.add(held);
    if (this.stopping) void this.abandon(held);
    return held;
  }

  /** Hands back every held lease (shutdown); later holds are handed back at once. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.held].map((h) => this.abandon(h)));
  }

  private async abandon(held: Held): Promise<void> {
    held.abandoned = true;
    held.done();
    await held.release().catch((err: unknown) => this.log.warn({ err }, 'releasing a lease on shutdown'));
  }
}
