// Deterministic generators for the shape samples (docs/design/samples.md#catalogue: customer_events, store_weekly,
// usage_panel, sensor_stream, agent_traces, coin_flip_events); `npx tsx samples/generate.ts` writes them with the rest.
import { Prng, clamp, logistic } from './prng.ts';

const DAY = 86_400_000;

function toCsv(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  return [header.join(','), ...rows.map((r) => r.join(','))].join('\n') + '\n';
}

function id(prefix: string, i: number, width: number): string {
  return `${prefix}_${String(i).padStart(width, '0')}`;
}

/** Integer cents as a decimal with two places (no float formatting). */
function cents(c: number): string {
  const whole = Math.floor(c / 100);
  const rest = c - whole * 100;
  return `${whole}.${rest < 10 ? '0' : ''}${rest}`;
}

/** Tenths as a decimal with one place. */
function tenths(t: number): string {
  return `${Math.floor(t / 10)}.${t - Math.floor(t / 10) * 10}`;
}

/** YYYY-MM-DD of a UTC day number (integer ms through Date: exact everywhere). */
function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** YYYY-MM-DDThh:mm:ssZ of an integer ms time. */
function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19) + 'Z';
}

// ---- customer_events (events, lapsed, horizon 90) ----------------------------------------------

const EVENTS_START = Date.UTC(2024, 0, 1);
const EVENTS_DAYS = 366; // 2024
/** The outcome window of the `try` shape (horizon_days 90) starts after this day. */
const EVENTS_CUTOFF_DAY = EVENTS_DAYS - 1 - 90;

/**
 * 800 customers' visits, purchases, tickets and refunds over 2024. About a third are leaving: over
 * the two months before they go, their activity fades and a larger share of what they do is
 * tickets and refunds; after that they are nearly silent. Most leave around the start of the last
 * 90 days, so `lapsed_90d` (no event in the last 90 days) follows from the slow-down before it.
 * cust_0001 is such a leaving customer.
 */
export function generateCustomerEvents(): string {
  const rng = new Prng(5005);
  const events: [number, number, string, string][] = [];
  for (let i = 0; i < 800; i++) {
    const signup = rng.int(0, 180);
    const rate = 0.04 + 0.06 * rng.float(); // events per day while steady
    const leaving = i === 1 || rng.chance(0.33);
    const leaveDay = EVENTS_CUTOFF_DAY + rng.int(-30, 5);
    const fadeDays = rng.int(40, 70);
    for (let d = signup; d < EVENTS_DAYS; d++) {
      let mult = 1;
      let troubled = 0;
      if (leaving && d >= leaveDay - fadeDays) {
        const into = (d - (leaveDay - fadeDays)) / fadeDays;
        mult = d >= leaveDay ? 0.02 : 1 - 0.85 * into;
        troubled = d >= leaveDay ? 1 : into;
      }
      if (!rng.chance(rate * mult)) continue;
      const type = rng.choice(['visit', 'purchase', 'ticket', 'refund'] as const, [
        70 - 15 * troubled,
        22 - 12 * troubled,
        6 + 16 * troubled,
        2 + 11 * troubled,
      ]);
      const amount = type === 'purchase' ? cents(rng.int(1000, 30000)) : type === 'refund' ? cents(rng.int(1000, 15000)) : '';
      events.push([d, i, type, amount]);
    }
  }
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const rows = events.map(([d, i, type, amount]) => [id('cust', i, 4), isoDate(EVENTS_START + d * DAY), type, amount]);
  return toCsv(['customer_id', 'date', 'event', 'amount'], rows);
}

// ---- store_weekly (series, windows [4, 12]) ----------------------------------------------------

/**
 * 60 stores over 26 weeks from Monday 2024-01-01. Stock cover drifts with deliveries; late
 * deliveries come in spells at unreliable stores and eat into cover. `stockout_next_week` is likely
 * when cover is low and deliveries have been late over the past month.
 */
const SEASON = [0, 0.06, 0.1, 0.06, 0, -0.06, -0.1, -0.06]; // no Math.sin: sample bytes must not depend on the JS engine

export function generateStoreWeekly(): string {
  const rng = new Prng(6006);
  const start = Date.UTC(2024, 0, 1);
  const rows: (string | number)[][] = [];
  for (let s = 0; s < 60; s++) {
    const size = 0.5 + rng.float();
    const unreliable = rng.float();
    let cover = 2 + 2 * rng.float();
    let spell = 0;
    const late: number[] = [];
    for (let w = 0; w < 26; w++) {
      if (spell > 0) spell--;
      else if (rng.chance(0.04 + 0.12 * unreliable)) spell = rng.int(2, 5);
      const pLate = spell > 0 ? 0.45 + 0.3 * unreliable : 0.03 + 0.1 * unreliable;
      const lateNow = rng.binomial(5, pLate);
      late.push(lateNow);
      cover = clamp(cover + 0.15 * (2.6 - cover) - 0.35 * lateNow + 0.35 * rng.normal(), 0.2, 6);
      const footfall = Math.round(size * 1200 * (1 + SEASON[w % SEASON.length]) * (1 + 0.08 * rng.normal()));
      const sales = Math.round(footfall * (0.28 + 0.04 * rng.normal()) * (cover < 0.8 ? 0.85 : 1));
      const recent = late.slice(-4);
      const lateMean = recent.reduce((a, b) => a + b, 0) / recent.length;
      const stockout = rng.chance(logistic(-2.2 - 1.9 * (cover - 1.6) + 0.75 * (lateMean - 1)));
      rows.push([
        id('store', s, 3),
        isoDate(start + 7 * w * DAY),
        sales,
        footfall,
        tenths(Math.round(cover * 10)),
        lateNow,
        stockout ? 1 : 0,
      ]);
    }
  }
  return toCsv(['store_id', 'week', 'sales', 'footfall', 'stock_cover_weeks', 'late_deliveries', 'stockout_next_week'], rows);
}

// ---- usage_panel (panel, trend of usage down) --------------------------------------------------

/**
 * 800 accounts over 12 months of 2024. About 30% decline: their usage falls month by month while
 * they raise more support tickets and drop seats; logins and days since login drift with usage.
 * The `try` outcome `usage_trend_down` is read from usage alone (Mann-Kendall, alpha 0.1).
 */
export function generateUsagePanel(): string {
  const rng = new Prng(7007);
  const rows: (string | number)[][] = [];
  for (let a = 0; a < 800; a++) {
    const plan = rng.choice(['basic', 'pro', 'enterprise'] as const, [50, 35, 15]);
    const base = (plan === 'basic' ? 200 : plan === 'pro' ? 500 : 1200) * (0.6 + 0.8 * rng.float());
    const declining = rng.chance(0.3);
    const slope = declining ? -(0.25 + 0.45 * rng.float()) : -0.1 + 0.3 * rng.float();
    let seats = plan === 'basic' ? rng.int(1, 5) : plan === 'pro' ? rng.int(3, 20) : rng.int(10, 50);
    const adoption = 0.2 + 0.6 * rng.float();
    for (let m = 0; m < 12; m++) {
      const level = base * (1 + (slope * m) / 11) * (1 + 0.12 * rng.normal());
      const usage = Math.max(0, Math.round(level));
      const tickets = rng.binomial(8, declining ? 0.1 + 0.015 * m : 0.06);
      if (declining && m > 2 && seats > 1 && rng.chance(0.22)) seats--;
      else if (!declining && rng.chance(0.06)) seats++;
      const logins = Math.max(0, Math.round((usage / base) * 20 * (1 + 0.35 * rng.normal())));
      const sinceLogin = Math.round(clamp(30 / (1 + logins) + 3 * rng.float(), 0, 30));
      const adopt = clamp(adoption + 0.05 * rng.normal(), 0, 1);
      rows.push([
        id('acct', a, 4),
        isoDate(Date.UTC(2024, m, 1)),
        usage,
        tickets,
        logins,
        cents(Math.round(adopt * 100)),
        sinceLogin,
        seats,
        plan,
      ]);
    }
  }
  return toCsv(
    ['account_id', 'period', 'usage', 'support_tickets', 'logins', 'feature_adoption', 'days_since_login', 'seats', 'plan'],
    rows,
  );
}

// ---- sensor_stream (signals, 1d snapshots, windows [1,3,7], horizon 3) -------------------------

/**
 * 36 pumps read every 6 hours for 40 days from 2024-03-01, with fault intervals in the same table
 * (`event_type` fault, `event_start`, `event_end`; readings leave those blank). For two to four
 * days before a fault, vibration and temperature ramp up; after the fault is repaired they return
 * to the pump's normal level.
 */
export function generateSensorStream(): string {
  const rng = new Prng(8008);
  const start = Date.UTC(2024, 2, 1);
  const steps = 40 * 4;
  const step = 6 * 3_600_000;
  const rows: (string | number)[][] = [];
  for (let a = 0; a < 36; a++) {
    const asset = id('pump', a, 2);
    const vib0 = 20 + 10 * rng.float();
    const temp0 = 550 + 100 * rng.float();
    const press0 = 900 + 200 * rng.float();
    const amp0 = 100 + 40 * rng.float();
    // Fault starts (in steps) and ramp lengths.
    const faults: { at: number; ramp: number; length: number }[] = [];
    for (let t = rng.int(16, 50); t < steps; t += rng.int(24, 72)) faults.push({ at: t, ramp: rng.int(8, 16), length: rng.int(1, 4) });
    for (let t = 0; t < steps; t++) {
      const next = faults.find((f) => f.at + f.length > t);
      let ramp = 0;
      if (next && t < next.at && t >= next.at - next.ramp) ramp = (t - (next.at - next.ramp) + 1) / next.ramp;
      else if (next && t >= next.at) ramp = 1;
      const vib = Math.round(vib0 * 10 * (1 + 0.6 * ramp + 0.08 * rng.normal()));
      const temp = Math.round(temp0 * (1 + 0.12 * ramp + 0.02 * rng.normal()));
      const press = Math.round(press0 * (1 + 0.03 * rng.normal()));
      const amp = Math.round(amp0 * (1 + 0.05 * ramp + 0.04 * rng.normal()));
      rows.push([asset, isoSeconds(start + t * step), tenths(vib), tenths(temp), tenths(press), tenths(amp), '', '', '']);
      const f = faults.find((x) => x.at === t);
      if (f) {
        const s = start + t * step + rng.int(1, 5) * 3_600_000;
        const e = s + f.length * step;
        rows.push([asset, isoSeconds(s), '', '', '', '', 'fault', isoSeconds(s), isoSeconds(e)]);
      }
    }
  }
  return toCsv(['asset_id', 'ts', 'vibration', 'temp_c', 'pressure_psi', 'current_a', 'event_type', 'event_start', 'event_end'], rows);
}

// ---- agent_traces (traces) ---------------------------------------------------------------------

const AGENTS = ['planner', 'coder', 'researcher', 'support'] as const;
const TASKS = ['summarize', 'code_fix', 'search', 'refund', 'triage', 'report'] as const;
const TOOLS = ['browser', 'python', 'sql', 'email', 'search_api'] as const;

/**
 * 800 agent runs over June 2024. Runs fail about one time in ten, except that the browser tool
 * starts failing often from 15 June, and the support agent fails refunds far more often all month.
 */
export function generateAgentTraces(): string {
  const rng = new Prng(9009);
  const start = Date.UTC(2024, 5, 1);
  const half = Date.UTC(2024, 5, 15);
  const runs: { ts: number; agent: string; task: string; tool: string; ms: number; tokens: number; failed: boolean }[] = [];
  for (let i = 0; i < 800; i++) {
    const ts = start + rng.int(0, 30 * 86_400 - 1) * 1000;
    const agent = rng.choice(AGENTS, [30, 25, 25, 20]);
    const task = agent === 'support' ? rng.choice(TASKS, [10, 5, 10, 45, 25, 5]) : rng.choice(TASKS);
    const tool = rng.choice(TOOLS, [30, 25, 15, 10, 20]);
    let z = -2.3;
    if (tool === 'browser' && ts >= half) z += 2.4;
    if (agent === 'support' && task === 'refund') z += 2.2;
    const failed = rng.chance(logistic(z));
    const ms = Math.round(800 + 6000 * rng.float() * rng.float() + (failed ? 400 * rng.float() : 0));
    runs.push({ ts, agent, task, tool, ms, tokens: rng.int(200, 8000), failed });
  }
  runs.sort((a, b) => a.ts - b.ts);
  const rows = runs.map((r, i) => [id('run', i, 4), isoSeconds(r.ts), r.agent, r.task, r.tool, r.ms, r.tokens, r.failed ? 1 : 0]);
  return toCsv(['run_id', 'ts', 'agent', 'task', 'tool', 'duration_ms', 'input_tokens', 'failed'], rows);
}

// ---- coin_flip_events (snapshots grid, an outcome no history predicts) -------------------------

/**
 * 800 players over 2024: they play and deposit at rates of their own, and win on any day with the same
 * small chance whatever they did before, like a coin flip. Nothing in the log says who wins next: a
 * backtest of `won within 30 days` must not be supported (docs/reference/map.md#backtest), and an ask must refuse.
 */
export function generateCoinFlipEvents(): string {
  const rng = new Prng(7117);
  const events: [number, number, string, string][] = [];
  for (let i = 0; i < 800; i++) {
    const start = rng.int(0, 60);
    const rate = 0.02 + 0.03 * rng.float();
    for (let d = start; d < EVENTS_DAYS; d++) {
      if (rng.chance(rate)) events.push([d, i, 'play', '']);
      if (rng.chance(0.006)) events.push([d, i, 'deposit', cents(rng.int(500, 20000))]);
      // the coin: the same chance every day for every player
      if (rng.chance(0.008)) events.push([d, i, 'won', '']);
    }
  }
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const rows = events.map(([d, i, type, amount]) => [id('player', i, 4), isoDate(EVENTS_START + d * DAY), type, amount]);
  return toCsv(['player_id', 'date', 'event', 'amount'], rows);
}

export const SHAPE_GENERATORS: Record<string, () => string> = {
  customer_events: generateCustomerEvents,
  store_weekly: generateStoreWeekly,
  usage_panel: generateUsagePanel,
  sensor_stream: generateSensorStream,
  agent_traces: generateAgentTraces,
  coin_flip_events: generateCoinFlipEvents,
};
