// Contract 1.1 "prove it" (docs/reference/outcomes.md#track-record): svc_track_record's request and response.
import * as v from 'valibot';
import { ModelRefSchema, NamespaceSchema } from '../../schemas/common.ts';

const Integer = v.pipe(v.number(), v.integer());
const Rate = v.pipe(v.number(), v.minValue(0), v.maxValue(1));

/** docs/reference/outcomes.md#track-record: a model's calls against reported outcomes. */
export const TrackRecordRequestSchema = v.strictObject({ model_ref: ModelRefSchema, namespace: v.optional(NamespaceSchema) });

/** One group of calls: rate, interval and chance are null when it has no calls. */
const StatisticsEntries = {
  calls: Integer,
  happened: Integer,
  observed_rate: v.nullable(Rate),
  interval_95: v.nullable(v.tuple([Rate, Rate])),
  mean_chance: v.nullable(Rate),
  small_n: v.boolean(),
};

export const TrackRecordResponseSchema = v.looseObject({
  model_ref: v.string(),
  answers_kept: Integer,
  records_since: v.nullable(v.string()),
  outcomes_without_an_earlier_answer: Integer,
  outcomes_answered_later: Integer,
  unpaired_note: v.optional(v.string()),
  overall: v.looseObject(StatisticsEntries),
  by_band: v.array(v.looseObject({ band: v.string(), ...StatisticsEntries })),
  by_level: v.array(v.looseObject({ level: v.string(), ...StatisticsEntries })),
  by_chance: v.array(v.looseObject({ range: v.string(), ...StatisticsEntries })),
  watch_url: v.optional(v.string()),
});

export type TrackRecordRequest = v.InferOutput<typeof TrackRecordRequestSchema>;
export type TrackRecordResponse = v.InferOutput<typeof TrackRecordResponseSchema>;
