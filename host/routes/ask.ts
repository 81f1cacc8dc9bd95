// POST /v1/ask (spec 4.1).
import { askOperation } from '../operations/ask.ts';
import type { RouteSpec } from './route.ts';

export const askRoute: RouteSpec = { method: 'POST', path: '/v1/ask', auth: 'key', body: 'required', run: askOperation };
