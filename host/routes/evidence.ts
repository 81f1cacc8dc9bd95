// POST /v1/evidence (spec 4.11).
import { evidenceOperation } from '../operations/evidence.ts';
import type { RouteSpec } from './route.ts';

export const evidenceRoute: RouteSpec = { method: 'POST', path: '/v1/evidence', auth: 'key', body: 'required', run: evidenceOperation };
