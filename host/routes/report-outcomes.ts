// POST /v1/report-outcomes (spec 4.5).
import { reportOutcomesOperation } from '../operations/outcomes.ts';
import type { RouteSpec } from './route.ts';

export const reportOutcomesRoute: RouteSpec = {
  method: 'POST',
  path: '/v1/report-outcomes',
  auth: 'key',
  body: 'required',
  run: reportOutcomesOperation,
};
