// Contract 1.1 svc_schedule and svc_delete_schedule (docs/reference/schedules.md#schedule, docs/reference/schedules.md#delete): a confirmed mapping answered on a
// cadence, and its end.
import * as v from 'valibot';
import { SUBJECT_KINDS } from '../../schemas/ask.ts';
import { NamespaceSchema, objectRule } from '../../schemas/common.ts';
import { MAPPING_ID_PATTERN } from '../map/map.schema.ts';
import { NextStepSchema } from '../ask/ask.schema.ts';

/** docs/reference/schedules.md#schedule: daily, weekly (7 days), monthly (the same day of the next calendar month). */
export const CADENCES = ['daily', 'weekly', 'monthly'] as const;
export const SCHEDULE_ID_PATTERN = /^sc_[0-9a-z]{20,40}$/;

const ScheduleObjectRequestSchema = v.strictObject({
  mapping_id: v.pipe(v.string(), v.regex(MAPPING_ID_PATTERN, 'must be a mapping_id from svc_map (mp_ then 5-60 of a-z 0-9 _)')),
  cadence: v.picklist(CADENCES),
  subject_kind: v.picklist(SUBJECT_KINDS),
  acknowledge_decision_support: v.optional(v.boolean()),
  namespace: v.optional(NamespaceSchema),
});

export const ScheduleRequestSchema = v.pipe(
  ScheduleObjectRequestSchema,
  objectRule<v.InferOutput<typeof ScheduleObjectRequestSchema>>((req, report) => {
    // as on ask (docs/reference/ask.md#request): person subjects turn on decision-support safeguards
    if (req.subject_kind === 'person' && req.acknowledge_decision_support !== true) {
      report(
        'acknowledge_decision_support',
        'must be true when subject_kind is person (results are decision support, with a human in the loop)',
      );
    }
  }),
);
export type ScheduleRequest = v.InferOutput<typeof ScheduleRequestSchema>;

const StepState = v.picklist(['pending', 'running', 'done', 'skipped', 'failed']);

export const ScheduleRunSchema = v.looseObject({
  run_id: v.string(),
  at: v.string(),
  state: v.picklist(['running', 'done', 'halted', 'stopped']),
  step: v.nullable(v.picklist(['map', 'fit', 'drift', 'score', 'report'])),
  steps: v.looseObject({ map: StepState, fit: StepState, drift: StepState, score: StepState, report: StepState }),
  fits_run: v.number(),
  decisions: v.number(),
  scored: v.number(),
  reported: v.number(),
  duplicates: v.number(),
  drift: v.nullable(v.looseObject({ pattern: v.string(), recommendation: v.string(), refit_quality: v.string() })),
  /** The model the run scored with, the as_of it read the log at, and the cases whose outcome closed since the last run. */
  model_ref: v.optional(v.nullable(v.string())),
  as_of: v.optional(v.nullable(v.string())),
  closed_since: v.optional(v.nullable(v.number())),
});

export const ScheduleObjectSchema = v.looseObject({
  schedule_id: v.pipe(v.string(), v.regex(SCHEDULE_ID_PATTERN)),
  mapping_id: v.string(),
  cadence: v.picklist(CADENCES),
  state: v.picklist(['active', 'stopped', 'halted']),
  next_run_at: v.nullable(v.string()),
  halt_code: v.optional(v.nullable(v.string())),
  model_ref: v.optional(v.nullable(v.string())),
  last_run: v.optional(v.nullable(ScheduleRunSchema)),
});

export const ScheduleResponseSchema = v.looseObject({
  schedule: ScheduleObjectSchema,
  watch_url: v.optional(v.string()),
  next: v.optional(v.array(NextStepSchema)),
});
