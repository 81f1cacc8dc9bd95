// POST /v1/poll (spec 4.3).
import { pollOperation } from '../operations/poll.ts';
import type { RouteSpec } from './route.ts';

export const pollRoute: RouteSpec = { method: 'POST', path: '/v1/poll', auth: 'key', body: 'required', run: pollOperation };
