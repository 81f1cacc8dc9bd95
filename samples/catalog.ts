// Sample dataset metadata for svc_describe (docs/reference/journeys.md#describe, docs/reference/datasets.md "svc_describe") and loaders for the committed CSVs.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SHAPE_SAMPLES } from './shape-catalog.ts';

export type SampleColumnType = 'numeric' | 'category' | 'yesno' | 'id';
export type SampleShape = 'table' | 'events' | 'series' | 'panel' | 'signals' | 'traces' | 'snapshots';

export interface SampleColumn {
  name: string;
  type: SampleColumnType;
  description: string;
}

/** A complete ask body (docs/reference/ask.md#request) whose one question key is `q`. */
export interface SampleAsk {
  data: { dataset_id: string };
  entity_column: string;
  subject_kind: 'person' | 'org' | 'object' | 'event' | 'other';
  questions: { q: Record<string, unknown> };
  cases?: { ids: string[] };
  /** Shape samples (docs/reference/ask.md#shapes, docs/reference/ask.md#request): the time column and the shape the record is read through. */
  time_column?: string;
  shape?: Record<string, unknown>;
}

export interface Sample {
  name: string;
  dataset_id: string;
  description: string;
  shape: SampleShape;
  entity_column: string;
  outcome_column: string;
  columns: SampleColumn[];
  rows: number;
  /** State the `try` ask must give every time (docs/design/samples.md#catalogue). */
  expected_state: 'answered' | 'refused';
  /** Refusal code when expected_state is refused. */
  expected_refusal?: string;
  try: SampleAsk;
}

const col = (name: string, type: SampleColumnType, description: string): SampleColumn => ({ name, type, description });

export const SAMPLES: readonly Sample[] = [
  {
    name: 'saas_churn',
    dataset_id: 'sample:saas_churn',
    description:
      'Synthetic SaaS customers, one row each, and whether they churned (about 17% yes). Planted pattern: short tenure, ' +
      'many support tickets and few logins in the last 30 days raise churn, sharply when all three meet. ' +
      'cust_0001 is a high-risk customer driven mostly by its tickets and logins.',
    shape: 'table',
    entity_column: 'customer_id',
    outcome_column: 'churned',
    columns: [
      col('customer_id', 'id', 'Customer, cust_0000 to cust_0799'),
      col('tenure_months', 'numeric', 'Months as a customer, 1 to 48'),
      col('monthly_charges', 'numeric', 'Monthly bill in USD, 20 to 200, two decimals'),
      col('support_tickets', 'numeric', 'Support tickets opened, 0 to 12'),
      col('logins_last_30d', 'numeric', 'Logins in the last 30 days, 0 to 60'),
      col('plan', 'category', 'basic, pro or enterprise'),
      col('seats', 'numeric', 'Paid seats, 1 to 50'),
      col('churned', 'yesno', 'Outcome: the customer cancelled'),
    ],
    rows: 800,
    expected_state: 'answered',
    try: {
      data: { dataset_id: 'sample:saas_churn' },
      entity_column: 'customer_id',
      subject_kind: 'org',
      questions: { q: { type: 'yesno', outcome_column: 'churned' } },
      cases: { ids: ['cust_0001'] },
    },
  },
  {
    name: 'b2b_leads',
    dataset_id: 'sample:b2b_leads',
    description:
      'Synthetic B2B sales leads, one row each, and whether they converted (about 21% yes). Planted pattern: a lead ' +
      'that requested a demo, viewed many pages and was first contacted within a few days converts far more often.',
    shape: 'table',
    entity_column: 'lead_id',
    outcome_column: 'converted',
    columns: [
      col('lead_id', 'id', 'Lead, lead_0000 to lead_0799'),
      col('pages_viewed', 'numeric', 'Website pages viewed, 0 to 25'),
      col('demo_requested', 'yesno', 'The lead asked for a demo'),
      col('company_size', 'numeric', 'Employees: 10, 50, 100, 250, 500 or 1000'),
      col('days_to_first_touch', 'numeric', 'Days until sales first contacted the lead, 0 to 30'),
      col('industry', 'category', 'software, finance, retail, healthcare or manufacturing'),
      col('email_opens', 'numeric', 'Marketing emails opened, 0 to 20'),
      col('converted', 'yesno', 'Outcome: the lead became a customer'),
    ],
    rows: 800,
    expected_state: 'answered',
    try: {
      data: { dataset_id: 'sample:b2b_leads' },
      entity_column: 'lead_id',
      subject_kind: 'org',
      questions: { q: { type: 'score', outcome_column: 'converted', outcome_is_desirable: true } },
      cases: { ids: ['lead_0002', 'lead_0005', 'lead_0009'] },
    },
  },
  {
    name: 'telco_churn',
    dataset_id: 'sample:telco_churn',
    description:
      'Synthetic telecom accounts, one row each, and whether they churned (about 21% yes). Planted pattern: ' +
      'month-to-month contracts without tech support and with short tenure churn most; longer contracts churn far ' +
      'less, so a choice over contract (to avoid churn) has a clear answer. acct_0001 is such an at-risk account.',
    shape: 'table',
    entity_column: 'account_id',
    outcome_column: 'churned',
    columns: [
      col('account_id', 'id', 'Account, acct_0000 to acct_0799'),
      col('tenure_months', 'numeric', 'Months as a customer, 1 to 72'),
      col('contract', 'category', 'month-to-month, one_year or two_year'),
      col('tech_support', 'yesno', 'The account has the tech support add-on'),
      col('monthly_charges', 'numeric', 'Monthly bill in USD, 18 to 120, two decimals'),
      col('internet_service', 'category', 'fiber, dsl or none'),
      col('total_charges', 'numeric', 'Billed to date in USD, about tenure times monthly charges'),
      col('churned', 'yesno', 'Outcome: the account cancelled'),
    ],
    rows: 800,
    expected_state: 'answered',
    try: {
      data: { dataset_id: 'sample:telco_churn' },
      entity_column: 'account_id',
      subject_kind: 'org',
      questions: {
        q: {
          type: 'choice',
          outcome_column: 'churned',
          option_column: 'contract',
          options: ['month-to-month', 'one_year', 'two_year'],
          outcome_is_desirable: false,
        },
      },
      cases: { ids: ['acct_0001'] },
    },
  },
  {
    name: 'coin_flips',
    dataset_id: 'sample:coin_flips',
    description:
      'Synthetic shop customers with plausible columns and a yes/no outcome (about 30% yes) drawn independently of ' +
      'every column, like a coin flip. There is no pattern: the service refuses (no_finding_cleared) every time.',
    shape: 'table',
    entity_column: 'flip_id',
    outcome_column: 'responded',
    columns: [
      col('flip_id', 'id', 'Case, flip_0000 to flip_0799'),
      col('visits', 'numeric', 'Visits, 0 to 30'),
      col('spend', 'numeric', 'Spend in USD, 0 to 500, two decimals'),
      col('region', 'category', 'north, south, east or west'),
      col('channel', 'category', 'web, store or phone'),
      col('has_app', 'yesno', 'Has installed the app'),
      col('days_active', 'numeric', 'Days since the first visit, 1 to 365'),
      col('responded', 'yesno', 'Outcome: independent of every column'),
    ],
    rows: 800,
    expected_state: 'refused',
    expected_refusal: 'no_finding_cleared',
    try: {
      data: { dataset_id: 'sample:coin_flips' },
      entity_column: 'flip_id',
      subject_kind: 'other',
      questions: { q: { type: 'yesno', outcome_column: 'responded' } },
      cases: { ids: ['flip_0001'] },
    },
  },
  // docs/reference/ask.md#shapes shape samples (docs/design/samples.md#catalogue): each `try` carries time_column and shape.
  ...SHAPE_SAMPLES,
];

export function getSample(name: string): Sample | undefined {
  return SAMPLES.find((s) => s.name === name);
}

/** Absolute path of a sample's committed CSV; only catalogued names resolve, so no path can be smuggled in. */
export function sampleCsvPath(name: string): string {
  if (!getSample(name)) throw new Error(`unknown sample: ${name}`);
  return fileURLToPath(new URL(`./${name}.csv`, import.meta.url));
}

export function loadSampleCsv(name: string): string {
  return readFileSync(sampleCsvPath(name), 'utf8');
}
