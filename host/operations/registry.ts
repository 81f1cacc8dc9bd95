// The one table of spec-4 operations (name, path, schemas, tool hints, texts for agents); REST routes
// supply `run` and `auth`, and MCP tools and the OpenAPI document are derived from the two joined.
import type * as v from 'valibot';
import { REQUEST_SCHEMAS, RESPONSE_SCHEMAS } from '../schemas/index.ts';
import { SAMPLES } from '../../samples/catalog.ts';
import type { OpContext, OpResult } from '../services.ts';

export type OperationName = keyof typeof RESPONSE_SCHEMAS;

/** MCP tool annotations (spec 4.13); every hint is set explicitly. */
export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface OperationExample {
  name: string;
  summary: string;
  value: Record<string, unknown>;
}

export interface OperationInfo {
  name: OperationName;
  /** Spec 4: `POST {base_url}<path>`. */
  path: string;
  title: string;
  /** For an agent: when to use it, what comes back, what it costs (spec 1 "Cost"). */
  description: string;
  /** Cross-field rules the request schema holds but JSON Schema cannot express (raw checks are skipped). */
  rules?: string;
  /** Absent: the operation reads no body (register_agent, spec 4.12). */
  request?: v.GenericSchema;
  response: v.GenericSchema;
  /** The success status (spec 4.12: register_agent answers 201). */
  status: 200 | 201;
  /** Spec 3.2: may answer 202 with {status: "pending", task_id, retry_after_ms}. */
  pending: boolean;
  /** Spec 1: every operation is also an MCP tool of the same name; its hints (spec 4.13). */
  tool: ToolHints;
  /**
   * Request bodies a reader can send: as they are when they need no earlier call; else with the ids
   * (EXAMPLE_IDS) replaced by those earlier calls gave.
   */
  examples: OperationExample[];
}

/** What a transport route contributes: the REST routes of host/routes are these. */
export interface RouteLike {
  method: string;
  path: string;
  auth: 'key' | 'none';
  run(ctx: OpContext, body: unknown): Promise<OpResult>;
}

/** An operation this server serves: its table entry joined with the route that runs it. */
export interface ImplementedOperation extends OperationInfo {
  auth: 'key' | 'none';
  run(ctx: OpContext, body: unknown): Promise<OpResult>;
}

const READ: ToolHints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const FREE = 'Free.';

const ASK_RULES =
  'Also required, beyond what the input schema says: data has exactly one of dataset_id, rows, csv, fetch_url (fetch_headers only ' +
  'with fetch_url); cases has exactly one of ids or rows, and is required unless every question is rank; subject_kind ' +
  'person requires acknowledge_decision_support: true; time_column is required with any shape other than table; score: ' +
  'cuts has one fewer item than levels and is strictly ascending (levels alone must have 4 items, cuts alone 3); ' +
  'choice: option_column with options, or option_outcomes (not both), and outcome_column unless option_outcomes is given.';

const ADD_DATASET_RULES =
  'Also required, beyond what the input schema says: exactly one of rows, csv, fetch_url, upload; fetch_headers only with fetch_url; ' +
  'upload cannot be combined with dataset_id.';

/**
 * Ids the stateful examples name. They have the real formats (spec 2.2, 2.3, 4.3) but belong to no
 * workspace: a reader puts in the ones earlier calls gave, e.g. the model_ref of the saas_churn ask.
 */
export const EXAMPLE_IDS = {
  modelRef: 'mr1_6f1c2b9e4a7d40c58e3b91d2a0f4c7e1',
  taskId: 'tk_01jz8q4m6r2v9x3k7n5p0w1c8d',
  datasetId: 'ds_01jz8q4m6r2v9x3k7n5p0w1c8d',
  // A lever token is a signed payload (operations/lever-token.ts); this one is unsigned, for the shape only.
  leverToken:
    'eyJtIjoibXIxXzZmMWMyYjllNGE3ZDQwYzU4ZTNiOTFkMmEwZjRjN2UxIiwiZSI6ImN1c3RfMDAwMSIsImYiOiJzdXBwb3J0X3RpY2tldHMiLCJiIjo1LCJkIjoiZGVjcmVhc2UifQ.' +
    'q7Vn0m3X2c9YtR1kP8sW4eJ6hL5uA0bD3fG2iK9oM1N',
} as const;

const EXAMPLE_ROWS = Array.from({ length: 6 }, (_, i) => ({
  id: `c${i + 1}`,
  visits: 3 + i,
  plan: i % 2 ? 'pro' : 'basic',
  renewed: i % 3 === 0,
}));

/** Spec 4, in its order; spec 1: each is also an MCP tool of the same name (register_agent included). */
export const OPERATIONS: readonly OperationInfo[] = [
  {
    name: 'svc_ask',
    path: '/v1/ask',
    title: 'Ask typed questions about cases',
    description:
      'Answers typed questions (yesno: the chance an outcome happens; score: that chance as a level; choice: the best ' +
      'option per case; rank: cases by chance) about cases, learned from a record of past cases with a yes/no outcome. ' +
      'It does not read free text, count, do arithmetic or predict a number. Start with svc_describe: each free sample ' +
      'has a ready ask in `try`. Returns {status: "done", answers: {<question>: answer}}; read each answer\'s `state` ' +
      'first: answered (each case has p from 0 to 1, up to four reasons, which are associations and not causes, and the ' +
      'answer carries signed verdicts for svc_verify), refused (no pattern held on held-out rows; the same call refuses ' +
      'again, so change the question or add columns) or not_yet (needs.labeled_rows more labeled rows). A refusal is an ' +
      'answer, not an error. The first ask on a large record may instead return {status: "pending", task_id, ' +
      'retry_after_ms}: wait retry_after_ms, then call svc_poll with the task_id; never re-send the ask while pending ' +
      '(it starts a second fit). Cost: 0.00002 USD per answered case (billable_decisions); a fit is free for the first ' +
      '1,000 each month, then 0.01 USD; refusals, not_yet and sample datasets are free. A repeated ask bills again ' +
      'unless it reuses idempotency_key. A test key works on sample datasets (sample:<name>) only. Bulk scoring of ' +
      'thousands of cases belongs on REST (POST /v1/ask).',
    rules: ASK_RULES,
    request: REQUEST_SCHEMAS.svc_ask,
    response: RESPONSE_SCHEMAS.svc_ask,
    status: 200,
    pending: true,
    // Spec 4.13: read-only, open-world (fetch_url). Not idempotent: each call bills (spec 1 "Cost").
    tool: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    examples: SAMPLES.map((s) => ({ name: s.name, summary: `The ready ask of sample ${s.name}`, value: { ...s.try } })),
  },
  {
    name: 'svc_add_dataset',
    path: '/v1/add-dataset',
    title: 'Store a table',
    description:
      'Stores a table as a dataset_id (ds_...) to ask about later, for a record you will ask about more than once or one ' +
      'too big for one call: send rows or csv (up to 10,000 rows per call) and append more pieces with dataset_id until ' +
      'the first ask seals it (a piece with different columns is refused); or fetch_url (a public https CSV; no ' +
      'redirects; private hosts refused); or upload: true for a presigned PUT URL for a large CSV. Returns {dataset_id, ' +
      'status (open, ready or awaiting_upload), rows, columns} and, for an upload, upload_url, upload_method and ' +
      'expires_in. A stored dataset is deleted 24 hours after it was last used. Needs a live key. ' +
      FREE,
    rules: ADD_DATASET_RULES,
    request: REQUEST_SCHEMAS.svc_add_dataset,
    response: RESPONSE_SCHEMAS.svc_add_dataset,
    status: 200,
    pending: false,
    // Spec 4.13: writes, open-world (fetch_url); each call stores another dataset or piece.
    tool: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    examples: [
      { name: 'rows', summary: 'A small table as rows', value: { rows: EXAMPLE_ROWS } },
      { name: 'csv', summary: 'The same table as CSV text', value: { csv: 'id,visits,plan,renewed\nc1,3,basic,true\nc2,4,pro,false\n' } },
    ],
  },
  {
    name: 'svc_poll',
    path: '/v1/poll',
    title: 'Follow a pending ask',
    description:
      'Follows an ask that returned status "pending": call it with that task_id after retry_after_ms. Returns ' +
      '{status: "pending", task_id, retry_after_ms, stage, elapsed_ms} while the fit runs, then exactly the reply the ask ' +
      'would have returned (status "done"). Results are kept 24 hours; an unknown task_id is unknown_task. ' +
      FREE,
    request: REQUEST_SCHEMAS.svc_poll,
    response: RESPONSE_SCHEMAS.svc_poll,
    status: 200,
    pending: true,
    tool: READ,
    examples: [{ name: 'task', summary: 'The task_id an ask gave with status "pending"', value: { task_id: EXAMPLE_IDS.taskId } }],
  },
  {
    name: 'svc_preflight',
    path: '/v1/preflight',
    title: 'Check a table before asking',
    description:
      'Checks a stored dataset or a sample before asking; fits nothing and refuses nothing. Returns grain (whether one ' +
      'row is one kind of thing), resolutions (what each column holds; an ambiguous column is not a sound predictor), ' +
      'fitness (positives per usable predictor; null unless outcome_column is named), blocking (reasons an answer from ' +
      'this table would not be believable) and advisory notes. A clean preflight does not promise a pattern exists. ' +
      'Tables only; it seals an open dataset. ' +
      FREE,
    request: REQUEST_SCHEMAS.svc_preflight,
    response: RESPONSE_SCHEMAS.svc_preflight,
    status: 200,
    pending: false,
    tool: READ,
    examples: [
      {
        name: 'sample',
        summary: 'Preflight a sample for its outcome',
        value: { dataset_id: 'sample:saas_churn', outcome_column: 'churned' },
      },
    ],
  },
  {
    name: 'svc_report_outcomes',
    path: '/v1/report-outcomes',
    title: 'Report real outcomes',
    description:
      'Records the real outcomes of cases answered under a model_ref (from an answered ask). Outcomes are evidence about ' +
      "the model's track record; they never change a model or an answer. All or nothing: one bad item rejects the call " +
      '(invalid_outcomes lists them). Give each item an event_id so a retry counts it as a duplicate, not twice. Returns ' +
      '{written, duplicates}. Needs a key with the write:outcomes capability (Can report outcomes). ' +
      FREE,
    request: REQUEST_SCHEMAS.svc_report_outcomes,
    response: RESPONSE_SCHEMAS.svc_report_outcomes,
    status: 200,
    pending: false,
    // Idempotent only per event_id (wire.md), so not in general.
    tool: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    examples: [
      {
        name: 'outcomes',
        summary: 'What really happened to two cases answered under a model_ref (here the saas_churn ask), each with an event_id',
        value: {
          model_ref: EXAMPLE_IDS.modelRef,
          outcomes: [
            { entity_id: 'cust_0001', outcome: true, observed_at: '2025-07-01T00:00:00Z', event_id: 'renewal-2025-07-cust_0001' },
            { entity_id: 'cust_0002', outcome: 0, observed_at: '2025-07-01', event_id: 'renewal-2025-07-cust_0002' },
          ],
        },
      },
    ],
  },
  {
    name: 'svc_drift',
    path: '/v1/drift',
    title: 'Compare a refit with the previous fit',
    description:
      'Compares a refit with the fit it replaced: call it with the model_ref of an answer whose ask set refit_of to the ' +
      'earlier model_ref. Returns pattern (unchanged, changed or no_prior) and recommendation (keep, refit or abandon), ' +
      'with a report. A single refusal on a refresh is not drift. ' +
      FREE,
    request: REQUEST_SCHEMAS.svc_drift,
    response: RESPONSE_SCHEMAS.svc_drift,
    status: 200,
    pending: false,
    tool: READ,
    examples: [{ name: 'refit', summary: 'The model_ref of an answer whose ask set refit_of', value: { model_ref: EXAMPLE_IDS.modelRef } }],
  },
  {
    name: 'svc_verify',
    path: '/v1/verify',
    title: 'Verify a Verdict',
    description:
      'Checks that a Verdict is genuine, unaltered and unexpired. Pass verdict and signature exactly as svc_ask returned ' +
      'them (re-serialising breaks the signature). Returns status: valid, invalid_signature, expired or unknown_key. ' +
      'Never act on a Verdict that is not valid; an expired one is stale, so ask again. No key needed. ' +
      FREE,
    request: REQUEST_SCHEMAS.svc_verify,
    response: RESPONSE_SCHEMAS.svc_verify,
    status: 200,
    pending: false,
    tool: READ,
    examples: [
      {
        name: 'shape',
        summary: 'The shape of a call (this made-up Verdict reports invalid_signature)',
        value: {
          verdict: { verdict_id: '01JAAAAAAAAAAAAAAAAAAAAAAA', kind: 'answer' },
          signature: { protected: 'eyJhbGciOiJFZERTQSJ9', signature: 'AAAA', kid: 'example' },
        },
      },
    ],
  },
  {
    name: 'svc_describe',
    path: '/v1/describe',
    title: 'List capabilities and samples',
    description:
      'Lists what this service answers: question types and their fields, record shapes, answer states, limits, prices, ' +
      'retention, and the free sample datasets, each with a ready ask in `try` to send to svc_ask as it is. Call it ' +
      'first. Takes an empty object. No key needed. ' +
      FREE,
    request: REQUEST_SCHEMAS.svc_describe,
    response: RESPONSE_SCHEMAS.svc_describe,
    status: 200,
    pending: false,
    tool: READ,
    examples: [{ name: 'empty', summary: 'An empty object', value: {} }],
  },
  {
    name: 'svc_delete_dataset',
    path: '/v1/delete-dataset',
    title: 'Delete a stored dataset',
    description:
      'Deletes a stored dataset now: its rows are removed and the dataset_id stops working. Cannot be undone. Fitted ' +
      'models hold no rows and are not affected. Returns {dataset_id, deleted: true}; an unknown or already deleted id ' +
      'is unknown_dataset. ' +
      FREE,
    request: REQUEST_SCHEMAS.svc_delete_dataset,
    response: RESPONSE_SCHEMAS.svc_delete_dataset,
    status: 200,
    pending: false,
    // Spec 4.13: destructive. Deleting twice changes nothing more.
    tool: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    examples: [{ name: 'dataset', summary: 'The dataset_id svc_add_dataset gave', value: { dataset_id: EXAMPLE_IDS.datasetId } }],
  },
  {
    name: 'svc_attest',
    path: '/v1/attest',
    title: 'Record that a case was acted on',
    description:
      "Records that a case was acted on through a lever (a lever_token from a case's levers in an answered ask) and the " +
      'value after acting; the engine judges compliance. Returns {compliant, evaluated_feature, evaluated_direction, ' +
      'event_id, written}. An event_id makes a retry safe. Needs the write:outcomes capability. ' +
      FREE,
    request: REQUEST_SCHEMAS.svc_attest,
    response: RESPONSE_SCHEMAS.svc_attest,
    status: 200,
    pending: false,
    tool: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    examples: [
      {
        name: 'lever',
        summary:
          'Case cust_0001 was acted on through the lever_token its answer gave (an ask with outcome_is_desirable), and now has 2 tickets',
        value: {
          model_ref: EXAMPLE_IDS.modelRef,
          entity_id: 'cust_0001',
          lever_token: EXAMPLE_IDS.leverToken,
          post_value: 2,
          acted_at: '2025-06-02T09:30:00Z',
          event_id: 'act-2025-06-02-cust_0001',
        },
      },
    ],
  },
  {
    name: 'svc_evidence',
    path: '/v1/evidence',
    title: 'Did acting work?',
    description:
      'Compares outcomes of cases acted on (svc_attest) with cases not acted on (svc_report_outcomes) for a model_ref. ' +
      '`live` stays null until each group has at least 30 cases with an outcome; `progress` says how far along it is. ' +
      'Observational, not causal. ' +
      FREE,
    request: REQUEST_SCHEMAS.svc_evidence,
    response: RESPONSE_SCHEMAS.svc_evidence,
    status: 200,
    pending: false,
    tool: READ,
    examples: [
      { name: 'model', summary: 'The model_ref whose cases were attested and reported on', value: { model_ref: EXAMPLE_IDS.modelRef } },
    ],
  },
  {
    name: 'register_agent',
    path: '/v1/agents/register',
    title: 'Get a test key',
    description:
      'Gets you a key when you have none: makes a new workspace and returns {api_key: "svck_test_...", mode: "test", ' +
      'note}. The key is shown once, so keep it. It works on the free sample datasets only (svc_describe lists them, ' +
      'each with a ready ask for svc_ask); a live key for your own data comes from the operator of this service. Over ' +
      'MCP a key is not a tool argument: send it as the HTTP header Authorization: Bearer <api_key> on later requests ' +
      '(reconnect your MCP client with that header). Each call makes another workspace and key, so call it once and ' +
      'reuse the key. Takes no arguments and needs no key. Rate-limited per client address, shared with POST ' +
      '/v1/agents/register (a rate_limited Problem carries retry_after_ms). ' +
      FREE,
    response: RESPONSE_SCHEMAS.register_agent,
    status: 201,
    pending: false,
    // Spec 4.13 names no hint for it: it writes (a workspace and a key), never deletes, each call makes a
    // new key (not idempotent), and it talks to nothing outside this service.
    tool: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    examples: [],
  },
];

/**
 * The operations these routes serve, in spec order: each table entry joined with its POST route, so the
 * transports call the route's own operation function and share its auth (routes/ holds no behaviour).
 */
export function implementedOperations(routes: readonly RouteLike[]): ImplementedOperation[] {
  const out: ImplementedOperation[] = [];
  for (const info of OPERATIONS) {
    const route = routes.find((r) => r.method === 'POST' && r.path === info.path);
    if (route) out.push({ ...info, auth: route.auth, run: route.run });
  }
  return out;
}
