// POST /v1/verify (spec 4.7, no key).
import { verifyOperation } from '../operations/verify.ts';
import type { RouteSpec } from './route.ts';

export const verifyRoute: RouteSpec = { method: 'POST', path: '/v1/verify', auth: 'none', body: 'required', run: verifyOperation };
