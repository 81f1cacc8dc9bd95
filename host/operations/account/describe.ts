// svc_describe (docs/reference/journeys.md#describe "svc_describe"): what this server answers, with which fields, limits,
// prices and retention, and the free samples each with a ready-to-send ask (`try`, question key `q`).
import { SHAPE_FEATURES } from '../../table/shapes/index.ts';
import { LIMITS, parseBody } from '../../schemas/index.ts';
import { DEFAULT_CUTS, DEFAULT_LEVELS, DEFAULT_TOP_K } from '../../schemas/question.ts';
import { SAMPLES } from '../../../samples/catalog.ts';
import { CONTRACT, INTERFACE_VERSION } from '../../core/contract.ts';
import { journeysWithRest, type Journey } from './journeys.ts';
import type { OpContext, OpResult } from '../../runtime/services.ts';
import { FREE, READ_ONLY, type Operation } from '../operation.ts';
import { scheduleView } from '../schedules/view.ts';
import { DescribeRequestSchema, DescribeResponseSchema } from './describe.schema.ts';

/** A field as described to callers: name, wire type and its rules in words. */
type Field = [name: string, type: string, rules: string];
const fields = (list: Field[]) => list.map(([name, type, rules]) => ({ name, type, rules }));

const COMMON_QUESTION_FIELDS: Field[] = [
  ['outcome_column', 'string', 'The yes/no column to learn. Required (choice may use option_outcomes instead).'],
  ['outcome_is_desirable', 'boolean', 'true when the outcome is wanted, false when to be avoided. Never filled in by the service.'],
  [
    'positive_values',
    '(string | number)[]',
    'Values meaning yes (a number matches the values equal to it); omit for two-valued columns such as 0/1, true/false, yes/no.',
  ],
  ['refit_of', 'string', 'model_ref of an earlier answer on an older version of this record; adds a drift report.'],
];

/** docs/reference/README.md, docs/reference/ask.md#questions "Question types". */
const QUESTION_TYPES = [
  {
    type: 'yesno',
    answers: 'the chance the outcome happens, per case',
    needs_cases: true,
    fields: fields(COMMON_QUESTION_FIELDS),
  },
  {
    type: 'score',
    answers: 'that chance as a named level, per case',
    needs_cases: true,
    fields: fields([
      ...COMMON_QUESTION_FIELDS,
      ['levels', 'string[]', `${LIMITS.levelsMin} to ${LIMITS.levelsMax} levels, lowest first. Default ${DEFAULT_LEVELS.join(', ')}.`],
      [
        'cuts',
        'number[]',
        `${LIMITS.cutsMin} to ${LIMITS.cutsMax} ascending cuts strictly between 0 and 1, one fewer than levels. Default ${DEFAULT_CUTS.join(', ')}.`,
      ],
    ]),
  },
  {
    type: 'choice',
    answers: "the best option per case, each option's chance, most_likely and least_likely",
    needs_cases: true,
    fields: fields([
      ...COMMON_QUESTION_FIELDS.filter(([name]) => name !== 'outcome_is_desirable'),
      ['outcome_is_desirable', 'boolean', 'Required for choice: says whether the best option is the most or the least likely.'],
      ['option_column', 'string', 'A column the caller controls; each case is scored once per option.'],
      ['options', 'string[]', `With option_column: the ${LIMITS.optionsMin} to ${LIMITS.optionsMax} values to try.`],
      [
        'option_outcomes',
        'object',
        `Alternative form: option -> outcome column, ${LIMITS.optionOutcomesMin} to ${LIMITS.optionOutcomesMax} entries.`,
      ],
    ]),
  },
  {
    type: 'rank',
    answers: 'cases in order of the chance, highest first',
    needs_cases: false,
    fields: fields([
      ...COMMON_QUESTION_FIELDS,
      ['top_k', 'integer', `1 to ${LIMITS.topKMax}, default ${DEFAULT_TOP_K}. Omit cases to rank the whole record.`],
    ]),
  },
];

const COL = `string, 1 to ${LIMITS.columnNameMax} chars`;
const COLS = `string[], 1 to ${LIMITS.shapeColumnsMax} column names`;
/** docs/reference/ask.md#shapes; `available` says whether this server's svc_ask reads the kind; `features` names what each builds. */
const SHAPE_KINDS = [
  { kind: 'table', available: true, description: 'One row per case (the default when shape is omitted).', fields: [] },
  {
    kind: 'events',
    available: true,
    description: 'An event log, many rows per case.',
    fields: fields([
      ['event_column', COL, 'Column naming the event type.'],
      ['value_columns', COLS, 'Amounts to sum and average.'],
      ['label', 'object', 'Required: {lapsed: true} or {name, when}.'],
      ['horizon_days', '30 | 60 | 90', 'Outcome window at the end of the log. Default 30.'],
      ['lookback_days', '[30,90] | [7,30] | [90,365]', 'The two activity windows before the outcome window. Default [30,90].'],
      ['as_of', 'ISO 8601 string', 'End of the log. Default: latest time in the data.'],
    ]),
  },
  {
    kind: 'series',
    available: true,
    description: 'One row per case per period, outcome on each row.',
    fields: fields([
      ['value_columns', COLS, 'Required: numeric columns summarised over trailing windows.'],
      ['windows', '[3,6] | [7,30] | [4,12]', 'Required: periods.'],
    ]),
  },
  {
    kind: 'panel',
    available: true,
    description: "Periods per case; outcome read from a column's trend or final window.",
    fields: fields([
      ['label', 'object', 'Required: {trend_of, direction?, alpha?} or {window_of, periods?, agg?}.'],
      ['min_history', '2 | 3 | 5 | 8', 'Periods a case needs.'],
    ]),
  },
  {
    kind: 'signals',
    available: true,
    description: 'Timestamped sensor readings with fault or event intervals in the same table.',
    fields: fields([
      ['signal_columns', COLS, 'Required: numeric sensor columns.'],
      ['event_column', COL, 'A row with a value here is an interval, not a reading.'],
      ['event_start_column', COL, 'When an event interval starts.'],
      ['event_end_column', COL, 'When an event interval ends.'],
      ['windows', '[1,3,7] | [3,7,30] | [1,7,30]', 'Required: snapshots.'],
      ['snapshot_every', '1h | 6h | 1d | 1w', 'Required: one snapshot of each case per period.'],
      ['horizon', '1 | 3 | 7 | 30', 'Required: outcome is 1 when an event starts within this many snapshots.'],
      ['min_history', '3 | 5 | 10', 'Readings a snapshot needs. Default 3.'],
      ['as_of', 'ISO 8601 string', 'End of the log. Default: latest time in the data.'],
    ]),
  },
  {
    kind: 'traces',
    available: true,
    description: 'One row per agent run, with agent, task or tool columns.',
    fields: fields([
      ['agent_column', COL, 'The agent that ran.'],
      ['task_column', COL, 'The task.'],
      ['tool_column', COL, 'The tool.'],
    ]),
  },
  {
    kind: 'snapshots',
    available: true,
    description:
      'docs/reference/map.md#snapshots. Grid form: an event log read as a row per case per snapshot_every, outcome within horizon after each ' +
      'reading; cases.open asks about the readings at as_of. Table form (snapshots given): the log read at the moments of a ' +
      'snapshot table whose own columns hold the outcome; cases.ids name snapshots.',
    fields: fields([
      ['snapshot_every', '1d | 1w | 4w', 'Grid (required): one reading of each case per period, back from as_of.'],
      ['horizon', '{value: 1 | 7 | 30 | 60 | 90, unit: "days"}', 'Grid (required): the window after each reading.'],
      ['snapshots', 'object', 'Table form: the snapshot table, one of dataset_id, rows (up to 10,000), csv, fetch_url (+fetch_headers).'],
      ['snapshot_id_column', COL, 'Table form (required): names each snapshot.'],
      ['snapshot_time_column', COL, 'Table form (required): when each snapshot reads the log.'],
      ['lookback_days', '[30,90] | [7,30] | [90,365]', 'Table form: activity windows. Default [30,90].'],
      ['label', 'object', '{lapsed: true} or {name, when}; exactly one of label and outcome_time_column.'],
      [
        'outcome_time_column',
        COL,
        'Grid: the log column holding when the outcome happened (label <column>_next_<h>d). Table form: snapshots at or after it are dropped.',
      ],
      ['lookbacks_days', '[30,90] | [7,30] | [90,365]', 'Activity windows. Default [30,90].'],
      ['terminal', 'boolean', 'A case ends at its first yes. Default true for lapsed and outcome_time_column, false for {name, when}.'],
      ['event_column', COL, 'Column naming the event type.'],
      ['value_columns', COLS, 'Amounts to sum and average.'],
      ['as_of', 'ISO 8601 string', 'End of the log. Default: latest time in the data.'],
    ]),
  },
];

const SHAPES = SHAPE_KINDS.map((k) => ({ ...k, features: SHAPE_FEATURES[k.kind as keyof typeof SHAPE_FEATURES] }));

/** docs/reference/ask.md#states. */
const ANSWER_STATES = [
  {
    state: 'answered',
    meaning: 'The record supports an answer; each case carries p, reasons and a signed Verdict.',
    action: 'Use it. Billed one decision per answered case.',
  },
  {
    state: 'refused',
    meaning: 'No pattern holds on held-out rows. Free; the same call returns the same refusal.',
    action: 'Do not retry; add columns or change the question.',
  },
  {
    state: 'not_yet',
    meaning: 'Too few labeled rows to check the model; needs.labeled_rows says how many more. Free.',
    action: 'Add rows, then ask again.',
  },
];

/** docs/reference/limits.md#limits, every row, plus the `when` nesting cap this server adds. */
const LIMIT_LIST = {
  inline_rows: { min: 1, max: LIMITS.rowsMax, applies_to: 'data.rows and add-dataset rows, per call' },
  inline_csv_chars: { min: 1, max: LIMITS.csvMax },
  case_ids: { min: 1, max: LIMITS.caseIdsMax },
  case_rows: { min: 1, max: LIMITS.rowsMax },
  rank_top_k: { min: 1, max: LIMITS.topKMax, default: DEFAULT_TOP_K },
  question_name: { pattern: '^[A-Za-z0-9_-]{1,64}$' },
  levels: { min: LIMITS.levelsMin, max: LIMITS.levelsMax },
  cuts: { min: LIMITS.cutsMin, max: LIMITS.cutsMax },
  options: { min: LIMITS.optionsMin, max: LIMITS.optionsMax },
  option_outcomes: { min: LIMITS.optionOutcomesMin, max: LIMITS.optionOutcomesMax },
  value_columns: { min: 1, max: LIMITS.shapeColumnsMax },
  signal_columns: { min: 1, max: LIMITS.shapeColumnsMax },
  shape_column_name_chars: { min: 1, max: LIMITS.columnNameMax },
  when_all_any_items: { min: 1, max: LIMITS.whenItemsMax },
  // Not in docs/reference/limits.md#limits: this server's cap on all/any nesting (host/schemas/shape.ts), stated so callers can see it.
  when_all_any_nesting_levels: { max: LIMITS.whenDepthMax },
  idempotency_key_chars: { min: 1, max: LIMITS.idempotencyKeyMax, kept_hours: 24 },
  event_id_chars: { max: LIMITS.eventIdMax },
  outcomes_per_report: { min: 1, max: LIMITS.outcomesMax },
  filename: { pattern: '^[A-Za-z0-9._-]{1,120}$' },
  fetch_url: 'public https only; no redirects; private and internal hosts refused',
  free_fits_per_month: 1000,
  test_key: 'sample datasets only',
  first_ask_on_large_record: 'may take a minute or two (202 pending; follow with svc_poll)',
};

/** docs/reference/limits.md#cost. */
const PRICES = {
  currency: 'USD',
  answered_case: { price: 0.00002, per_million: 20, note: 'one decision; billable_decisions counts them' },
  fit: { price: 0.01, free_per_month: 1000 },
  free: ['refusals', 'not_yet', 'verification', 'sample datasets', 'storage', 'all supporting operations'],
};

/** docs/reference/limits.md#limits retention rows and 2.2. */
const RETENTION = {
  inline_data: 'deleted when the call ends',
  stored_dataset: '24 hours after last use, or at once with svc_delete_dataset',
  answers: '24 hours',
  poll_results: '24 hours',
  idempotency_keys: '24 hours',
  fitted_models: 'kept; they hold no rows',
};

/**
 * Built once, at the first describe: the bodies are copies of the samples' asks and the operations' examples,
 * each call with its REST route from the operation table (imported late: that table holds this operation).
 */
let journeysBuilt: Journey[] | undefined;
async function journeyList(): Promise<Journey[]> {
  if (journeysBuilt) return journeysBuilt;
  const { OPERATIONS } = await import('../index.ts');
  journeysBuilt = journeysWithRest(new Map(OPERATIONS.map((o) => [o.name, `${o.method} ${o.path}`])));
  return journeysBuilt;
}

export async function runDescribe(ctx: OpContext, body: unknown): Promise<OpResult> {
  parseBody(DescribeRequestSchema, body);
  const { config, engine } = ctx.services;
  // docs/reference/README.md: with a key, the workspace's schedules
  const schedules = ctx.caller
    ? (await ctx.services.store.listSchedules(ctx.caller.workspaceId)).map((s) => {
        const v = scheduleView(s);
        return {
          schedule_id: v.schedule_id,
          mapping_id: v.mapping_id,
          cadence: v.cadence,
          state: v.state,
          next_run_at: v.next_run_at,
          last_run: v.last_run,
        };
      })
    : undefined;
  return {
    status: 200,
    body: {
      interface_version: INTERFACE_VERSION,
      contract: CONTRACT,
      core_hash: engine.coreHash,
      question_types: QUESTION_TYPES,
      shapes: SHAPES,
      answer_states: ANSWER_STATES,
      limits: LIMIT_LIST,
      prices: PRICES,
      retention: RETENTION,
      auth: {
        scheme: 'HTTP bearer: Authorization: Bearer <API_KEY>',
        keys: { live: 'svck_live_...', test: 'svck_test_...' },
        test_keys: `POST ${config.baseUrl}/v1/agents/register returns a test key; it works on the samples below only.`,
        live_keys: `Created by the operator: ${config.keysUrl}`,
        no_key: ['svc_verify', 'svc_describe', 'register_agent'],
        scopes: { 'write:outcomes': 'Can report outcomes: needed by svc_report_outcomes and svc_attest' },
      },
      jwks_url: `${config.baseUrl}/.well-known/jwks.json`,
      // docs/reference/journeys.md#describe: the journeys of docs/reference/journeys.md#journeys, each with its first calls (schedules[] is added with svc_schedule)
      journeys: await journeyList(),
      samples: SAMPLES.map((s) => ({
        name: s.name,
        dataset_id: s.dataset_id,
        description: s.description,
        shape: s.shape,
        entity_column: s.entity_column,
        outcome_column: s.outcome_column,
        columns: s.columns,
        rows: s.rows,
        expected_state: s.expected_state,
        ...(s.expected_refusal !== undefined ? { expected_refusal: s.expected_refusal } : {}),
        try: s.try,
      })),
      ...(schedules ? { schedules } : {}),
    },
  };
}

/** svc_describe: the one declaration the transports, MCP, OpenAPI and tasks are derived from. */
export const describeOperation: Operation = {
  name: 'svc_describe',
  resource: 'account',
  path: '/v1/describe',
  method: 'POST',
  auth: 'none',
  keyIfGiven: true,
  body: 'json-optional',
  title: 'List capabilities and samples',
  description:
    'Lists what this service answers: question types and their fields, record shapes, answer states, limits, prices, ' +
    'retention, the user journeys (try it, ask your data, ship a product, run it, prove it) each with its first calls ' +
    '(a ready body where one can be given, else what each call needs), and the free sample datasets, each with a ' +
    'ready ask in `try` to send to svc_ask as it is. Call it ' +
    "first. Takes an empty object. No key needed; with one, also the workspace's schedules (schedules[]). " +
    FREE,
  request: DescribeRequestSchema,
  response: DescribeResponseSchema,
  status: 200,
  pending: false,
  tool: READ_ONLY,
  examples: [{ name: 'empty', summary: 'An empty object', value: {} }],
  run: runDescribe,
};
