// POST /v1/drift (spec 4.6).
import { driftOperation } from '../operations/drift.ts';
import type { RouteSpec } from './route.ts';

export const driftRoute: RouteSpec = { method: 'POST', path: '/v1/drift', auth: 'key', body: 'required', run: driftOperation };
