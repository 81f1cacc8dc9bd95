// POST /v1/export-model (host/web/export-model.ts): a model of this workspace as JSON for browser scoring.
import { exportModelOperation } from '../web/export-model.ts';
import type { RouteSpec } from './route.ts';

export const exportModelRoute: RouteSpec = {
  method: 'POST',
  path: '/v1/export-model',
  auth: 'key',
  body: 'required',
  run: exportModelOperation,
};
