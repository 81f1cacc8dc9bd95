// healthz: liveness, a GET route that is not a spec operation.
import type { Operation } from '../operation.ts';

/** GET /healthz: liveness for load balancers and scripts. */
export const healthzOperation: Operation = {
  name: 'healthz',
  resource: 'account',
  path: '/healthz',
  method: 'GET',
  auth: 'none',
  body: 'none',
  title: 'Liveness',
  description: 'Answers 200 while the service runs, with the core_hash of the engine it runs.',
  status: 200,
  examples: [],
  run: async (ctx) => ({ status: 200, body: { status: 'ok', core_hash: ctx.services.engine.coreHash } }),
};
