// POST /v1/delete-dataset (spec 4.9).
import { deleteDatasetOperation } from '../../operations/datasets/delete.ts';
import type { RouteSpec } from '../route.ts';

export const deleteDatasetRoute: RouteSpec = {
  method: 'POST',
  path: '/v1/delete-dataset',
  auth: 'key',
  body: 'required',
  run: deleteDatasetOperation,
};
