// POST /v1/attest (spec 4.10).
import { attestOperation } from '../operations/attest.ts';
import type { RouteSpec } from './route.ts';

export const attestRoute: RouteSpec = { method: 'POST', path: '/v1/attest', auth: 'key', body: 'required', run: attestOperation };
