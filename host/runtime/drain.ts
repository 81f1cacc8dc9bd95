// Whether this process is draining: stopping, but still serving for SHUTDOWN_DRAIN_MS so the load balancer
// sees it leave before it closes (docs/guides/operating.md#stopping-a-node). host/main.ts starts the drain on
// SIGTERM/SIGINT; /readyz and /healthz then answer 503 (host/http/operator.ts) and every reply carries
// `Connection: close`, so a balancer's kept-alive connections end after their reply, never while idle.

export class Drain {
  #since: number | null = null;

  /** Epoch ms the drain began, or null while the process serves normally. */
  get since(): number | null {
    return this.#since;
  }

  get draining(): boolean {
    return this.#since !== null;
  }

  /** Starts the drain (again: a no-op). */
  begin(now = Date.now()): void {
    this.#since ??= now;
  }
}
