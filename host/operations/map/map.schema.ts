// Contract 1.1 "ask your data" requests and replies (docs/reference/map.md#suggest svc_suggest, 2.7 svc_map): svc_map's here,
// svc_suggest's in datasets/suggest.schema.ts.
import * as v from 'valibot';
import { Integer, OpenMap } from '../../schemas/replies.ts';
import { ownRecord } from '../../schemas/record.ts';
import { NextStepSchema } from '../ask/ask.schema.ts';
import {
  FetchHeadersSchema,
  FetchUrlSchema,
  LIMITS,
  NamespaceSchema,
  NonEmptyStringSchema,
  RecordIdSchema,
  exactlyOneSource,
  objectRule,
} from '../../schemas/common.ts';
import { GridHorizonSchema } from '../../schemas/shape.ts';

const ColumnSchema = v.pipe(v.string(), v.minLength(1), v.maxLength(LIMITS.columnNameMax));

/** docs/reference/map.md#map source label: `^[A-Za-z0-9_-]{1,64}$`. */
export const SOURCE_LABEL_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const MAPPING_ID_PATTERN = /^mp_[0-9a-z_]{5,60}$/;

const MapSourceSchema = v.pipe(
  v.strictObject({
    dataset_id: v.optional(RecordIdSchema),
    fetch_url: v.optional(FetchUrlSchema),
    fetch_headers: v.optional(FetchHeadersSchema),
    label: v.optional(v.pipe(v.string(), v.regex(SOURCE_LABEL_PATTERN))),
  }),
  exactlyOneSource(['dataset_id', 'fetch_url']),
);

/** docs/reference/map.md#map answers: a slot names a column of a source by its label. */
const SourceColumnSchema = v.strictObject({ source: NonEmptyStringSchema, column: ColumnSchema });
const SourceColumnsSchema = v.pipe(v.array(SourceColumnSchema), v.minLength(1), v.maxLength(3));

export const MapAnswersSchema = v.strictObject({
  entity: v.optional(SourceColumnsSchema),
  time_column: v.optional(SourceColumnsSchema),
  outcome: v.optional(v.strictObject({ offer_id: v.pipe(v.string(), v.minLength(1), v.maxLength(300)) })),
  join: v.optional(v.strictObject({ table: NonEmptyStringSchema, right_key: ColumnSchema })),
});

const IsoSchema = v.pipe(v.string(), v.minLength(4), v.maxLength(40));

const MapObjectSchema = v.strictObject({
  sources: v.optional(v.pipe(v.array(MapSourceSchema), v.minLength(1), v.maxLength(3))),
  snapshot_every: v.optional(v.picklist(['1d', '1w', '4w'])),
  horizon: v.optional(GridHorizonSchema),
  outcome_words: v.optional(v.pipe(v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(64))), v.minLength(1), v.maxLength(8))),
  as_of: v.optional(IsoSchema),
  answers: v.optional(MapAnswersSchema),
  mapping_id: v.optional(v.pipe(v.string(), v.regex(MAPPING_ID_PATTERN))),
  closed_since: v.optional(IsoSchema),
  // decided (docs/decisions/README.md): mappings are kept per workspace and namespace
  namespace: v.optional(NamespaceSchema),
});

/** docs/reference/map.md#map: proposal (no answers), confirm (answers) or replay (mapping_id). */
export const MapRequestSchema = v.pipe(
  MapObjectSchema,
  objectRule<v.InferOutput<typeof MapObjectSchema>>((req, report) => {
    if (req.mapping_id === undefined && req.sources === undefined) report('sources', 'is required unless replaying a mapping_id');
    if (req.mapping_id !== undefined && req.sources !== undefined) {
      report('sources', 'must be omitted when replaying a mapping_id (the mapping keeps its sources)');
    }
    if (req.closed_since !== undefined && req.mapping_id === undefined) report('closed_since', 'is only allowed with mapping_id (replay)');
  }),
);

/**
 * docs/reference/map.md#map: a proposal (sources read, outcomes on offer, the join, the questions left to answer),
 * a confirmed mapping (its record, manifest, open cases and a ready ask), not_runnable or empty. The parts
 * documented there field by field are declared open here.
 */
export const MapResponseSchema = v.looseObject({
  status: v.picklist(['proposed', 'confirmed', 'not_runnable', 'empty']),
  // proposed
  sources: v.optional(v.array(OpenMap)),
  outcomes: v.optional(OpenMap),
  join: v.optional(v.nullable(OpenMap)),
  questions: v.optional(v.array(v.looseObject({ slot: v.string(), options: v.array(v.unknown()), why: v.string() }))),
  // confirmed
  mapping_id: v.optional(v.string()),
  record: v.optional(OpenMap),
  manifest: v.optional(OpenMap),
  open_cases: v.optional(v.looseObject({ count: Integer, sample_ids: v.array(v.string()) })),
  /** A ready svc_ask body over the built record. */
  ask: v.optional(OpenMap),
  /** Field -> why the ready ask says what it says there. */
  ask_notes: v.optional(ownRecord(v.string(), v.string())),
  // not_runnable and empty
  outcome: v.optional(OpenMap),
  /** not_runnable: the proposal as it stands, to answer differently. */
  proposal: v.optional(OpenMap),
  empty_reason: v.optional(v.string()),
  provenance: v.looseObject({ core_hash: v.string(), contract_hash: v.string() }),
  next: v.array(NextStepSchema),
});

export type MapRequest = v.InferOutput<typeof MapRequestSchema>;
export type MapAnswers = v.InferOutput<typeof MapAnswersSchema>;
