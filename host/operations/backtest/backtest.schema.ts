// Contract 1.1 svc_backtest (docs/reference/map.md#backtest): request and reply of a backtest of a built log record.
import * as v from 'valibot';
import { SUBJECT_KINDS } from '../../schemas/ask.ts';
import { LIMITS, NamespaceSchema, RecordIdSchema, maxChars } from '../../schemas/common.ts';
import { MAPPING_ID_PATTERN } from '../map/map.schema.ts';

/** docs/reference/map.md#backtest cutoffs.every (also a record's snapshot_every). */
export const BACKTEST_EVERY = ['1d', '1w', '4w'] as const;

const BacktestObjectSchema = v.strictObject({
  data: v.strictObject({ dataset_id: RecordIdSchema }),
  // which mapping of the log to read (a mapping_id svc_map gave); absent: the newest, named in the reply's record
  mapping_id: v.optional(v.pipe(v.string(), v.regex(MAPPING_ID_PATTERN))),
  cutoffs: v.optional(
    v.strictObject({
      every: v.optional(v.picklist(BACKTEST_EVERY)),
      // 3-12 is checked by the operation, so a number outside it is backtest_cutoffs_invalid (README decisions)
      last: v.optional(v.pipe(v.number(), v.integer())),
    }),
  ),
  baseline: v.optional(v.picklist(['single_column', 'none'])),
  subject_kind: v.picklist(SUBJECT_KINDS),
  acknowledge_decision_support: v.optional(v.boolean()),
  idempotency_key: v.optional(v.pipe(v.string(), v.minLength(1), maxChars(LIMITS.idempotencyKeyMax))),
  response_format: v.optional(v.picklist(['full', 'concise'])),
  namespace: v.optional(NamespaceSchema),
});

/** docs/reference/map.md#backtest (subject_kind person needs acknowledge_decision_support: checked by the operation, as ask's rule). */
export const BacktestRequestSchema = BacktestObjectSchema;

const Metric = v.nullable(v.number());
const TopPair = v.looseObject({ top10: Metric, top20: Metric });

export const BacktestResponseSchema = v.looseObject({
  status: v.picklist(['done', 'pending']),
  dataset_id: v.optional(v.string()),
  backtest_id: v.optional(v.pipe(v.string(), v.regex(/^bt_[0-9a-f]{32}$/))),
  record: v.optional(
    v.looseObject({
      outcome_column: v.string(),
      horizon: v.looseObject({ value: v.number(), unit: v.string() }),
      snapshot_every: v.string(),
      as_of: v.string(),
    }),
  ),
  cutoffs: v.optional(
    v.array(
      v.looseObject({
        at: v.string(),
        state: v.picklist(['graded', 'not_yet', 'refused']),
        reasons: v.array(v.string()),
      }),
    ),
  ),
  summary: v.optional(
    v.looseObject({
      cutoffs: v.looseObject({ graded: v.number(), not_yet: v.number(), refused: v.number() }),
      capture: TopPair,
      lift: TopPair,
      baseline: v.nullable(v.looseObject({ capture: TopPair, lift: TopPair })),
    }),
  ),
  decision: v.optional(v.picklist(['supported', 'not_supported', 'not_yet'])),
  verdict: v.optional(v.looseObject({ kind: v.literal('backtest') })),
  signature: v.optional(v.looseObject({})),
  verdicts_withheld: v.optional(v.looseObject({ count: v.number(), reason: v.string() })),
  fits_run: v.optional(v.number()),
  next: v.optional(v.array(v.looseObject({}))),
  task_id: v.optional(v.string()),
});

export type BacktestRequest = v.InferOutput<typeof BacktestRequestSchema>;
