// jwks: the public Verdict keys (docs/reference/verdicts.md), a GET route that is not a spec operation.
import type { Operation } from '../operation.ts';

/** GET /.well-known/jwks.json (docs/reference/verdicts.md): the Ed25519 keys Verdicts are signed with, retired ones included. */
export const jwksOperation: Operation = {
  name: 'jwks',
  resource: 'account',
  path: '/.well-known/jwks.json',
  method: 'GET',
  auth: 'none',
  body: 'none',
  title: 'Public Verdict keys',
  description: 'The Ed25519 keys Verdicts are signed with, retired ones included (docs/reference/verdicts.md); verify offline with them.',
  status: 200,
  examples: [],
  run: async (ctx) => ({
    status: 200,
    body: ctx.services.keyRing.jwks(),
    headers: { 'cache-control': 'public, max-age=300' },
  }),
};
