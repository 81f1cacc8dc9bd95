// svc_delete_schedule (docs/reference/schedules.md#delete): stops a schedule's runs and erases what it kept of the key (id,
// scopes) and the sealed headers; the mapping, its models and the outcomes reported stay. A repeat is
// unknown_schedule. A run under way finds its schedule gone at its next step and records nothing more.
import { ServiceError } from '../../errors.ts';
import { parseBody } from '../../schemas/index.ts';
import type { OpContext, OpResult } from '../../runtime/services.ts';
import { EXAMPLE_IDS, FREE, type Operation } from '../operation.ts';
import { DeleteScheduleRequestSchema, DeleteScheduleResponseSchema } from './delete-schedule.schema.ts';

async function runDeleteSchedule(ctx: OpContext, raw: unknown): Promise<OpResult> {
  const req = parseBody(DeleteScheduleRequestSchema, raw);
  if (!(await ctx.services.store.deleteSchedule(ctx.caller!.workspaceId, req.schedule_id))) {
    throw new ServiceError('unknown_schedule', `schedule_id: ${req.schedule_id} is not a schedule of this workspace (or it was deleted)`, {
      field: 'schedule_id',
    });
  }
  return { status: 200, body: { schedule_id: req.schedule_id, deleted: true } };
}

/** svc_delete_schedule: the one declaration the transports, MCP and OpenAPI are derived from. */
export const deleteScheduleOperation: Operation = {
  name: 'svc_delete_schedule',
  resource: 'schedules',
  path: '/v1/delete-schedule',
  method: 'POST',
  auth: 'key',
  scope: 'write:outcomes',
  body: 'json',
  title: 'End a schedule',
  description:
    'Stops the future runs of a schedule and erases the key id, scopes and headers it kept; the mapping, the ' +
    'models and the outcomes already reported stay. A second call for the same schedule_id is unknown_schedule. ' +
    FREE,
  request: DeleteScheduleRequestSchema,
  response: DeleteScheduleResponseSchema,
  status: 200,
  pending: false,
  tool: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  examples: [
    {
      name: 'delete',
      summary: 'End a schedule (send a schedule_id svc_schedule gave)',
      value: { schedule_id: EXAMPLE_IDS.scheduleId },
    },
  ],
  run: runDeleteSchedule,
};
