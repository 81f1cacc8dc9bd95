// The dataset routes: two JSON operations as RouteSpecs, and the presigned upload mounted by hand.
import { addDatasetRoute } from './add-dataset.ts';
import { deleteDatasetRoute } from './delete-dataset.ts';
import type { RouteSpec } from '../route.ts';

export { addDatasetRoute } from './add-dataset.ts';
export { deleteDatasetRoute } from './delete-dataset.ts';
export { mountUploadRoute, UPLOAD_PATH } from './upload.ts';

export const DATASET_ROUTES: readonly RouteSpec[] = [addDatasetRoute, deleteDatasetRoute];
