// POST /v1/preflight (spec 4.4).
import { preflightOperation } from '../operations/preflight.ts';
import type { RouteSpec } from './route.ts';

export const preflightRoute: RouteSpec = { method: 'POST', path: '/v1/preflight', auth: 'key', body: 'required', run: preflightOperation };
