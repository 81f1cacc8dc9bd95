// docs/reference/ask.md#shapes "as of": a signal planted where it only exists after as_of (or in the run itself) must not
// reach a feature. Each shape gets a planted-future log the real engine refuses, and a control with
// the same signal placed in the past that it answers, so the refusal is not for want of power.
import { describe, expect, it } from 'vitest';
import { Prng } from '../../../samples/prng.ts';
import type { Cell } from '../../../host/table/types.ts';
import { DAY, col, fitShaped, mapColumn, q, rowOf, shapeOf, table } from './helpers.ts';

const T0 = Date.UTC(2024, 0, 1);

/** Refused because nothing held on held-out rows (not for want of rows or predictors). */
function expectNoFinding(fit: Awaited<ReturnType<typeof fitShaped>>): void {
  expect(fit.state).toBe('refused');
  expect(fit.reasons).toEqual(['no_finding_cleared']);
}
const iso = (ms: number) => new Date(ms).toISOString();

describe('events: nothing in the outcome window or after as_of reaches a feature', () => {
  // as_of day 200, horizon 30: cutoff day 170. Positives buy big in the outcome window (and are
  // flagged again after as_of); their history is drawn exactly like everyone else's.
  const log = (placeSignalBefore: boolean, withAfter = true) => {
    const rng = new Prng(11);
    const rows: Record<string, Cell>[] = [];
    for (let c = 0; c < 800; c++) {
      const id = `c${c}`;
      const positive = rng.chance(0.4);
      const n = rng.int(2, 8);
      for (let k = 0; k < n; k++)
        rows.push({ id, at: iso(T0 + rng.int(60, 170) * DAY), event: rng.choice(['visit', 'buy']), amount: rng.int(1, 60) });
      rows.push({ id, at: iso(T0 + rng.int(171, 200) * DAY), event: 'buy', amount: positive ? 150 : 20 });
      if (withAfter && positive) rows.push({ id, at: iso(T0 + 215 * DAY), event: 'vip', amount: 999 });
      if (placeSignalBefore && positive) rows.push({ id, at: iso(T0 + rng.int(150, 170) * DAY), event: 'vip', amount: 150 });
    }
    return table(rows);
  };
  const shape = {
    kind: 'events',
    event_column: 'event',
    value_columns: ['amount'],
    label: { name: 'big_buy', when: { column: 'amount', op: '>=', value: 100 } },
    as_of: iso(T0 + 200 * DAY),
  };
  const opts = { entityColumn: 'id', timeColumn: 'at' };

  it('reads identical features whether or not rows after as_of exist', () => {
    const a = shapeOf(log(false), shape, opts);
    const b = shapeOf(log(false, false), shape, opts);
    expect(a.table).toEqual(b.table);
    expect(a.features.some((f) => f.startsWith('vip'))).toBe(false);
  });

  it('is refused by the real engine when the signal lives only in the outcome window and after as_of', async () => {
    const rec = shapeOf(log(false), shape, opts);
    expect(rec.counts.positives).toBeGreaterThan(250);
    expectNoFinding(await fitShaped(rec));
  });

  it('is answered when the same signal is placed before the cutoff (control)', async () => {
    expect((await fitShaped(shapeOf(log(true), shape, opts))).state).toBe('answered');
  });
});

describe('series: a row never sees a later period', () => {
  // y at week t describes week t+1: it is v(t+1) > 10, with v drawn independently each week.
  const log = (outcomeFromNow: boolean) => {
    const rng = new Prng(12);
    const rows: Record<string, Cell>[] = [];
    for (let s = 0; s < 60; s++) {
      const v = Array.from({ length: 31 }, () => rng.int(0, 20));
      for (let w = 0; w < 30; w++)
        rows.push({ id: `s${s}`, at: iso(T0 + 7 * w * DAY), v: v[w], y: (outcomeFromNow ? v[w] : v[w + 1]) > 10 ? 1 : 0 });
    }
    return table(rows);
  };
  const shape = { kind: 'series', value_columns: ['v'], windows: [3, 6] };
  const opts = { entityColumn: 'id', timeColumn: 'at', question: q('y') };

  it('keeps a row the same when every later period changes', () => {
    const t = log(false);
    const cut = iso(T0 + 7 * 10 * DAY);
    const times = col(t, 'at');
    const changed = mapColumn(t, 'v', (v, r) => ((times[r] as string) > cut ? 999 : v));
    const a = shapeOf(t, shape, opts);
    const b = shapeOf(changed, shape, opts);
    const rowsAt = (rec: typeof a) => rec.table.data.map((c) => c.filter((_, r) => col(rec.table, 'at')[r] === iso(T0 + 7 * 10 * DAY)));
    expect(rowsAt(a)).toEqual(rowsAt(b));
  });

  it('is refused when the outcome depends on the next period only', async () => {
    expectNoFinding(await fitShaped(shapeOf(log(false), shape, opts)));
  });

  it('is answered when the outcome depends on the current period (control)', async () => {
    expect((await fitShaped(shapeOf(log(true), shape, opts))).state).toBe('answered');
  });
});

describe('panel: the label window and the traced column give no feature', () => {
  // Churners' usage drops to zero in the label period only (or, in the control, the period before).
  const log = (dropAt: number) => {
    const rng = new Prng(13);
    const rows: Record<string, Cell>[] = [];
    for (let a = 0; a < 800; a++) {
      const churn = rng.chance(0.4);
      for (let m = 0; m < 6; m++) {
        const usage = churn && m >= dropAt ? 0 : rng.int(20, 80);
        rows.push({ id: `a${a}`, at: iso(Date.UTC(2024, m, 1)), usage, tickets: rng.int(0, 4), churned: m === 5 && churn ? 'yes' : 'no' });
      }
    }
    return table(rows);
  };
  const opts = { entityColumn: 'id', timeColumn: 'at' };
  const window = { kind: 'panel', label: { window_of: 'churned', periods: 1 } };

  it('is refused when the window column shows only in the label period', async () => {
    expectNoFinding(await fitShaped(shapeOf(log(5), window, opts)));
  });

  it('is answered when the drop comes a period earlier (control)', async () => {
    expect((await fitShaped(shapeOf(log(4), window, opts))).state).toBe('answered');
  });

  it('leaves the traced column out of a trend read, so a trend of pure usage is refused', async () => {
    const rng = new Prng(14);
    const rows: Record<string, Cell>[] = [];
    for (let a = 0; a < 800; a++) {
      const down = rng.chance(0.4);
      for (let m = 0; m < 8; m++)
        rows.push({ id: `a${a}`, at: iso(Date.UTC(2024, m, 1)), usage: 100 - (down ? 8 * m : 0) + rng.int(0, 10), tickets: rng.int(0, 4) });
    }
    const t = table(rows);
    const rec = shapeOf(t, { kind: 'panel', label: { trend_of: 'usage' } }, opts);
    expect(rec.features.some((f) => f.startsWith('usage'))).toBe(false);
    expectNoFinding(await fitShaped(rec));
    const copy = mapColumn({ ...t, columns: [...t.columns, 'usage_copy'], data: [...t.data, col(t, 'usage')] }, 'usage_copy', (c) => c);
    expect((await fitShaped(shapeOf(copy, { kind: 'panel', label: { trend_of: 'usage' } }, opts))).state).toBe('answered'); // control
  });
});

describe('signals: a snapshot sees nothing after itself', () => {
  // Faults start at random (memoryless); vibration jumps only once a fault has started (or, in the
  // control, the day before it starts). Readings after as_of foretell the next faults too.
  const log = (rampBefore: boolean) => {
    const rng = new Prng(15);
    const rows: Record<string, Cell>[] = [];
    const step = 6 * 3_600_000;
    for (let a = 0; a < 30; a++) {
      const starts: number[] = [];
      for (let d = 3; d < 48; d++) if (rng.chance(0.08)) starts.push(T0 + d * DAY + rng.int(1, 20) * 3_600_000);
      for (let t = T0; t < T0 + 48 * DAY; t += step) {
        const hot = starts.some((s) => (rampBefore ? t >= s - DAY && t < s : t >= s && t < s + 12 * 3_600_000));
        rows.push({ id: `p${a}`, at: iso(t), vib: (hot ? 50 : 10) + rng.int(0, 5), kind: null, from: null, to: null });
      }
      for (const s of starts) rows.push({ id: `p${a}`, at: iso(s), vib: null, kind: 'fault', from: iso(s), to: iso(s + 12 * 3_600_000) });
    }
    return table(rows);
  };
  const shape = {
    kind: 'signals',
    signal_columns: ['vib'],
    event_column: 'kind',
    event_start_column: 'from',
    event_end_column: 'to',
    windows: [1, 3, 7],
    snapshot_every: '1d',
    horizon: 3,
    as_of: iso(T0 + 40 * DAY),
  };
  const opts = { entityColumn: 'id', timeColumn: 'at' };

  it('is refused when readings rise only after a fault starts', async () => {
    const rec = shapeOf(log(false), shape, opts);
    expect(rec.counts.after_as_of).toBeGreaterThan(0);
    expectNoFinding(await fitShaped(rec));
  });

  it('is answered when readings rise the day before (control)', async () => {
    expect((await fitShaped(shapeOf(log(true), shape, opts))).state).toBe('answered');
  });

  it('reads identical snapshots whatever comes after as_of', () => {
    const t = log(false);
    const times = col(t, 'at');
    const later = mapColumn(t, 'vib', (v, r) => ((times[r] as string) > iso(T0 + 40 * DAY) && v !== null ? 1000 : v));
    expect(shapeOf(later, shape, opts).table).toEqual(shapeOf(t, shape, opts).table);
  });
});

describe('traces: a run never sees its own outcome or a later one', () => {
  // 300 tools with 4 runs each and outcomes at random: a rate that included the run would leak.
  const log = () => {
    const rng = new Prng(16);
    const rows: Record<string, Cell>[] = [];
    for (let i = 0; i < 1200; i++)
      rows.push({
        id: `r${String(i).padStart(4, '0')}`,
        at: iso(T0 + rng.int(0, 30 * 24) * 3_600_000),
        tool: `tool${rng.int(0, 299)}`,
        failed: rng.chance(0.35) ? 1 : 0,
      });
    return table(rows);
  };
  const opts = { entityColumn: 'id', timeColumn: 'at', question: q('failed') };
  const shape = { kind: 'traces', tool_column: 'tool' };

  it('is refused: the prior rates carry nothing about the run itself', async () => {
    expectNoFinding(await fitShaped(shapeOf(log(), shape, opts)));
  });

  it('would be answered if a rate included the run itself (control)', async () => {
    const t = log();
    const tools = col(t, 'tool');
    const ys = col(t, 'failed') as number[];
    const sum = new Map<Cell, [number, number]>();
    tools.forEach((k, r) => {
      const s = sum.get(k) ?? [0, 0];
      sum.set(k, [s[0] + ys[r], s[1] + 1]);
    });
    const leaky = { ...t, columns: [...t.columns, 'rate_with_self'], data: [...t.data, tools.map((k) => sum.get(k)![0] / sum.get(k)![1])] };
    expect((await fitShaped(shapeOf(leaky, shape, opts))).state).toBe('answered');
  });

  it("changes no earlier or same-time run when a run's outcome flips, and does change a later one", () => {
    // r0501 is moved to r0500's time and tool: a run of the same tool at the same time, named after it.
    const target = 'r0500';
    const base = log();
    const ids = col(base, 'id');
    const r0 = ids.indexOf(target);
    const twin = ids.indexOf('r0501');
    const t = mapColumn(
      mapColumn(base, 'at', (v, r) => (r === twin ? col(base, 'at')[r0] : v)),
      'tool',
      (v, r) => (r === twin ? col(base, 'tool')[r0] : v),
    );
    const a = shapeOf(t, shape, opts);
    const flipped = mapColumn(t, 'failed', (y, r) => (r === r0 ? 1 - (y as number) : y));
    const b = shapeOf(flipped, shape, opts);
    const at = col(a.table, 'at');
    const tool = col(a.table, 'tool');
    const i0 = col(a.table, 'id').indexOf(target);
    const feats = a.features;
    let laterOfTool = 0;
    for (let r = 0; r < a.table.rowCount; r++) {
      const later = (at[r] as string) > (at[i0] as string);
      const same = feats.every((f) => col(a.table, f)[r] === col(b.table, f)[r]);
      if (!later) expect(same, `row ${r}`).toBe(true);
      else if (tool[r] === tool[i0]) (laterOfTool++, expect(same, `row ${r}`).toBe(false));
    }
    expect(laterOfTool).toBeGreaterThan(0);
    expect(rowOf(a, 'r0501')).toMatchObject({ at: at[i0], tool: tool[i0] });
  });
});
