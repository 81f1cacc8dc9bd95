// Catalog entries of the shape samples (docs/design/samples.md#catalogue, docs/reference/ask.md#shapes): each `try` reads the log through its shape.
import type { Sample, SampleColumn, SampleColumnType } from './catalog.ts';

const col = (name: string, type: SampleColumnType, description: string): SampleColumn => ({ name, type, description });

export const SHAPE_SAMPLES: readonly Sample[] = [
  {
    name: 'customer_events',
    dataset_id: 'sample:customer_events',
    description:
      'Synthetic event log of 800 customers over 2024 (visits, purchases, tickets, refunds). Read as events with ' +
      'label {lapsed: true} and horizon_days 90: the outcome lapsed_90d is 1 when a customer has no event in the last ' +
      '90 days, and the features come only from before that window. Planted pattern: customers about to leave slow ' +
      'down and raise more tickets and refunds. cust_0001 is one of them.',
    shape: 'events',
    entity_column: 'customer_id',
    outcome_column: 'lapsed_90d',
    columns: [
      col('customer_id', 'id', 'Customer, cust_0000 to cust_0799'),
      col('date', 'category', 'Day of the event, 2024-01-01 to 2024-12-31'),
      col('event', 'category', 'visit, purchase, ticket or refund'),
      col('amount', 'numeric', 'USD for purchases (10 to 300) and refunds (10 to 150), blank otherwise'),
    ],
    rows: 12878,
    expected_state: 'answered',
    try: {
      data: { dataset_id: 'sample:customer_events' },
      entity_column: 'customer_id',
      time_column: 'date',
      shape: { kind: 'events', event_column: 'event', value_columns: ['amount'], label: { lapsed: true }, horizon_days: 90 },
      subject_kind: 'org',
      questions: { q: { type: 'yesno', outcome_column: 'lapsed_90d' } },
      cases: { ids: ['cust_0001'] },
    },
  },
  {
    name: 'store_weekly',
    dataset_id: 'sample:store_weekly',
    description:
      'Synthetic weekly figures of 60 stores over 26 weeks of 2024, one row per store and week, with the outcome on ' +
      'each row: stockout_next_week. Read as a series with windows [4, 12]: each row gets trailing 4- and 12-week ' +
      'statistics known that week. Planted pattern: low stock cover and late deliveries precede stockouts.',
    shape: 'series',
    entity_column: 'store_id',
    outcome_column: 'stockout_next_week',
    columns: [
      col('store_id', 'id', 'Store, store_000 to store_059'),
      col('week', 'category', 'Monday of the week, 2024-01-01 to 2024-06-24'),
      col('sales', 'numeric', 'Units sold in the week'),
      col('footfall', 'numeric', 'Visitors in the week'),
      col('stock_cover_weeks', 'numeric', 'Weeks of demand the stock on hand covers, 0.2 to 6.0'),
      col('late_deliveries', 'numeric', 'Deliveries that arrived late in the week, 0 to 5'),
      col('stockout_next_week', 'yesno', 'Outcome 0/1: the store ran out of stock the following week'),
    ],
    rows: 1560,
    expected_state: 'answered',
    try: {
      data: { dataset_id: 'sample:store_weekly' },
      entity_column: 'store_id',
      time_column: 'week',
      shape: { kind: 'series', value_columns: ['sales', 'footfall', 'stock_cover_weeks', 'late_deliveries'], windows: [4, 12] },
      subject_kind: 'object',
      questions: { q: { type: 'yesno', outcome_column: 'stockout_next_week' } },
      cases: { ids: ['store_001'] },
    },
  },
  {
    name: 'usage_panel',
    dataset_id: 'sample:usage_panel',
    description:
      'Synthetic monthly panel of 800 accounts over the 12 months of 2024. Read as a panel with label {trend_of: ' +
      'usage, direction: down}: the outcome usage_trend_down is 1 when usage falls significantly (Mann-Kendall, alpha ' +
      '0.1), and usage itself gives no feature. Planted pattern: declining accounts show more support tickets and ' +
      'fewer seats.',
    shape: 'panel',
    entity_column: 'account_id',
    outcome_column: 'usage_trend_down',
    columns: [
      col('account_id', 'id', 'Account, acct_0000 to acct_0799'),
      col('period', 'category', 'First day of the month, 2024-01-01 to 2024-12-01'),
      col('usage', 'numeric', 'Units used in the month'),
      col('support_tickets', 'numeric', 'Tickets opened in the month, 0 to 8'),
      col('logins', 'numeric', 'Logins in the month'),
      col('feature_adoption', 'numeric', 'Share of features in use, 0 to 1'),
      col('days_since_login', 'numeric', 'Days since the last login at month end, 0 to 30'),
      col('seats', 'numeric', 'Paid seats'),
      col('plan', 'category', 'basic, pro or enterprise'),
    ],
    rows: 9600,
    expected_state: 'answered',
    try: {
      data: { dataset_id: 'sample:usage_panel' },
      entity_column: 'account_id',
      time_column: 'period',
      shape: { kind: 'panel', label: { trend_of: 'usage', direction: 'down' } },
      subject_kind: 'org',
      questions: { q: { type: 'yesno', outcome_column: 'usage_trend_down' } },
      cases: { ids: ['acct_0001'] },
    },
  },
  {
    name: 'sensor_stream',
    dataset_id: 'sample:sensor_stream',
    description:
      'Synthetic readings of 36 pumps every 6 hours for 40 days from 2024-03-01, with fault intervals in the same ' +
      'table (rows with event_type fault). Read as signals with daily snapshots, windows [1, 3, 7] and horizon 3: the ' +
      'outcome event_next_3d is 1 when a fault starts within 3 days of the snapshot. Planted pattern: vibration and ' +
      'temperature ramp up for two to four days before a fault.',
    shape: 'signals',
    entity_column: 'asset_id',
    outcome_column: 'event_next_3d',
    columns: [
      col('asset_id', 'id', 'Pump, pump_00 to pump_35'),
      col('ts', 'category', 'Time of the reading (ISO 8601, UTC), or of the fault start'),
      col('vibration', 'numeric', 'Vibration in mm/s, blank on fault rows'),
      col('temp_c', 'numeric', 'Bearing temperature in degrees C, blank on fault rows'),
      col('pressure_psi', 'numeric', 'Outlet pressure in psi, blank on fault rows'),
      col('current_a', 'numeric', 'Motor current in A, blank on fault rows'),
      col('event_type', 'category', 'fault on a fault interval, blank on readings'),
      col('event_start', 'category', 'When the fault started (ISO 8601)'),
      col('event_end', 'category', 'When the fault was repaired (ISO 8601)'),
    ],
    rows: 5875,
    expected_state: 'answered',
    try: {
      data: { dataset_id: 'sample:sensor_stream' },
      entity_column: 'asset_id',
      time_column: 'ts',
      shape: {
        kind: 'signals',
        signal_columns: ['vibration', 'temp_c', 'pressure_psi', 'current_a'],
        event_column: 'event_type',
        event_start_column: 'event_start',
        event_end_column: 'event_end',
        windows: [1, 3, 7],
        snapshot_every: '1d',
        horizon: 3,
      },
      subject_kind: 'object',
      questions: { q: { type: 'rank', outcome_column: 'event_next_3d', top_k: 10 } },
    },
  },
  {
    name: 'agent_traces',
    dataset_id: 'sample:agent_traces',
    description:
      'Synthetic log of 800 AI agent runs in June 2024, one row per run, with failed 0/1. Read as traces: each run ' +
      'also gets the failure rates of its agent, task, tool and agent-task pair over earlier runs only. Planted ' +
      'pattern: the browser tool starts failing often half-way through the month, and the support agent fails ' +
      'refunds more often throughout.',
    shape: 'traces',
    entity_column: 'run_id',
    outcome_column: 'failed',
    columns: [
      col('run_id', 'id', 'Run, run_0000 to run_0799 in time order'),
      col('ts', 'category', 'When the run started (ISO 8601, UTC)'),
      col('agent', 'category', 'planner, coder, researcher or support'),
      col('task', 'category', 'summarize, code_fix, search, refund, triage or report'),
      col('tool', 'category', 'browser, python, sql, email or search_api'),
      col('duration_ms', 'numeric', 'Run time in milliseconds'),
      col('input_tokens', 'numeric', 'Prompt tokens, 200 to 8000'),
      col('failed', 'yesno', 'Outcome 0/1: the run failed'),
    ],
    rows: 800,
    expected_state: 'answered',
    try: {
      data: { dataset_id: 'sample:agent_traces' },
      entity_column: 'run_id',
      time_column: 'ts',
      shape: { kind: 'traces', agent_column: 'agent', task_column: 'task', tool_column: 'tool' },
      subject_kind: 'event',
      questions: { q: { type: 'yesno', outcome_column: 'failed' } },
      cases: { ids: ['run_0799'] },
    },
  },
  {
    name: 'coin_flip_events',
    dataset_id: 'sample:coin_flip_events',
    description:
      'Synthetic event log of 800 players over 2024 (plays, deposits with an amount, wins). Read as a snapshots grid, ' +
      'a weekly reading per player with the outcome won_next_30d: a win within 30 days. No pattern: every player wins ' +
      'on any day with the same small chance, whatever they did before, so the service refuses (no_finding_cleared) ' +
      'and svc_backtest says not_supported.',
    shape: 'snapshots',
    entity_column: 'player_id',
    outcome_column: 'won_next_30d',
    columns: [
      col('player_id', 'id', 'Player, player_0000 to player_0799'),
      col('date', 'category', 'Day of the event, 2024-01-01 to 2024-12-31'),
      col('event', 'category', 'play, deposit or won'),
      col('amount', 'numeric', 'USD for deposits (5 to 200), blank otherwise'),
    ],
    rows: 13076,
    expected_state: 'refused',
    expected_refusal: 'no_finding_cleared',
    try: {
      data: { dataset_id: 'sample:coin_flip_events' },
      entity_column: 'player_id',
      time_column: 'date',
      shape: {
        kind: 'snapshots',
        snapshot_every: '1w',
        horizon: { value: 30, unit: 'days' },
        label: { name: 'won', when: { column: 'event', op: '==', value: 'won' } },
        event_column: 'event',
        value_columns: ['amount'],
      },
      subject_kind: 'other',
      questions: { q: { type: 'yesno', outcome_column: 'won_next_30d' } },
      cases: { ids: ['player_0001'] },
    },
  },
];
