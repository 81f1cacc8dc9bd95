// The user journeys svc_describe lists (docs/reference/journeys.md#journeys, docs/reference/journeys.md#describe): each journey with its first calls in order,
// a ready body wherever this service can give one (the samples' asks, sample logs for map and backtest),
// else what the call needs and which earlier call gives it.
import { SAMPLES } from '../../../samples/catalog.ts';
import { backtestOperation } from '../backtest/backtest.ts';
import { SAMPLE_LOGS } from '../backtest/record.ts';
import { mapOperation } from '../map/map.ts';
import type { Operation } from '../operation.ts';

/**
 * One call of a journey: `operation` the MCP tool, `rest` the same call over REST (`POST /v1/ask`); `body` is
 * sendable as it is (on the samples, with any key); `needs` what to fill in.
 */
export interface JourneyCall {
  operation: string;
  rest?: string;
  does: string;
  body?: Record<string, unknown>;
  needs?: string[];
}

export interface Journey {
  name: string;
  title: string;
  summary: string;
  first_calls: JourneyCall[];
}

function example(op: Operation, name: string): Record<string, unknown> {
  const found = op.examples.find((e) => e.name === name);
  if (!found) throw new Error(`${op.name} has no example ${name}`);
  return structuredClone(found.value) as Record<string, unknown>;
}

const sampleAsk = (name: string) => structuredClone(SAMPLES.find((s) => s.name === name)!.try) as unknown as Record<string, unknown>;

/** A sample's ready ask turned into a product's: asked in a customer's namespace, its model kept 90 days. */
function productAsk(): Record<string, unknown> {
  return { ...sampleAsk('saas_churn'), namespace: 'acme', model_ttl_days: 90 };
}

const SCORE_BY_REF = 'model_ref of an earlier answer (answers.<q>.model_ref)';

/** The journeys with each call's REST method and path beside its tool name (`paths`: operation name to `POST /v1/...`). */
export function journeysWithRest(paths: ReadonlyMap<string, string>): Journey[] {
  return journeys().map((j) => ({
    ...j,
    first_calls: j.first_calls.map(({ operation, ...rest }) => ({ operation, rest: paths.get(operation), ...rest })),
  }));
}

/** docs/reference/journeys.md#journeys, in its order. */
export function journeys(): Journey[] {
  return [
    {
      name: 'try_it',
      title: 'Try it',
      summary: 'Without data: ask a sample, follow it while pending, verify its Verdict; map and backtest a sample log, free.',
      first_calls: [
        { operation: 'svc_describe', does: 'What this service answers, and the samples with their ready asks.', body: {} },
        { operation: 'svc_ask', does: "The saas_churn sample's ready ask (every sample's `try` is one).", body: sampleAsk('saas_churn') },
        { operation: 'svc_poll', does: 'While the ask is pending (202).', needs: ['task_id (from the pending ask)'] },
        {
          operation: 'svc_verify',
          does: 'Check a Verdict of the answer (no key needed).',
          needs: ['verdict and signature (answers.<q>.verdicts[i], exactly as received)'],
        },
        {
          operation: 'svc_map',
          does: 'Build a record from the customer_events sample log: who lapses within 60 days of a weekly reading.',
          // the reading a backtest of this sample log uses when it has no mapping (backtest/record.ts SAMPLE_LOGS),
          // so the backtest after this map says what a backtest in a fresh workspace says
          body: { ...example(mapOperation, 'confirm'), horizon: SAMPLE_LOGS['sample:customer_events'].reading.horizon },
        },
        {
          operation: 'svc_backtest',
          does:
            'What that record would have supported week by week. It reads the newest mapping of the log (record.mapping_id names it); ' +
            'send mapping_id to read another.',
          body: example(backtestOperation, 'sample'),
        },
      ],
    },
    {
      name: 'ask_your_data',
      title: 'Ask your data',
      summary: 'With past cases and a yes/no outcome: store the sources, build a record, check its past, then ask.',
      first_calls: [
        {
          operation: 'svc_add_dataset',
          does: 'Store a table or log (upload: true for files over the inline limits).',
          needs: ['rows, csv, fetch_url or upload: true (your data; a live key)'],
        },
        {
          operation: 'svc_suggest',
          does: 'Which questions a table supports, each with a ready question (here on a sample).',
          body: { data: { dataset_id: 'sample:saas_churn' }, entity_column: 'customer_id' },
        },
        {
          operation: 'svc_map',
          does: 'Sources to a record: first a proposal, then answers build it and give a ready ask (here a sample log).',
          body: example(mapOperation, 'proposal'),
        },
        {
          operation: 'svc_backtest',
          does: "What the built record's own past supported.",
          needs: ['data.dataset_id (the dataset_id svc_map gave)'],
        },
        { operation: 'svc_ask', does: 'Ask about open cases.', needs: ['the `ask` svc_map gave, sent as it is'] },
        {
          operation: 'svc_page',
          does: 'The next page of a large answer over MCP.',
          needs: ['cursor (page.next_cursor of the answer)'],
        },
      ],
    },
    {
      name: 'ship_a_product',
      title: 'Ship a product',
      summary: "Ask once per customer in its namespace, then score new cases by model_ref with no fit; manage each model's life.",
      first_calls: [
        {
          operation: 'svc_profile',
          does: "A namespace's words and display (read; send words, exclude, fixed or display to replace).",
          body: { namespace: 'acme' },
        },
        { operation: 'svc_ask', does: "Fit once in the customer's namespace, keeping the model 90 days.", body: productAsk() },
        {
          operation: 'svc_ask',
          does: 'Score new cases with that model, no fit: questions.<q>.model_ref with cases.rows.',
          needs: [SCORE_BY_REF, 'namespace (the same)', 'cases.rows (the new cases)'],
        },
        {
          operation: 'svc_extend_model',
          does: 'Keep a model longer (never shortens: a later expiry is kept).',
          needs: [SCORE_BY_REF, 'namespace (the same: acme)', 'days'],
        },
        {
          operation: 'svc_delete_model',
          does: 'Retire a model (write:outcomes).',
          needs: [SCORE_BY_REF, 'namespace (the same: acme)'],
        },
      ],
    },
    {
      name: 'run_it',
      title: 'Run it',
      summary: 'With a model in use: report outcomes, then keep the mapping answered on a cadence or refit by hand.',
      first_calls: [
        {
          operation: 'svc_report_outcomes',
          does: 'What really happened to answered cases (write:outcomes).',
          needs: [SCORE_BY_REF, 'outcomes[] {entity_id, outcome, observed_at}'],
        },
        {
          operation: 'svc_schedule',
          does: 'Answer a mapping of fetch_url sources on a cadence (ended by svc_delete_schedule).',
          needs: ['mapping_id (from svc_map)', 'cadence (daily, weekly or monthly)'],
        },
        {
          operation: 'svc_ask',
          does: 'Refit by hand on a newer version of the record.',
          needs: ['questions.<q>.refit_of (the earlier model_ref)', 'data (the newer record)'],
        },
        {
          operation: 'svc_drift',
          does: 'Whether to keep, refit or abandon, and which model_ref to serve.',
          needs: ["model_ref of the refit's answer"],
        },
      ],
    },
    {
      name: 'prove_it',
      title: 'Prove it',
      summary: 'Show that answers held up: Verdicts, live calls against outcomes, history, and whether acting on levers worked.',
      first_calls: [
        { operation: 'svc_verify', does: "Check any Verdict, an answer's or a backtest's.", needs: ['verdict and signature, as received'] },
        { operation: 'svc_track_record', does: 'Calls against reported outcomes, by band, level and chance range.', needs: [SCORE_BY_REF] },
        { operation: 'svc_backtest', does: 'What history supported (here a sample log).', body: example(backtestOperation, 'sample') },
        {
          operation: 'svc_attest',
          does: "Say a case was acted on through its answer's lever_token.",
          needs: [SCORE_BY_REF, 'entity_id', 'lever_token (from the case)', 'post_value', 'acted_at'],
        },
        {
          operation: 'svc_evidence',
          does: 'Whether acted-on cases fared differently (after svc_report_outcomes).',
          needs: [SCORE_BY_REF],
        },
      ],
    },
  ];
}
