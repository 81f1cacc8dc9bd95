// Valid examples of every request (docs/reference/ask.md#request, docs/reference/README.md) are accepted unchanged; sample responses match their schemas.
import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { AskRequestSchema, ProblemSchema, parseBody } from '../../host/schemas/index.ts';
import { OPERATIONS } from '../../host/operations/index.ts';
import { DATASET_ID, MODEL_REF, QUESTIONS, SHAPES, TASK_ID, WHEN, ask } from './fixtures.ts';
import { DescribeRequestSchema } from '../../host/operations/account/describe.schema.ts';
import { VerifyRequestSchema } from '../../host/operations/account/verify.schema.ts';
import { AddDatasetRequestSchema } from '../../host/operations/datasets/add-dataset.schema.ts';
import { DeleteDatasetRequestSchema } from '../../host/operations/datasets/delete-dataset.schema.ts';
import { PreflightRequestSchema } from '../../host/operations/datasets/preflight.schema.ts';
import { DriftRequestSchema } from '../../host/operations/models/drift.schema.ts';
import { AttestRequestSchema } from '../../host/operations/outcomes/attest.schema.ts';
import { EvidenceRequestSchema } from '../../host/operations/outcomes/evidence.schema.ts';
import { ReportOutcomesRequestSchema } from '../../host/operations/outcomes/report-outcomes.schema.ts';
import { PollRequestSchema } from '../../host/operations/tasks/poll.schema.ts';

const fullAsk = {
  data: { rows: [{ customer_id: 'c1', plan: 'gold', churned: 1, renewed: 0, offer: 'call' }] },
  entity_column: 'customer_id',
  subject_kind: 'person',
  acknowledge_decision_support: true,
  questions: {
    will_churn: QUESTIONS.yesno,
    risk_level: QUESTIONS.score,
    best_offer: QUESTIONS.choiceColumn,
    best_channel: QUESTIONS.choiceOutcomes,
    top_risk: QUESTIONS.rank,
  },
  cases: { ids: ['c1'] },
  time_column: 'updated_at',
  shape: SHAPES.table,
  band: true,
  idempotency_key: 'retry-1',
};

const requests: [string, v.GenericSchema, unknown][] = [
  ['full ask with every question type', AskRequestSchema, fullAsk],
  ['yesno ask', AskRequestSchema, ask({ questions: { q: QUESTIONS.yesno } })],
  ['score ask', AskRequestSchema, ask({ questions: { q: QUESTIONS.score } })],
  ['choice ask by option_column', AskRequestSchema, ask({ questions: { q: QUESTIONS.choiceColumn } })],
  ['choice ask by option_outcomes', AskRequestSchema, ask({ questions: { q: QUESTIONS.choiceOutcomes } })],
  ['rank ask of the whole record', AskRequestSchema, { ...ask({ questions: { q: QUESTIONS.rank } }), cases: undefined }],
  ['ask on csv', AskRequestSchema, ask({ data: { csv: 'customer_id,churned\nc1,1\n' } })],
  [
    'ask on fetch_url',
    AskRequestSchema,
    ask({ data: { fetch_url: 'https://example.com/t.csv', fetch_headers: { Authorization: 'Bearer x' } } }),
  ],
  ['ask on a stored dataset', AskRequestSchema, ask({ data: { dataset_id: DATASET_ID } })],
  ['ask with case rows', AskRequestSchema, ask({ cases: { rows: [{ customer_id: 'new', plan: 'gold' }] } })],
  ...Object.entries(SHAPES).map(([kind, shape]): [string, v.GenericSchema, unknown] => [
    `${kind} shape ask`,
    AskRequestSchema,
    ask({ shape, time_column: 'ts' }),
  ]),
  ['add-dataset rows', AddDatasetRequestSchema, { rows: [{ a: 1, b: 'x', c: null }] }],
  ['add-dataset csv appended', AddDatasetRequestSchema, { dataset_id: DATASET_ID, csv: 'a,b\n1,2\n' }],
  ['add-dataset fetch_url', AddDatasetRequestSchema, { fetch_url: 'https://example.com/t.csv', fetch_headers: { a: 'b' } }],
  ['add-dataset upload', AddDatasetRequestSchema, { upload: true, filename: 'big_table-2024.csv' }],
  ['poll', PollRequestSchema, { task_id: TASK_ID }],
  [
    'preflight',
    PreflightRequestSchema,
    { dataset_id: 'sample:churn', outcome_column: 'churned', predictors: ['plan'], labelled_column: 'labelled' },
  ],
  ['preflight minimal', PreflightRequestSchema, { dataset_id: DATASET_ID }],
  [
    'report-outcomes',
    ReportOutcomesRequestSchema,
    {
      model_ref: MODEL_REF,
      outcomes: [
        { entity_id: 'c1', outcome: true, observed_at: '2024-06-01' },
        { entity_id: 'c2', outcome: 0, observed_at: '2024-06-01', event_id: 'e2' },
        { entity_id: 'c3', outcome: 'yes', observed_at: '2024-06-01T10:00:00Z' },
      ],
    },
  ],
  ['drift', DriftRequestSchema, { model_ref: MODEL_REF }],
  [
    'verify',
    VerifyRequestSchema,
    {
      verdict: { verdict_id: '01JABC', kind: 'answer', cases: [{ entity_id: 'c1', p: 0.5 }], trust: { auc: 0.8 } },
      signature: { protected: 'eyJ', signature: 'abc', kid: 'k1' },
    },
  ],
  ['describe', DescribeRequestSchema, {}],
  ['delete-dataset', DeleteDatasetRequestSchema, { dataset_id: DATASET_ID }],
  [
    'attest',
    AttestRequestSchema,
    { model_ref: MODEL_REF, entity_id: 'c1', lever_token: 'tok', post_value: 'gold', acted_at: '2024-06-01', event_id: 'a1' },
  ],
  ['evidence', EvidenceRequestSchema, { model_ref: MODEL_REF }],
];

describe('valid requests', () => {
  it.each(requests)('%s is accepted unchanged', (_label, schema, body) => {
    expect(parseBody(schema, body)).toEqual(body);
  });

  it('keeps a deeply nested when expression', () => {
    const out = parseBody(AskRequestSchema, ask({ shape: SHAPES.events, time_column: 'ts' }));
    expect(out.shape?.kind === 'events' && out.shape.label).toEqual({ name: 'cancelled', when: WHEN });
  });
});

const reason = { feature_label: 'plan', value: 'gold', likelihood_direction: 'higher', strength: 'strong', association_not_causal: true };
const answered = {
  type: 'yesno',
  state: 'answered',
  cache: 'miss',
  model_ref: MODEL_REF,
  polarity: null,
  quality: {
    validation_scheme: 'entity_hash',
    folds: 0,
    auc: 0.81,
    auc_interval: [0.76, 0.86],
    top_decile_lift: 3.1,
    realised_lift: 2.4,
    brier: 0.12,
    log_loss: 0.38,
    base_rate: 0.17,
    training_rows: 600,
    held_out_rows: 200,
    held_out_positives: 34,
    excluded_columns: [{ column: 'customer_id', why: 'entity' }],
  },
  cases: [{ entity_id: 'c1', p: 0.42, reasons: [reason], levers: [] }],
  verdicts: [
    {
      verdict: {
        acknowledge_decision_support: false,
        cases: [{ entity_id: 'c1', p: 0.42, p_display: '42%', reasons: [reason] }],
        computed_at: '2026-01-01T00:00:00.000Z',
        contract: 'outcome-question/1.1.0',
        core_hash: 'h',
        expires_at: '2026-04-01T00:00:00.000Z',
        issuer: 'https://example.test',
        kind: 'answer',
        model_ref: MODEL_REF,
        outcome: { column: 'churned', polarity: null, positive_values: ['1'] },
        question: 'q1',
        record_hash: 'x',
        subject_kind: 'person',
        trust: { auc: 0.81, realised_lift: 2.4, top_decile_lift: 3.1, validation_scheme: 'entity_hash' },
        type: 'yesno',
        verdict_id: 'v',
      },
      signature: { protected: 'p', signature: 's', kid: 'k' },
    },
  ],
};
/** The reply schema the operation table gives the operation `name`. */
const responseOf = (name: string): v.GenericSchema => OPERATIONS.find((op) => op.name === name)!.response!;

const responses: [string, unknown][] = [
  [
    'svc_ask',
    {
      status: 'done',
      contract: 'c',
      core_hash: 'h',
      record: { content_hash: 'x', rows: 3 },
      answers: { q1: answered },
      fits_run: 1,
      billable_decisions: 1,
    },
  ],
  [
    'svc_ask',
    { status: 'done', answers: { q1: { type: 'choice', state: 'refused', reasons: ['option_not_in_pattern'], retry: 'unproductive' } } },
  ],
  ['svc_ask', { status: 'done', answers: { q1: { type: 'rank', state: 'not_yet', needs: { labeled_rows: null } } } }],
  [
    'svc_poll',
    {
      status: 'pending',
      task_id: TASK_ID,
      retry_after_ms: 1000,
      stage: 'asking',
      elapsed_ms: 12,
      watch_url: 'https://example.test/watch/t',
      progress: { stage: 'fitting', frac: 0.4, fit: 1, of: 1, bag: 3, bags: 8, facts_so_far: { rows: 10 } },
    },
  ],
  [
    'svc_add_dataset',
    {
      dataset_id: DATASET_ID,
      status: 'awaiting_upload',
      rows: null,
      columns: null,
      upload_url: 'u',
      upload_method: 'PUT',
      expires_in: 3600,
    },
  ],
  [
    'svc_preflight',
    {
      dataset_id: 'sample:x',
      grain: { rows: 2, entities: 2, rows_per_entity_max: 1, one_row_per_entity: true, entity_column: 'id', entity_inferred_from: 'name' },
      resolutions: { id: { kind: 'identifier', missing: 0, distinct: 2 } },
      fitness: null,
      blocking: [],
      advisory: ['a'],
    },
  ],
  ['svc_report_outcomes', { written: 2, duplicates: 0 }],
  ['svc_drift', { pattern: 'no_prior', recommendation: 'keep' }],
  [
    'svc_drift',
    { pattern: 'changed', recommendation: 'keep', refit_quality: 'worse', keep_model_ref: MODEL_REF, note_code: 'refit_worse', note: 'n' },
  ],
  ['svc_drift', { pattern: 'no_prior', recommendation: 'no_check_yet', refit_quality: 'not_comparable', keep_model_ref: null }],
  [
    'svc_report_outcomes',
    {
      written: 1,
      results: [
        { index: 0, status: 'written' },
        { index: 1, status: 'error', field: 'outcomes.1.outcome', detail: 'd' },
      ],
    },
  ],
  [
    'svc_track_record',
    {
      model_ref: MODEL_REF,
      answers_kept: 0,
      records_since: null,
      outcomes_without_an_earlier_answer: 0,
      outcomes_answered_later: 0,
      overall: { calls: 0, happened: 0, observed_rate: null, interval_95: null, mean_chance: null, small_n: true },
      by_band: [],
      by_level: [],
      by_chance: [
        { range: '0.0-0.1', calls: 1, happened: 0, observed_rate: 0, interval_95: [0, 0.793451], mean_chance: 0.05, small_n: true },
      ],
    },
  ],
  ['svc_verify', { status: 'expired' }],
  [
    'svc_describe',
    {
      interface_version: '1.1.0',
      contract: 'outcome-question/1.1.0',
      core_hash: 'h',
      question_types: [
        { type: 'yesno', answers: 'a chance', needs_cases: true, fields: [{ name: 'outcome_column', type: 'string', rules: 'r' }] },
      ],
      shapes: [{ kind: 'table', available: true, description: 'd', fields: [], features: [{ name: '{c}', meaning: 'm' }] }],
      answer_states: [{ state: 'answered', meaning: 'm', action: 'a' }],
      limits: {},
      prices: { currency: 'USD' },
      retention: { answers: '24 hours' },
      auth: { scheme: 's' },
      jwks_url: 'https://example.test/.well-known/jwks.json',
      samples: [
        {
          name: 'churn',
          dataset_id: 'sample:churn',
          description: 'd',
          shape: 'table',
          entity_column: 'id',
          outcome_column: 'y',
          columns: [{ name: 'id', type: 'id', description: 'd' }],
          rows: 2,
          expected_state: 'answered',
          try: {},
        },
      ],
      journeys: [{ name: 'try_it', title: 'Try it', summary: 's', first_calls: [{ operation: 'svc_describe', does: 'd', body: {} }] }],
    },
  ],
  ['svc_delete_dataset', { dataset_id: DATASET_ID, deleted: true }],
  ['svc_attest', { compliant: true, evaluated_feature: 'plan', evaluated_direction: 'increase', event_id: null, written: true }],
  [
    'svc_evidence',
    {
      model_ref: MODEL_REF,
      live: null,
      progress: { attestations: 0, compliant_attestations: 0, n_acted: 0, n_not_acted: 0, entities_with_outcome: 0, needed_per_group: 30 },
      note: 'Observational, not causal.',
    },
  ],
  ['register_agent', { api_key: 'svck_test_x', mode: 'test' }],
];

describe('response schemas', () => {
  it.each(responses)('%s example matches', (op, body) => {
    expect(v.safeParse(responseOf(op), body).issues).toBeUndefined();
  });

  it('a case result has at most four reasons', () => {
    const caseResult = { entity_id: 'c1', p: 0.5, reasons: [reason, reason, reason, reason, reason] };
    const bad = { status: 'done', answers: { q1: { ...answered, cases: [caseResult] } } };
    expect(v.safeParse(responseOf('svc_ask'), bad).success).toBe(false);
  });

  it('a problem requires type, title, status, detail, code and remedy', () => {
    const problem = { type: 't', title: 't', status: 422, detail: 'd', code: 'invalid_request', remedy: 'r', field: 'x' };
    expect(v.safeParse(ProblemSchema, problem).success).toBe(true);
    expect(v.safeParse(ProblemSchema, { ...problem, remedy: undefined }).success).toBe(false);
  });
});
