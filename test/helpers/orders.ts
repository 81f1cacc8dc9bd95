// A table of several rows per case for the group_column tests (docs/decisions/0001-group-column.md): customers with orders.
import { mulberry32, uniform } from '../../bench/prng.ts';

/** `cases` customers with `perCase` orders each; the outcome is the customer's, driven by its segment and the order size. */
export function ordersTable(cases: number, perCase: number, seed: number, dated = true) {
  const rnd = mulberry32(seed);
  const rows: Record<string, string | number>[] = [];
  for (let c = 0; c < cases; c++) {
    const segment = ['a', 'b', 'c'][Math.floor(uniform(rnd) * 3)];
    const lift = segment === 'a' ? 1.2 : segment === 'b' ? 0 : -1.2;
    const churned = uniform(rnd) < 1 / (1 + Math.exp(-lift)) ? 'yes' : 'no';
    let size = 0;
    for (let k = 0; k < perCase; k++) {
      // orders come in identical pairs (same size): a case's two copies score alike only if one model scores both
      if (k % 2 === 0) size = Math.round(uniform(rnd) * 100 + (churned === 'yes' ? 20 : 0));
      rows.push({
        order_id: `o${c}-${k}`,
        customer_id: `c${c}`,
        segment,
        size,
        ...(dated ? { ordered_on: `2026-${String(1 + ((c * 7) % 12)).padStart(2, '0')}-${String(1 + k).padStart(2, '0')}` } : {}),
        churned,
      });
    }
  }
  return rows;
}
