// svc_describe's request and reply.
import * as v from 'valibot';
import { Open } from '../../schemas/replies.ts';

/** docs/reference/journeys.md#describe: an empty object, no properties allowed. */
export const DescribeRequestSchema = v.strictObject({});

/** docs/reference/journeys.md#describe: a journey's first call; `body` is ready to send as it is, `needs` what to fill in from earlier calls. */
const JourneyCallSchema = v.looseObject({
  operation: v.string(),
  rest: v.optional(v.string()),
  does: v.string(),
  body: v.optional(Open),
  needs: v.optional(v.array(v.string())),
});

export const DescribeResponseSchema = v.looseObject({
  interface_version: v.string(),
  contract: v.string(),
  question_types: v.array(Open),
  samples: v.array(Open),
  /** docs/reference/journeys.md#journeys, docs/reference/README.md. */
  journeys: v.array(v.looseObject({ name: v.string(), title: v.string(), summary: v.string(), first_calls: v.array(JourneyCallSchema) })),
});

export type DescribeRequest = v.InferOutput<typeof DescribeRequestSchema>;
export type DescribeResponse = v.InferOutput<typeof DescribeResponseSchema>;
