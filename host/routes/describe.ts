// POST /v1/describe (spec 4.8, no key); an empty body is the empty object.
import { describeOperation } from '../operations/describe.ts';
import type { RouteSpec } from './route.ts';

export const describeRoute: RouteSpec = {
  method: 'POST',
  path: '/v1/describe',
  auth: 'none',
  body: 'optional',
  run: describeOperation,
};
