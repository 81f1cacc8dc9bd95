// POST /v1/agents/register (spec 4.12, no key, no body).
import { registerOperation } from '../operations/register.ts';
import type { RouteSpec } from './route.ts';

export const registerRoute: RouteSpec = {
  method: 'POST',
  path: '/v1/agents/register',
  auth: 'none',
  body: 'ignore',
  run: registerOperation,
};
