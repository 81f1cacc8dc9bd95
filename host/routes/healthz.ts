// GET /healthz: liveness for load balancers and scripts.
import type { RouteSpec } from './route.ts';

export const healthzRoute: RouteSpec = {
  method: 'GET',
  path: '/healthz',
  auth: 'none',
  body: 'ignore',
  run: async (ctx) => ({ status: 200, body: { status: 'ok', core_hash: ctx.services.engine.coreHash } }),
};
