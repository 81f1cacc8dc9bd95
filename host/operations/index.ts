// The operation table: every operation this service serves, each declared once in its own file. REST
// routes, MCP tools, the OpenAPI document and the task executors are all derived from this list (spec 4
// order first, so tools and documents list them as the spec does; then the routes beyond spec 4).
import type { Operation, TaskExecutor } from './operation.ts';
import { askOperation } from './ask/index.ts';
import { addDatasetOperation } from './datasets/add.ts';
import { pollOperation } from './poll.ts';
import { preflightOperation } from './preflight.ts';
import { reportOutcomesOperation } from './outcomes.ts';
import { driftOperation } from './drift.ts';
import { verifyOperation } from './verify.ts';
import { describeOperation } from './describe.ts';
import { deleteDatasetOperation } from './datasets/delete.ts';
import { attestOperation } from './attest.ts';
import { evidenceOperation } from './evidence.ts';
import { registerOperation } from './register.ts';
import { exportModelOperation } from './export-model.ts';
import { uploadOperation } from './datasets/upload.ts';
import { uploadCompleteOperation, uploadPieceOperation } from './datasets/upload-pieces.ts';
import { healthzOperation, jwksOperation } from './well-known.ts';
import { taskEventsOperation, taskResultOperation } from './task-events.ts';
import { watchEventsOperation } from './watch-events.ts';
import { watchOperation } from './watch.ts';
import { profileOperation } from './profile.ts';
import { pageOperation } from './page.ts';
import { extendModelOperation } from './extend-model.ts';
import { deleteModelOperation } from './delete-model.ts';
import { downloadAnswerOperation } from './download-answer.ts';
import { trackRecordOperation } from './track-record.ts';
import { suggestOperation } from './suggest.ts';
import { mapOperation } from './map/index.ts';
import { backtestOperation } from './backtest/index.ts';
import { scheduleOperation } from './schedule/index.ts';
import { deleteScheduleOperation } from './schedule/delete.ts';

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
  // contract 1.1 (additions 2.2, 2.3, 2.5, 2.6, 2.11)
  profileOperation,
  pageOperation,
  extendModelOperation,
  deleteModelOperation,
  downloadAnswerOperation,
  trackRecordOperation,
  suggestOperation, // additions 2.4
  mapOperation, // additions 2.7
  backtestOperation, // additions 2.8
  scheduleOperation, // additions 2.9
  deleteScheduleOperation, // additions 2.10
  exportModelOperation,
  uploadOperation,
  uploadCompleteOperation,
  uploadPieceOperation,
  taskEventsOperation,
  watchEventsOperation,
  watchOperation, // additions 2.13: a watch_url's JSON, the calibration link of track record and drift
  taskResultOperation,
  jwksOperation,
  healthzOperation,
];

/** The task executors of these operations (those that may go pending), by operation name. */
export function taskExecutorsOf(ops: readonly Operation[]): Map<string, TaskExecutor> {
  return new Map(ops.flatMap((op) => (op.task ? [[op.name, op.task] as const] : [])));
}

/** The operations that are MCP tools (spec 1: every spec operation), in table order. */
export function toolOperations(ops: readonly Operation[]): Operation[] {
  return ops.filter((op) => op.tool !== undefined);
}
