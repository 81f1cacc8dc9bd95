// The linear start's ridge fit (assembly/linear.ts) reaches its optimum: compiled from the engine's own source
// into a small probe module (test/engine/probes/linear-probe.as.ts), it is run on laid-out bins and its answer
// is checked against the conditions only the optimum meets. Its Newton steps once summed the intercept x column
// terms of the Hessian into the upper triangle, which the Cholesky solve never reads: the steps still went
// downhill but shrank by about a quarter a step, so 25 of them stopped short of the optimum on every WDBC bag.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileProbe } from './probes/compile.ts';
import { mulberry32, uniform } from '../../bench/prng.ts';

const STRIDE = 256; // bins per column in the term tables (assembly/binning.ts BIN_STRIDE)
const RIDGE = 1; // assembly/tunables.ts LINEAR_RIDGE: penalty RIDGE / 2 x sum of squared coefficients

interface Probe {
  memory: WebAssembly.Memory;
  alloc(bytes: number): number;
  run(...args: number[]): number;
  intercept(): number;
}

let probe: Probe;
let removeProbe = (): void => {};

beforeAll(async () => {
  const compiled = await compileProbe<Probe>('linear-probe');
  probe = compiled.exports;
  removeProbe = compiled.remove;
}, 60_000);
afterAll(() => removeProbe());

/**
 * Rows of u correlated numeric columns already binned (bins 1..nBins-1, no missing), with an outcome whose log
 * odds are a line in their bins; the first nT rows train, the rest validate.
 */
function rows(seed: number, u: number, nBins: number, nT: number, nV: number) {
  const next = mulberry32(seed);
  const n = nT + nV;
  const bins = Array.from({ length: u }, () => new Uint8Array(n));
  const y = new Float64Array(n);
  const slopes = [0.4, -0.25, 0.3, 0.15, -0.35];
  for (let i = 0; i < n; i++) {
    const shared = uniform(next);
    let logit = -2.5;
    for (let c = 0; c < u; c++) {
      const v = 0.7 * shared + 0.3 * uniform(next); // correlated columns, as WDBC's radius, perimeter and area are
      const b = 1 + Math.min(nBins - 2, Math.floor(v * (nBins - 1)));
      bins[c][i] = b;
      logit += slopes[c % slopes.length] * (b - nBins / 2);
    }
    y[i] = uniform(next) < 1 / (1 + Math.exp(-logit)) ? 1 : 0;
  }
  return { bins, y };
}

/** Runs the engine's linearStart on the rows; returns each training row's logit per column and in all. */
function fitLine(seed: number, u: number, nBins: number, nT: number, nV: number) {
  const { bins, y } = rows(seed, u, nBins, nT, nV);
  const mem = () => probe.memory.buffer;
  const f64 = (values: ArrayLike<number>) => {
    const p = probe.alloc(Math.max(8, values.length * 8));
    new Float64Array(mem(), p, values.length).set(values);
    return p;
  };
  const i32 = (values: ArrayLike<number>) => {
    const p = probe.alloc(Math.max(8, values.length * 4));
    new Int32Array(mem(), p, values.length).set(values);
    return p;
  };
  const u8 = (values: ArrayLike<number>) => {
    const p = probe.alloc(Math.max(8, values.length));
    new Uint8Array(mem(), p, values.length).set(values);
    return p;
  };
  const counts = new Float64Array(u * STRIDE);
  for (let c = 0; c < u; c++) for (let i = 0; i < nT; i++) counts[c * STRIDE + bins[c][i]]++;
  const binsT = u8(bins.flatMap((col) => Array.from(col.subarray(0, nT))));
  const binsV = u8(bins.flatMap((col) => Array.from(col.subarray(nT))));
  let pos = 0;
  for (let i = 0; i < nT; i++) pos += y[i];
  const base = (pos + 0.5) / (nT + 1);
  const work = f64(new Float64Array(u * STRIDE));
  const kept = probe.run(
    u,
    i32(new Int32Array(u)),
    i32(new Int32Array(u).fill(nBins)),
    f64(counts),
    binsT,
    f64(y.subarray(0, nT)),
    nT,
    binsV,
    f64(y.subarray(nT)),
    nV,
    Math.log(base / (1 - base)),
    work,
    f64(new Float64Array(nT)),
    f64(new Float64Array(nV)),
  );
  const terms = new Float64Array(mem(), work, u * STRIDE).slice();
  const b = probe.intercept();
  const part = bins.map((col, c) => Float64Array.from(col.subarray(0, nT), (bin) => terms[c * STRIDE + bin]));
  const logit = Float64Array.from({ length: nT }, (_, i) => b + part.reduce((s, t) => s + t[i], 0));
  return { kept, part, logit, y: y.subarray(0, nT) };
}

describe('the linear start reaches the ridge optimum (assembly/linear.ts)', () => {
  for (const [seed, u] of [
    [1, 3],
    [2, 5],
  ]) {
    it(`meets the optimality conditions on 400 rows of ${u} correlated columns (seed ${seed})`, () => {
      const { kept, part, logit, y } = fitLine(seed, u, 40, 400, 150);
      expect(kept).toBe(1);
      const residual = Float64Array.from(logit, (s, i) => 1 / (1 + Math.exp(-s)) - y[i]);
      // the intercept is not penalised: its gradient, the sum of residuals, is zero at the optimum
      const interceptGradient = residual.reduce((s, r) => s + r, 0);
      expect(Math.abs(interceptGradient)).toBeLessThan(1e-7);
      // column k's term is beta_k z_k(bin), z standardised over the training rows (mean of z^2 is 1), so
      // beta_k x (its gradient sum_i r_i z_ik + RIDGE beta_k) = sum_i r_i t_ik + RIDGE mean_i t_ik^2, zero at the optimum
      for (const t of part) {
        const beta2 = t.reduce((s, v) => s + v * v, 0) / t.length;
        expect(beta2).toBeGreaterThan(1e-4); // the line is there to be learned
        const condition = t.reduce((s, v, i) => s + residual[i] * v, 0) + RIDGE * beta2;
        expect(Math.abs(condition)).toBeLessThan(1e-7);
      }
    });
  }
});
