// Calibration of the served chances (assembly/bags.ts calibrate): a single-split fit is always rescaled by
// the Platt fit of its out-of-bag logits, and its held-out chances then agree with the held-out outcomes.
import { describe, expect, it } from 'vitest';
import { loadTelco } from '../../bench/datasets.ts';
import { datasetFixture, fit } from './helpers.ts';

/** Slope and offset of y ~ sigmoid(a + b x) by Newton's method (the test's own, in JS doubles). */
function logisticFit(x: number[], y: number[]): { a: number; b: number } {
  let a = 0;
  let b = 1;
  for (let it = 0; it < 50; it++) {
    let ga = 0;
    let gb = 0;
    let haa = 0;
    let hab = 0;
    let hbb = 0;
    for (let i = 0; i < x.length; i++) {
      const p = 1 / (1 + Math.exp(-(a + b * x[i])));
      const g = p - y[i];
      const h = p * (1 - p);
      ga += g;
      gb += g * x[i];
      haa += h;
      hab += h * x[i];
      hbb += h * x[i] * x[i];
    }
    const det = haa * hbb - hab * hab;
    a -= (hbb * ga - hab * gb) / det;
    b -= (haa * gb - hab * ga) / det;
  }
  return { a, b };
}

describe('calibration of a single-split fit', () => {
  it('rescales the chances by the out-of-bag Platt fit, and the held-out chances match the held-out outcomes', async () => {
    const f = datasetFixture(loadTelco());
    const r = await fit(f);
    expect(r.state).toBe('answered');
    expect(r.quality.validation_scheme).toBe('entity_hash');
    // always applied (it was only outside a slope of [0.8, 1.25] before), with the slope it found
    expect(r.diagnostics.calibrationApplied).toBe(true);
    expect(r.diagnostics.calibrationSlope).toBeGreaterThan(0.5);
    expect(r.diagnostics.calibrationSlope).toBeLessThan(2);
    const x: number[] = [];
    const y: number[] = [];
    r.diagnostics.heldLogits.forEach((s, i) => {
      if (Number.isFinite(s)) {
        x.push(s);
        y.push(f.outcome[i]);
      }
    });
    expect(x.length).toBe(r.quality.held_out_rows);
    // rows the fit never learned from: mean chance near the positive rate, slope near 1
    const meanP = x.reduce((s, v) => s + 1 / (1 + Math.exp(-v)), 0) / x.length;
    const rate = y.reduce((s, v) => s + v, 0) / y.length;
    expect(Math.abs(meanP - rate)).toBeLessThan(0.02);
    const { b } = logisticFit(x, y);
    expect(b).toBeGreaterThan(0.85);
    expect(b).toBeLessThan(1.2);
  });
});
