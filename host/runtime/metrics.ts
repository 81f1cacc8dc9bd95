// What an operator scrapes at GET /metrics (Prometheus text format, prom-client): one registry per service,
// never prom-client's global one, so two services in one process (the tests) count apart. Counters are
// bumped where things happen (the access log, the fit pool, leases, the task runner, the store); gauges
// are read at scrape time. docs/guides/operating.md lists every series and who may read them.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Store } from '../store/index.ts';

/** Seconds: from a cached answer (milliseconds) to a large fit (minutes). */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const STORE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export class ServiceMetrics {
  readonly registry = new Registry();
  readonly requests = this.counter('oq_http_requests_total', 'HTTP requests answered, by route (the operation path) and status', [
    'operation',
    'status',
  ]);
  readonly askSeconds = this.histogram(
    'oq_ask_duration_seconds',
    'Time to answer POST /v1/ask (a pending reply counts to when it was sent), by status',
    ['status'],
    DURATION_BUCKETS,
  );
  readonly fitSeconds = this.histogram(
    'oq_fit_duration_seconds',
    "Time a fit took in this process's fit workers, by outcome",
    ['outcome'],
    DURATION_BUCKETS,
  );
  readonly refusals = this.counter(
    'oq_refusals_total',
    'Requests refused for load: 429 (a limit) and 503 (overloaded or the store unavailable), by route',
    ['operation', 'status'],
  );
  readonly tasksClaimed = this.counter(
    'oq_tasks_claimed_total',
    'Tasks this process claimed from the store: handed back or queued ("pending"), or taken over from a process whose lease lapsed ("lapsed_lease")',
    ['from'],
  );
  readonly leaseRenewals = this.counter(
    'oq_lease_renewals_total',
    'Lease renewals of tasks and in-flight calls, by result (ok, lost: another process holds it, error)',
    ['result'],
  );
  readonly storeSeconds = this.histogram(
    'oq_store_call_duration_seconds',
    'Time of store calls (SQLite or PostgreSQL), by call',
    ['call'],
    STORE_BUCKETS,
  );
  readonly storeErrors = this.counter('oq_store_errors_total', 'Store calls that failed, by call', ['call']);

  private counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  private histogram<L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]): Histogram<L> {
    return new Histogram({ name, help, labelNames, buckets, registers: [this.registry] });
  }

  /** Gauges read when scraped: tasks running here, tasks waiting in the store, open event streams. */
  watch(read: { tasksRunning: () => number; eventClients: () => number; tasksQueued: () => Promise<number> }): void {
    new Gauge({
      name: 'oq_tasks_running',
      help: "Tasks running on this process's task threads",
      registers: [this.registry],
      collect() {
        this.set(read.tasksRunning());
      },
    });
    new Gauge({
      name: 'oq_tasks_queued',
      help: 'Tasks waiting in the store for any process to claim them (the whole cluster)',
      registers: [this.registry],
      async collect() {
        // The store down must not take /metrics down with it: the last count stays, the failure is counted
        // in oq_store_errors_total.
        try {
          this.set(await read.tasksQueued());
        } catch {
          /* counted by instrumentStore */
        }
      },
    });
    new Gauge({
      name: 'oq_event_stream_clients',
      help: 'Task event streams (SSE) open on this process',
      registers: [this.registry],
      collect() {
        this.set(read.eventClients());
      },
    });
    collectDefaultMetrics({ register: this.registry, prefix: 'oq_' });
  }

  /** Counts a lease renewal by how it ended. */
  renewal<T>(renewing: Promise<T>): Promise<T> {
    return renewing.then(
      (v) => (this.leaseRenewals.inc({ result: v === false ? 'lost' : 'ok' }), v),
      (err: unknown) => (this.leaseRenewals.inc({ result: 'error' }), Promise.reject(err)),
    );
  }

  /** The store with every call timed and its failures counted (the same object otherwise). */
  instrumentStore(store: Store): Store {
    const timed = new Map<PropertyKey, unknown>();
    return new Proxy(store, {
      get: (target, key, receiver) => {
        const value = Reflect.get(target, key, receiver) as unknown;
        if (typeof value !== 'function' || typeof key !== 'string' || key === 'close') return value;
        let wrapped = timed.get(key);
        if (!wrapped) {
          const fn = value as (...args: unknown[]) => unknown;
          const call = key;
          wrapped = (...args: unknown[]) => {
            const end = this.storeSeconds.startTimer({ call });
            let out: unknown;
            try {
              out = fn.apply(target, args);
            } catch (err) {
              end();
              this.storeErrors.inc({ call });
              throw err;
            }
            if (!(out instanceof Promise)) return (end(), out);
            return out.then(
              (v) => (end(), v),
              (err: unknown) => (end(), this.storeErrors.inc({ call }), Promise.reject(err)),
            );
          };
          timed.set(key, wrapped);
        }
        return wrapped;
      },
    });
  }
}
