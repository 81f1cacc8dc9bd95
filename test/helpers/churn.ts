// Shared pieces of the "run it and prove it" tests: seeded churn-like tables (the usual pattern, a
// replaced one, one that only holds for recent rows), and small HTTP helpers over startTestService.
import { Prng } from '../../samples/prng.ts';

export type ChurnPattern = 'usual' | 'replaced' | 'recent_only' | 'noise';

export interface ChurnOptions {
  seed: number;
  rows: number;
  idPrefix?: string;
  pattern?: ChurnPattern;
}

const logistic = (z: number) => 1 / (1 + Math.exp(-z));

/**
 * saas_churn-like rows. `usual`: short tenure, many tickets and few logins raise churn. `replaced`:
 * the same columns, but churn now follows seats and the plan only. `recent_only`: rows carry a
 * `signup_at` date; the usual pattern holds for the latest quarter of rows and churn is a coin toss
 * (same rate) before that, so an out-of-time fit trains on noise. `noise`: churn ignores every column.
 */
export function churnRows(o: ChurnOptions): Array<Record<string, string | number>> {
  const rng = new Prng(o.seed);
  const pattern = o.pattern ?? 'usual';
  const prefix = o.idPrefix ?? 'c';
  const out: Array<Record<string, string | number>> = [];
  for (let i = 0; i < o.rows; i++) {
    const plan = rng.choice(['basic', 'pro', 'enterprise'] as const, [50, 35, 15]);
    const seats = plan === 'basic' ? rng.int(1, 5) : plan === 'pro' ? rng.int(3, 20) : rng.int(10, 50);
    const tenure = rng.chance(0.35) ? rng.int(1, 12) : rng.int(1, 48);
    const engagement = rng.normal();
    const logins = Math.round(Math.min(60, Math.max(0, 17 + 7 * engagement + 3 * rng.normal())));
    const tickets = rng.binomial(12, rng.chance(0.12) ? 0.38 : Math.min(0.5, Math.max(0.01, 0.1 - 0.04 * engagement)));
    const charges = Math.round((20 + seats * 3 + rng.float() * 30) * 100) / 100;
    const usual = -1.6 - 0.07 * (tenure - 24) + 0.55 * (tickets - 2) - 0.12 * (logins - 20);
    const replaced = -1.6 + 0.12 * (seats - 12) + (plan === 'basic' ? -0.8 : plan === 'enterprise' ? 0.9 : 0);
    const recent = i >= Math.floor(o.rows * 0.75);
    let p: number;
    if (pattern === 'usual') p = logistic(usual);
    else if (pattern === 'replaced') p = logistic(replaced);
    else if (pattern === 'noise') p = 0.3;
    else p = recent ? logistic(usual) : 0.3;
    const row: Record<string, string | number> = {
      customer_id: `${prefix}${String(i).padStart(5, '0')}`,
      tenure_months: tenure,
      monthly_charges: charges,
      support_tickets: tickets,
      logins_last_30d: logins,
      plan,
      seats,
      churned: rng.chance(p) ? 'yes' : 'no',
    };
    if (pattern === 'recent_only') row.signup_at = new Date(Date.UTC(2023, 0, 1) + i * 3_600_000).toISOString();
    out.push(row);
  }
  return out;
}

/** An ask body over inline rows for one question `q` on `churned`. */
export function churnAsk(rows: unknown[], q: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    data: { rows },
    entity_column: 'customer_id',
    subject_kind: 'org',
    questions: { q: { type: 'yesno', outcome_column: 'churned', ...q } },
    ...extra,
  };
}
