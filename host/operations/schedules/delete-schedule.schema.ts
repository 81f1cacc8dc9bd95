// svc_delete_schedule's request and reply.
import * as v from 'valibot';
import { SCHEDULE_ID_PATTERN } from './schedule.schema.ts';

export const DeleteScheduleRequestSchema = v.strictObject({
  schedule_id: v.pipe(v.string(), v.regex(SCHEDULE_ID_PATTERN, 'must be a schedule_id from svc_schedule (sc_ then 20-40 of a-z 0-9)')),
});

export const DeleteScheduleResponseSchema = v.looseObject({
  schedule_id: v.string(),
  deleted: v.literal(true),
});
