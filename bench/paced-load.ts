// An open-loop load generator: sends request i at start + i / rate, whatever earlier requests are
// doing, and times each from the moment it was due (so a stalled server cannot hide its queue:
// "coordinated omission"). autocannon's overallRate is not this: each connection sends its quota for
// the second back to back, then waits, so the server sees a burst at the top of every second.
import http from 'node:http';

export interface PacedResult {
  rate: number;
  seconds: number;
  sent: number;
  ok: number;
  failed: number;
  /** Replies by HTTP status ('error': no reply, the connection failed). */
  statuses: Record<string, number>;
  /** Latency percentiles in ms, from each request's due time to the last byte of its response. */
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export interface PacedOptions {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body: string;
  /** Request i's body instead of `body` (e.g. a new record per request); made before it is due. */
  bodyOf?: (i: number) => string;
  rate: number; // requests per second
  seconds: number;
  /** Sockets kept open; a request waits for a free one (its wait counts in its latency). */
  sockets?: number;
  /** Stops sending early once this returns true (then `seconds` is only the longest run). */
  shouldStop?: () => boolean;
}

const percentile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

export async function pacedLoad(o: PacedOptions): Promise<PacedResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.sockets ?? 32 });
  const url = new URL(o.url);
  const body = Buffer.from(o.body);
  let total = Math.round(o.rate * o.seconds);
  const latencies: number[] = [];
  let ok = 0;
  let failed = 0;
  const statuses: Record<string, number> = {};
  const one = (due: number, payload: Buffer) =>
    new Promise<void>((resolve) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: o.method ?? 'POST',
          agent,
          // x-bench-due: when it was due, epoch ms (bench/trace-server.ts times the service's side from it)
          headers: { ...o.headers, 'content-length': payload.length, 'x-bench-due': String(performance.timeOrigin + due) },
        },
        (res) => {
          res.on('data', () => {});
          res.on('end', () => {
            latencies.push(performance.now() - due);
            statuses[res.statusCode!] = (statuses[res.statusCode!] ?? 0) + 1;
            if (res.statusCode! >= 200 && res.statusCode! < 300) ok++;
            else failed++;
            resolve();
          });
        },
      );
      req.on('error', () => {
        failed++;
        statuses.error = (statuses.error ?? 0) + 1;
        resolve();
      });
      req.end(payload);
    });
  const pending: Promise<void>[] = [];
  const interval = 1000 / o.rate;
  const bodies = o.bodyOf ? Array.from({ length: total }, (_, i) => Buffer.from(o.bodyOf!(i))) : null;
  const start = performance.now() + 20;
  let next = 0;
  await new Promise<void>((done) => {
    const tick = () => {
      const now = performance.now();
      if (o.shouldStop?.()) total = next;
      // send every request that is due by now (a late timer sends the backlog at once, each timed from its due time)
      while (next < total && start + next * interval <= now) {
        pending.push(one(start + next * interval, bodies ? bodies[next] : body));
        next++;
      }
      if (next >= total) return done();
      setTimeout(tick, Math.max(0, start + next * interval - performance.now()));
    };
    setTimeout(tick, 20);
  });
  await Promise.all(pending);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    rate: o.rate,
    sent: total,
    ok,
    failed,
    statuses,
    p50: percentile(latencies, 0.5),
    p90: percentile(latencies, 0.9),
    p99: percentile(latencies, 0.99),
    max: latencies[latencies.length - 1],
    seconds: o.shouldStop ? (performance.now() - start) / 1000 : o.seconds,
  };
}
