// POST /v1/add-dataset (spec 4.2).
import { addDatasetOperation } from '../../operations/datasets/add.ts';
import type { RouteSpec } from '../route.ts';

export const addDatasetRoute: RouteSpec = {
  method: 'POST',
  path: '/v1/add-dataset',
  auth: 'key',
  body: 'required',
  run: addDatasetOperation,
};
