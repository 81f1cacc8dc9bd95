// The operation table: every operation this service serves, each declared once in its own file. REST
// routes, MCP tools, the OpenAPI document and the task executors are all derived from this list (docs/reference/README.md
// order first, so tools and documents list them as the spec does; then the routes beyond docs/reference/README.md).
import type { Operation, TaskExecutor } from './operation.ts';
import { askOperation } from './ask/ask.ts';
import { addDatasetOperation } from './datasets/add-dataset.ts';
import { pollOperation } from './tasks/poll.ts';
import { preflightOperation } from './datasets/preflight.ts';
import { reportOutcomesOperation } from './outcomes/report-outcomes.ts';
import { driftOperation } from './models/drift.ts';
import { verifyOperation } from './account/verify.ts';
import { describeOperation } from './account/describe.ts';
import { deleteDatasetOperation } from './datasets/delete-dataset.ts';
import { attestOperation } from './outcomes/attest.ts';
import { evidenceOperation } from './outcomes/evidence.ts';
import { registerOperation } from './account/register.ts';
import { exportModelOperation } from './models/export-model.ts';
import { uploadOperation } from './datasets/upload-dataset.ts';
import { uploadCompleteOperation, uploadPieceOperation } from './datasets/upload-pieces.ts';
import { jwksOperation } from './account/jwks.ts';
import { protectedResourceOperation } from './account/protected-resource.ts';
import { healthzOperation } from './account/healthz.ts';
import { taskEventsOperation } from './tasks/task-events.ts';
import { taskResultOperation } from './tasks/task-result.ts';
import { watchEventsOperation } from './tasks/watch-events.ts';
import { watchOperation } from './tasks/watch.ts';
import { profileOperation } from './account/profile.ts';
import { pageOperation } from './ask/page.ts';
import { extendModelOperation } from './models/extend-model.ts';
import { deleteModelOperation } from './models/delete-model.ts';
import { downloadAnswerOperation } from './ask/download-answer.ts';
import { trackRecordOperation } from './models/track-record.ts';
import { suggestOperation } from './datasets/suggest.ts';
import { mapOperation } from './map/map.ts';
import { backtestOperation } from './backtest/backtest.ts';
import { scheduleOperation } from './schedules/schedule.ts';
import { deleteScheduleOperation } from './schedules/delete-schedule.ts';

export type { Operation } from './operation.ts';

export const OPERATIONS: readonly Operation[] = [
  askOperation,
  addDatasetOperation,
  pollOperation,
  preflightOperation,
  reportOutcomesOperation,
  driftOperation,
  verifyOperation,
  describeOperation,
  deleteDatasetOperation,
  attestOperation,
  evidenceOperation,
  registerOperation,
  // contract 1.1 (docs/reference/models.md#profile, docs/reference/models.md#stored-answers, docs/reference/models.md#extend, docs/reference/models.md#delete)
  profileOperation,
  pageOperation,
  extendModelOperation,
  deleteModelOperation,
  downloadAnswerOperation,
  trackRecordOperation,
  suggestOperation, // docs/reference/map.md#suggest
  mapOperation, // docs/reference/map.md#map
  backtestOperation, // docs/reference/map.md#backtest
  scheduleOperation, // docs/reference/schedules.md#schedule
  deleteScheduleOperation, // docs/reference/schedules.md#delete
  exportModelOperation,
  uploadOperation,
  uploadCompleteOperation,
  uploadPieceOperation,
  taskEventsOperation,
  watchEventsOperation,
  watchOperation, // docs/reference/outcomes.md#watch: a watch_url's JSON, the calibration link of track record and drift
  taskResultOperation,
  jwksOperation,
  protectedResourceOperation,
  healthzOperation,
];

/** The task executors of these operations (those that may go pending), by operation name. */
export function taskExecutorsOf(ops: readonly Operation[]): Map<string, TaskExecutor> {
  return new Map(ops.flatMap((op) => (op.task ? [[op.name, op.task] as const] : [])));
}

/** The operations that are MCP tools (docs/reference/mcp.md: every spec operation), in table order. */
export function toolOperations(ops: readonly Operation[]): Operation[] {
  return ops.filter((op) => op.tool !== undefined);
}
