// Every REST route of this server: the route matrix in test/routes/errors.test.ts runs over this list.
import { askRoute } from './ask.ts';
import { describeRoute } from './describe.ts';
import { healthzRoute } from './healthz.ts';
import { jwksRoute } from './jwks.ts';
import { pollRoute } from './poll.ts';
import { DATASET_ROUTES } from './datasets/index.ts';
import { registerRoute } from './register.ts';
import { verifyRoute } from './verify.ts';
import { exportModelRoute } from './export-model.ts';
import { preflightRoute } from './preflight.ts';
import { reportOutcomesRoute } from './report-outcomes.ts';
import { driftRoute } from './drift.ts';
import { attestRoute } from './attest.ts';
import { evidenceRoute } from './evidence.ts';
import type { RouteSpec } from './route.ts';

export type { RouteSpec } from './route.ts';

export const ROUTES: readonly RouteSpec[] = [
  askRoute,
  pollRoute,
  ...DATASET_ROUTES,
  preflightRoute,
  reportOutcomesRoute,
  driftRoute,
  attestRoute,
  evidenceRoute,
  describeRoute,
  verifyRoute,
  registerRoute,
  jwksRoute,
  healthzRoute,
  exportModelRoute,
];
