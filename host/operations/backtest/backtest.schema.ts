// Contract 1.1 svc_backtest (docs/reference/map.md#backtest): request and reply of a backtest of a built log record.
import * as v from 'valibot';
import { SUBJECT_KINDS } from '../../schemas/ask.ts';
import { LIMITS, NamespaceSchema, RecordIdSchema, maxChars } from '../../schemas/common.ts';
import { MAPPING_ID_PATTERN } from '../map/map.schema.ts';
import { Integer } from '../../schemas/replies.ts';
import { SignatureSchema } from '../../schemas/verdict.ts';
import { NextStepSchema, PageInfoSchema, ProgressSchema } from '../ask/ask.schema.ts';

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
/** The share of the window's positives found in the top `top`% (`k` cases) by chance. */
const Capture = v.array(v.looseObject({ top: v.number(), k: Integer, value: Metric }));
const Graded = v.looseObject({ capture: Capture, lift: TopPair });
const CutoffCounts = v.looseObject({ graded: Integer, not_yet: Integer, refused: Integer });

/** docs/reference/map.md#backtest record: what was read, and from which mapping. */
const BacktestRecordSchema = v.looseObject({
  outcome_column: v.string(),
  horizon: v.looseObject({ value: v.number(), unit: v.string() }),
  snapshot_every: v.string(),
  as_of: v.string(),
  mapping_id: v.optional(v.string()),
  record_hash: v.string(),
});

const SummarySchema = v.looseObject({
  cutoffs: CutoffCounts,
  capture: TopPair,
  lift: TopPair,
  baseline: v.nullable(v.looseObject({ capture: TopPair, lift: TopPair })),
});

/** docs/reference/map.md#backtest cutoffs[]: one per cutoff, graded against what came after it. */
const CutoffSchema = v.looseObject({
  at: v.string(),
  state: v.picklist(['graded', 'not_yet', 'refused']),
  reasons: v.array(v.string()),
  model_ref: v.nullable(v.string()),
  /** The readings known at the cutoff that the fit learned from. */
  train: v.looseObject({ rows: Integer, entities: Integer, positives_entities: Integer }),
  /** The cases read at the cutoff, and how many had the outcome in the window after it. */
  scored: v.looseObject({ entities: Integer, positives: Integer }),
  graded: v.nullable(
    v.looseObject({
      capture: Capture,
      lift: TopPair,
      calibration: v.array(v.looseObject({ bin: Integer, count: Integer, mean_p: Metric, observed: Metric })),
    }),
  ),
  /** The best single column's grades beside the model's (null with baseline none). */
  baseline: v.nullable(v.looseObject({ column: v.nullable(v.string()), direction: v.nullable(v.string()), graded: v.nullable(Graded) })),
});

/** docs/reference/verdicts.md: the signed body of a backtest's Verdict; it never expires. */
const BacktestVerdictSchema = v.looseObject({
  acknowledge_decision_support: v.boolean(),
  backtest: v.looseObject({
    baseline: v.string(),
    cutoffs: v.looseObject({ every: v.string(), last: Integer }),
    lift_bar: v.number(),
  }),
  backtest_id: v.string(),
  computed_at: v.string(),
  contract: v.string(),
  core_hash: v.string(),
  cutoffs: v.array(
    v.looseObject({
      at: v.string(),
      state: v.string(),
      model_ref: v.nullable(v.string()),
      scored: v.looseObject({ entities: Integer, positives: Integer }),
      lift: v.nullable(TopPair),
    }),
  ),
  dataset_id: v.string(),
  decision: v.string(),
  expires_at: v.null(),
  issuer: v.string(),
  kind: v.literal('backtest'),
  record: BacktestRecordSchema,
  subject_kind: v.string(),
  summary: SummarySchema,
  verdict_id: v.string(),
});

export const BacktestResponseSchema = v.looseObject({
  status: v.picklist(['done', 'pending']),
  // while pending (docs/reference/tasks.md#pending)
  task_id: v.optional(v.string()),
  retry_after_ms: v.optional(Integer),
  stage: v.optional(v.picklist(['reading_data', 'backtesting'])),
  elapsed_ms: v.optional(Integer),
  watch_url: v.optional(v.string()),
  progress: v.optional(ProgressSchema),
  // done
  dataset_id: v.optional(v.string()),
  namespace: v.optional(v.nullable(v.string())),
  backtest_id: v.optional(v.pipe(v.string(), v.regex(/^bt_[0-9a-f]{32}$/))),
  record: v.optional(BacktestRecordSchema),
  cutoffs: v.optional(v.array(CutoffSchema)),
  summary: v.optional(SummarySchema),
  decision: v.optional(v.picklist(['supported', 'not_supported', 'not_yet'])),
  verdict: v.optional(BacktestVerdictSchema),
  signature: v.optional(SignatureSchema),
  verdicts_withheld: v.optional(v.looseObject({ count: Integer, reason: v.string() })),
  page: v.optional(PageInfoSchema),
  fits_run: v.optional(Integer),
  free: v.optional(v.literal(true)),
  next: v.optional(v.array(NextStepSchema)),
});

export type BacktestRequest = v.InferOutput<typeof BacktestRequestSchema>;
