// docs/decisions/0001-group-column.md group_column: a table of several rows per case is held out by case, never row by row, in a
// single split, in cross-fitted folds and out of time (the latest cases held out).
import { describe, expect, it } from 'vitest';
import { fitTable } from '../../host/engine/index.ts';
import { rowsToTable } from '../../host/table/rows.ts';
import { ROW_HELD_OUT, ROW_TRAIN } from '../../host/engine/abi.ts';
import { ordersTable } from '../helpers/orders.ts';
import { mulberry32, uniform } from '../../bench/prng.ts';

function fitOrders(cases: number, perCase: number, opts: { group?: boolean; time?: boolean; dated?: boolean } = {}) {
  const rows = ordersTable(cases, perCase, 11, opts.dated ?? true);
  const table = rowsToTable(rows);
  const outcome = Float64Array.from(rows, (r) => (r.churned === 'yes' ? 1 : 0));
  return {
    rows,
    fit: fitTable(table, {
      entityColumn: 'order_id',
      outcomeColumn: 'churned',
      outcome,
      ...(opts.group ? { groupColumn: 'customer_id' } : {}),
      ...(opts.time ? { timeColumn: 'ordered_on' } : {}),
    }),
  };
}

/** The split of each customer's rows: 'held', 'train' or 'mixed'. */
function splitPerCase(rows: Record<string, string | number>[], rowSplit: Uint8Array): Map<string, string> {
  const per = new Map<string, Set<number>>();
  rows.forEach((r, i) => {
    const s = per.get(String(r.customer_id)) ?? new Set<number>();
    s.add(rowSplit[i]);
    per.set(String(r.customer_id), s);
  });
  return new Map([...per].map(([c, s]) => [c, s.size > 1 ? 'mixed' : s.has(ROW_HELD_OUT) ? 'held' : s.has(ROW_TRAIN) ? 'train' : 'other']));
}

describe('group_column', () => {
  it('holds each case out whole in a single split; by order id alone, cases are split between training and the test', async () => {
    const grouped = fitOrders(600, 4, { group: true });
    const g = await grouped.fit;
    expect(g.quality.validation_scheme).not.toBe('entity_hash_folds');
    const per = splitPerCase(grouped.rows, g.diagnostics.rowSplit);
    expect([...per.values()].filter((s) => s === 'mixed')).toEqual([]);
    const held = [...per.values()].filter((s) => s === 'held').length;
    expect(held).toBeGreaterThan(100); // about a quarter of 600
    expect(held).toBeLessThan(200);
    expect(g.quality.excluded_columns).toContainEqual({ column: 'customer_id', why: 'group' });
    expect(g.quality.excluded_columns).toContainEqual({ column: 'order_id', why: 'entity' });

    const byRow = await fitOrders(600, 4).fit;
    const mixed = [...splitPerCase(grouped.rows, byRow.diagnostics.rowSplit).values()].filter((s) => s === 'mixed');
    expect(mixed.length).toBeGreaterThan(100);
  });

  it('keeps each case in one fold when the record is cross-fitted', async () => {
    // every labeled row is held out once, scored by the fold model that never saw it: a case's two
    // identical orders score the same when one fold holds the whole case
    const pairsDiffering = async (group: boolean) => {
      const fitted = fitOrders(150, 4, { group, dated: false });
      const res = await fitted.fit;
      expect(res.quality.validation_scheme).toBe('entity_hash_folds');
      expect(res.diagnostics.rowSplit.every((s) => s === ROW_HELD_OUT)).toBe(true);
      let differing = 0;
      for (let i = 0; i < fitted.rows.length; i += 2) if (res.diagnostics.heldLogits[i] !== res.diagnostics.heldLogits[i + 1]) differing++;
      return differing;
    };
    expect(await pairsDiffering(true)).toBe(0);
    expect(await pairsDiffering(false)).toBeGreaterThan(50); // by order id, the copies fall in different folds
  });

  it('with a time column, holds out the cases seen latest, whole', async () => {
    const timed = fitOrders(600, 4, { group: true, time: true });
    const res = await timed.fit;
    expect(res.quality.validation_scheme).toBe('out_of_time');
    const per = splitPerCase(timed.rows, res.diagnostics.rowSplit);
    expect([...per.values()].filter((s) => s === 'mixed')).toEqual([]);
    const latest = (c: string) =>
      timed.rows.filter((r) => r.customer_id === c).reduce((m, r) => (String(r.ordered_on) > m ? String(r.ordered_on) : m), '');
    const heldLatest = [...per].filter(([, s]) => s === 'held').map(([c]) => latest(c));
    const trainLatest = [...per].filter(([, s]) => s === 'train').map(([c]) => latest(c));
    const earliestHeld = heldLatest.reduce((a, b) => (a < b ? a : b));
    const latestTrained = trainLatest.reduce((a, b) => (a > b ? a : b));
    expect(earliestHeld >= latestTrained, `${earliestHeld} >= ${latestTrained}`).toBe(true);
  });
});

describe('the held-out test counts cases, not rows', () => {
  // 1,600 customers with a weak pattern, once as one row each and once as four identical rows each (grouped by
  // customer): four copies of a case are one piece of evidence, so the AUC interval must not narrow to half
  // (row-level errors would: sqrt(4) = 2)
  const customers = (copies: number) => {
    const rnd = mulberry32(5);
    const rows: Record<string, string | number>[] = [];
    for (let c = 0; c < 1600; c++) {
      const x = uniform(rnd);
      const y = uniform(rnd) < 0.3 + 0.3 * x ? 'yes' : 'no';
      for (let k = 0; k < copies; k++) rows.push({ row_id: `r${c}-${k}`, customer_id: `c${c}`, x: Math.round(x * 1000), y });
    }
    return rows;
  };
  const fitCustomers = (copies: number) => {
    const rows = customers(copies);
    const outcome = Float64Array.from(rows, (r) => (r.y === 'yes' ? 1 : 0));
    return fitTable(rowsToTable(rows), { entityColumn: 'row_id', outcomeColumn: 'y', outcome, groupColumn: 'customer_id' });
  };

  it('four copies of each case give about the interval of one', async () => {
    const one = await fitCustomers(1);
    const four = await fitCustomers(4);
    expect([one.quality.validation_scheme, four.quality.validation_scheme]).toEqual(['entity_hash', 'entity_hash']);
    const width = (r: typeof one) => r.quality.auc_interval![1] - r.quality.auc_interval![0];
    expect(width(four)).toBeGreaterThan(0.75 * width(one));
  });

  it('noise in a table of several rows per case is refused', async () => {
    let answered = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const rnd = mulberry32(seed * 7919);
      const rows: Record<string, string | number>[] = [];
      for (let c = 0; c < 200; c++) {
        // the customer's own features identify it; the outcome is a coin flip per customer
        const seg = `s${Math.floor(uniform(rnd) * 8)}`,
          mean = uniform(rnd) * 100,
          y = uniform(rnd) < 0.4 ? 'yes' : 'no';
        for (let k = 0; k < 5; k++)
          rows.push({ order_id: `o${c}-${k}`, customer_id: `c${c}`, seg, size: Math.round(mean + uniform(rnd) * 10), y });
      }
      const outcome = Float64Array.from(rows, (r) => (r.y === 'yes' ? 1 : 0));
      const r = await fitTable(rowsToTable(rows), { entityColumn: 'order_id', outcomeColumn: 'y', outcome, groupColumn: 'customer_id' });
      if (r.state === 'answered') answered++;
    }
    expect(answered).toBe(0);
  });
});
