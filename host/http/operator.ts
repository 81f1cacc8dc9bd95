// The operator's endpoints, beside the API and outside its contract: GET /readyz (can this node serve: it is
// not draining and its store answers) and GET /metrics (Prometheus text, host/runtime/metrics.ts), readable
// only with the bearer token of METRICS_TOKEN. /healthz (liveness) is an operation of the table; while the
// process drains, the gate below answers it 503 first. docs/guides/operating.md.
import { timingSafeEqual } from 'node:crypto';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { AppEnv } from './env.ts';
import { ServiceError } from '../errors.ts';

/** How long /readyz waits for the store before saying not ready. */
const READY_WAIT_MS = 2000;
/** When a load balancer or orchestrator should ask /readyz again after a 503. */
const READY_RETRY_AFTER_S = 5;

/** When a balancer should ask again while this node drains: it is on its way out, so not soon. */
const DRAINING_RETRY_AFTER_S = 30;

/** The 503 a health or readiness check gets while the process drains (host/runtime/drain.ts). */
function drainingReply(c: Context<AppEnv>): Response {
  return c.json(
    {
      status: 'draining',
      problem: 'this node is stopping: it finishes the calls it has, and a load balancer should send new ones to other nodes',
    },
    503,
    { 'cache-control': 'no-store', 'retry-after': String(DRAINING_RETRY_AFTER_S) },
  );
}

/**
 * GET (or HEAD) /healthz while the process drains: 503 draining, before the liveness operation runs. A HEAD
 * reaches the GET route in Hono with its own method, so both are named here. HAProxy checks
 * /healthz (deploy/haproxy.cfg), not /readyz: /readyz also fails while the database is down, which would
 * take every node out of the balancer at once (docs/decisions/0080-drain-on-stop.md).
 */
export function healthzDrainingGate(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if ((c.req.method === 'GET' || c.req.method === 'HEAD') && c.get('services').drain.draining) return drainingReply(c);
    await next();
  };
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

async function storeAnswers(c: Context<AppEnv>): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`the store did not answer within ${READY_WAIT_MS} ms`), READY_WAIT_MS);
  });
  try {
    return await Promise.race([
      c
        .get('services')
        .store.ping()
        .then(() => null),
      late,
    ]);
  } catch (err) {
    return `the store failed: ${(err as Error).message}`;
  } finally {
    clearTimeout(timer);
  }
}

export function mountOperatorEndpoints(app: Hono<AppEnv>): void {
  app.get('/readyz', async (c) => {
    const services = c.get('services');
    if (services.drain.draining) return drainingReply(c);
    const problem = await storeAnswers(c);
    const headers = { 'cache-control': 'no-store' };
    if (problem === null) return c.json({ status: 'ready', core_hash: services.engine.coreHash }, 200, headers);
    services.log.warn({ problem }, 'not ready');
    return c.json({ status: 'not_ready', problem }, 503, { ...headers, 'retry-after': String(READY_RETRY_AFTER_S) });
  });

  app.get('/metrics', async (c) => {
    const { config, metrics } = c.get('services');
    if (config.metricsToken === null) {
      throw new ServiceError('metrics_off', 'GET /metrics is off on this node: the operator sets METRICS_TOKEN to turn it on');
    }
    const auth = c.req.header('authorization') ?? '';
    const given = auth.startsWith('Bearer ') ? auth.slice(7).trim() : '';
    if (!sameToken(given, config.metricsToken)) {
      throw new ServiceError(
        'metrics_token',
        'GET /metrics needs Authorization: Bearer <METRICS_TOKEN> (the token this node was started with)',
      );
    }
    const body = await metrics.registry.metrics();
    return c.body(body, 200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' });
  });
}
