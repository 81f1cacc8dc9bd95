// GET /.well-known/jwks.json (spec 2.11): the public Verdict keys, retired ones included.
import type { RouteSpec } from './route.ts';

export const jwksRoute: RouteSpec = {
  method: 'GET',
  path: '/.well-known/jwks.json',
  auth: 'none',
  body: 'ignore',
  run: async (ctx) => ({
    status: 200,
    body: ctx.services.keyRing.jwks(),
    headers: { 'cache-control': 'public, max-age=300' },
  }),
};
