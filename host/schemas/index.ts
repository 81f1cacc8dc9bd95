// The one home of request/response validation and wire types; operation tables for routes, OpenAPI and MCP.
import { AskRequestSchema } from './ask.ts';
import { AddDatasetRequestSchema, DeleteDatasetRequestSchema } from '../operations/datasets/add-dataset.schema.ts';
import {
  AttestRequestSchema,
  DescribeRequestSchema,
  DriftRequestSchema,
  EvidenceRequestSchema,
  PollRequestSchema,
  PreflightRequestSchema,
  ReportOutcomesRequestSchema,
  VerifyRequestSchema,
} from './operations.ts';
import {
  AddDatasetResponseSchema,
  AskResponseSchema,
  AttestResponseSchema,
  DeleteDatasetResponseSchema,
  DescribeResponseSchema,
  DriftResponseSchema,
  EvidenceResponseSchema,
  PollResponseSchema,
  PreflightResponseSchema,
  RegisterResponseSchema,
  ReportOutcomesResponseSchema,
  VerifyResponseSchema,
  ProfileResponseSchema,
  PageResponseSchema,
  ExtendModelResponseSchema,
  DeleteModelResponseSchema,
} from './responses.ts';
import { DeleteModelRequestSchema, ExtendModelRequestSchema, PageRequestSchema, ProfileRequestSchema } from '../operations/account/profile.schema.ts';
import { TrackRecordRequestSchema, TrackRecordResponseSchema } from '../operations/models/track-record.schema.ts';
import { MapRequestSchema, MapResponseSchema, SuggestRequestSchema, SuggestResponseSchema } from '../operations/map/map.schema.ts';
import { BacktestRequestSchema, BacktestResponseSchema } from '../operations/backtest/backtest.schema.ts';
import { DeleteScheduleRequestSchema, DeleteScheduleResponseSchema, ScheduleRequestSchema, ScheduleResponseSchema } from '../operations/schedules/schedule.schema.ts';

export * from './common.ts';
export * from './shape.ts';
export * from './question.ts';
export * from './ask.ts';
export * from '../operations/datasets/add-dataset.schema.ts';
export * from './operations.ts';
export * from './responses.ts';
export * from '../operations/account/profile.schema.ts';
export * from '../operations/models/track-record.schema.ts';
export * from '../operations/map/map.schema.ts';
export * from '../operations/backtest/backtest.schema.ts';
export * from '../operations/schedules/schedule.schema.ts';
export { parseBody, issueField, describeIssue, mostRelevantIssue } from './parse.ts';

/** Spec 4: request body schema per operation (register_agent takes no body). */
export const REQUEST_SCHEMAS = {
  svc_ask: AskRequestSchema,
  svc_add_dataset: AddDatasetRequestSchema,
  svc_poll: PollRequestSchema,
  svc_preflight: PreflightRequestSchema,
  svc_report_outcomes: ReportOutcomesRequestSchema,
  svc_drift: DriftRequestSchema,
  svc_verify: VerifyRequestSchema,
  svc_describe: DescribeRequestSchema,
  svc_delete_dataset: DeleteDatasetRequestSchema,
  svc_attest: AttestRequestSchema,
  svc_evidence: EvidenceRequestSchema,
  svc_profile: ProfileRequestSchema,
  svc_page: PageRequestSchema,
  svc_extend_model: ExtendModelRequestSchema,
  svc_delete_model: DeleteModelRequestSchema,
  svc_track_record: TrackRecordRequestSchema,
  svc_suggest: SuggestRequestSchema,
  svc_map: MapRequestSchema,
  svc_backtest: BacktestRequestSchema,
  svc_schedule: ScheduleRequestSchema,
  svc_delete_schedule: DeleteScheduleRequestSchema,
} as const;

/** Spec 4: success response body schema per operation. */
export const RESPONSE_SCHEMAS = {
  svc_ask: AskResponseSchema,
  svc_add_dataset: AddDatasetResponseSchema,
  svc_poll: PollResponseSchema,
  svc_preflight: PreflightResponseSchema,
  svc_report_outcomes: ReportOutcomesResponseSchema,
  svc_drift: DriftResponseSchema,
  svc_verify: VerifyResponseSchema,
  svc_describe: DescribeResponseSchema,
  svc_delete_dataset: DeleteDatasetResponseSchema,
  svc_attest: AttestResponseSchema,
  svc_evidence: EvidenceResponseSchema,
  register_agent: RegisterResponseSchema,
  svc_profile: ProfileResponseSchema,
  svc_page: PageResponseSchema,
  svc_extend_model: ExtendModelResponseSchema,
  svc_delete_model: DeleteModelResponseSchema,
  svc_track_record: TrackRecordResponseSchema,
  svc_suggest: SuggestResponseSchema,
  svc_map: MapResponseSchema,
  svc_backtest: BacktestResponseSchema,
  svc_schedule: ScheduleResponseSchema,
  svc_delete_schedule: DeleteScheduleResponseSchema,
} as const;

export type OperationName = keyof typeof REQUEST_SCHEMAS;
