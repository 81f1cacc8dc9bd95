// svc_describe's request and reply.
import * as v from 'valibot';
import { ownRecord } from '../../schemas/record.ts';
import { Integer, OpenMap } from '../../schemas/replies.ts';

/** docs/reference/journeys.md#describe: an empty object, no properties allowed. */
export const DescribeRequestSchema = v.strictObject({});

/** A field of a question type or a shape, with its type and rules in words. */
const FieldSchema = v.looseObject({ name: v.string(), type: v.string(), rules: v.string() });

/** docs/reference/journeys.md#describe: a journey's first call; `body` is ready to send as it is, `needs` what to fill in from earlier calls. */
const JourneyCallSchema = v.looseObject({
  operation: v.string(),
  rest: v.optional(v.string()),
  does: v.string(),
  body: v.optional(OpenMap),
  needs: v.optional(v.array(v.string())),
});

export const DescribeResponseSchema = v.looseObject({
  interface_version: v.string(),
  contract: v.string(),
  core_hash: v.string(),
  /** Each question type: what a case gets, whether it needs cases, and its fields with their rules. */
  question_types: v.array(v.looseObject({ type: v.string(), answers: v.string(), needs_cases: v.boolean(), fields: v.array(FieldSchema) })),
  /** Each shape kind: whether it is available, its fields and the features it builds. */
  shapes: v.array(
    v.looseObject({
      kind: v.string(),
      available: v.boolean(),
      description: v.string(),
      fields: v.array(FieldSchema),
      features: v.array(v.looseObject({ name: v.string(), meaning: v.string() })),
    }),
  ),
  answer_states: v.array(v.looseObject({ state: v.string(), meaning: v.string(), action: v.string() })),
  /** docs/reference/limits.md: each limit by name (min, max, default, pattern, what it applies to). */
  limits: OpenMap,
  /** docs/reference/limits.md#cost. */
  prices: OpenMap,
  /** How long each kind of data is kept, in words. */
  retention: ownRecord(v.string(), v.string()),
  /** docs/reference/auth.md: the scheme, key kinds, where keys come from, what needs none. */
  auth: OpenMap,
  jwks_url: v.string(),
  samples: v.array(
    v.looseObject({
      name: v.string(),
      dataset_id: v.string(),
      description: v.string(),
      shape: v.string(),
      entity_column: v.string(),
      outcome_column: v.string(),
      columns: v.array(v.looseObject({ name: v.string(), type: v.string(), description: v.string() })),
      rows: Integer,
      expected_state: v.picklist(['answered', 'refused']),
      expected_refusal: v.optional(v.string()),
      /** A ready svc_ask body. */
      try: OpenMap,
    }),
  ),
  /** docs/reference/journeys.md#journeys, docs/reference/README.md. */
  journeys: v.array(v.looseObject({ name: v.string(), title: v.string(), summary: v.string(), first_calls: v.array(JourneyCallSchema) })),
  /** With a key: the workspace's schedules with their latest run (docs/reference/schedules.md). */
  schedules: v.optional(v.array(OpenMap)),
});

export type DescribeRequest = v.InferOutput<typeof DescribeRequestSchema>;
export type DescribeResponse = v.InferOutput<typeof DescribeResponseSchema>;
