// Scoring and reasons (docs/design/engine.md#scoring) and model serialisation, on the Telco model.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  Model,
  NotScoreable,
  loadEngine,
  reasonsOf,
  scoreCases,
  type EngineModule,
  type FitResult,
  type ScoreOutput,
} from '../../host/engine/index.ts';
import type { RawTable } from '../../host/table/types.ts';
import { loadTelco } from '../../bench/datasets.ts';
import { bitsOf, casesOf, datasetFixture, fit, syntheticFixture, type Fixture } from './helpers.ts';

let mod: EngineModule;
let f: Fixture;
let result: FitResult;
let model: Model;
let cases: RawTable;
let out: ScoreOutput;

beforeAll(async () => {
  mod = await loadEngine();
  f = datasetFixture(loadTelco());
  result = await fit(f);
  expect(result.state).toBe('answered');
  model = result.model!;
  cases = casesOf(f);
  out = scoreCases(mod, model, cases);
});

const logit = (p: number) => Math.log(p) - Math.log1p(-p);
const sameBits = (a: Float64Array, b: Float64Array) => Buffer.from(bitsOf(a)).equals(Buffer.from(bitsOf(b)));

describe('scoring', () => {
  it('every p is a probability strictly between 0 and 1', () => {
    expect(out.p.length).toBe(f.table.rowCount);
    for (const p of out.p) expect(p > 0 && p < 1).toBe(true);
  });

  it('contributions sum to logit(p) - intercept within 1e-9 on every case', () => {
    const m = model.columns.length;
    let worst = 0;
    for (let r = 0; r < cases.rowCount; r++) {
      let sum = 0;
      for (let j = 0; j < m; j++) sum += out.contributions[r * m + j];
      worst = Math.max(worst, Math.abs(sum - (logit(out.p[r]) - model.intercept)));
    }
    expect(worst).toBeLessThan(1e-9);
  });

  it('unused columns contribute nothing', () => {
    const m = model.columns.length;
    model.columns.forEach((c, j) => {
      if (c.kind !== 'unused') return;
      for (let r = 0; r < cases.rowCount; r++) expect(out.contributions[r * m + j]).toBe(0);
    });
  });

  it('reasons: at most 4, strongest first, each past ln 1.25 with its direction, strength and range text', () => {
    const m = model.columns.length;
    const problems: string[] = [];
    let withReasons = 0;
    for (let r = 0; r < cases.rowCount; r++) {
      const reasons = reasonsOf(model, out, cases, r);
      if (reasons.length > 4) problems.push(`row ${r}: ${reasons.length} reasons`);
      if (reasons.length > 0) withReasons++;
      let previous = Infinity;
      for (const reason of reasons) {
        const c = out.contributions[r * m + model.columns.findIndex((col) => col.name === reason.feature_label)];
        const at = `row ${r} ${reason.feature_label}`;
        if (Math.abs(c) > previous) problems.push(`${at}: stronger than the reason before it`);
        previous = Math.abs(c);
        if (Math.abs(c) < Math.log(1.25)) problems.push(`${at}: |${c}| < ln 1.25`);
        if (reason.likelihood_direction !== (c > 0 ? 'higher' : 'lower'))
          problems.push(`${at}: direction ${reason.likelihood_direction} for ${c}`);
        if (reason.strength !== (Math.abs(c) >= Math.log(2) ? 'strong' : 'moderate'))
          problems.push(`${at}: strength ${reason.strength} for ${c}`);
        if (!reason.range.text.startsWith(`${reason.feature_label} `))
          problems.push(`${at}: range text ${JSON.stringify(reason.range.text)}`);
        if (reason.association_not_causal !== true) problems.push(`${at}: association_not_causal`);
      }
    }
    expect(problems.slice(0, 10)).toEqual([]);
    expect(withReasons).toBeGreaterThan(cases.rowCount / 2);
  });

  it("a numeric reason's range text is true of the case's value, also past the training values", () => {
    // The interval a range text states (the forms of Model.describeBin); null when it is not numeric.
    const intervalOf = (text: string, name: string): [number, number, boolean] | null => {
      const t = text.slice(name.length + 1);
      let g: RegExpExecArray | null;
      if ((g = /^is (-?[\d.e+-]+)$/.exec(t))) return [Number(g[1]), Number(g[1]), true];
      if ((g = /^from (-?[\d.e+-]+) to under (-?[\d.e+-]+)$/.exec(t))) return [Number(g[1]), Number(g[2]), false];
      if ((g = /^from (-?[\d.e+-]+) to (-?[\d.e+-]+)$/.exec(t))) return [Number(g[1]), Number(g[2]), true];
      if ((g = /^(-?[\d.e+-]+) or less$/.exec(t))) return [-Infinity, Number(g[1]), true];
      if ((g = /^(-?[\d.e+-]+) to (-?[\d.e+-]+)$/.exec(t))) return [Number(g[1]), Number(g[2]), true];
      if ((g = /^under (-?[\d.e+-]+)$/.exec(t))) return [-Infinity, Number(g[1]), false];
      if ((g = /^(-?[\d.e+-]+) or more$/.exec(t))) return [Number(g[1]), Infinity, true];
      return null;
    };
    // Telco rows as they are, then the same rows pushed past (and between) the training values.
    const numeric = model.columns.filter((c) => c.kind === 'numeric').map((c) => cases.columns.indexOf(c.name));
    const n = 400;
    const shifted: RawTable = {
      columns: cases.columns,
      data: cases.data.map((col, k) =>
        numeric.includes(k)
          ? Array.from({ length: n }, (_, r) => [Number(col[r]) * 40 + 7, -1000 - r, Number(col[r]) + 0.37][r % 3])
          : col.slice(0, n),
      ),
      rowCount: n,
    };
    const problems: string[] = [];
    let checked = 0;
    let pastTraining = 0;
    for (const table of [cases, shifted]) {
      const o = scoreCases(mod, model, table);
      for (let r = 0; r < table.rowCount; r++) {
        for (const reason of reasonsOf(model, o, table, r)) {
          if (typeof reason.value !== 'number') continue;
          const iv = intervalOf(reason.range.text, reason.feature_label);
          if (!iv) {
            problems.push(`${reason.range.text}: not a numeric range text`);
            continue;
          }
          const [lo, hi, hiIncluded] = iv;
          const x = reason.value;
          if (!(x >= lo && (hiIncluded ? x <= hi : x < hi))) problems.push(`${reason.feature_label}=${x}: "${reason.range.text}"`);
          if (/or more$|^\S+ under /.test(reason.range.text)) pastTraining++;
          checked++;
        }
      }
    }
    expect(problems.slice(0, 10)).toEqual([]);
    expect(checked).toBeGreaterThan(1000);
    expect(pastTraining).toBeGreaterThan(0);
  });

  it('with pair terms, contributions still sum to logit(p) - intercept within 1e-9', async () => {
    const s = syntheticFixture(2600, 10, 11); // a single split (3,000 rows would be cross-fitted: decision 0099)
    const r = await fit(s);
    expect(r.diagnostics.pairs).toBeGreaterThan(0);
    const sc = scoreCases(mod, r.model!, casesOf(s));
    const m = r.model!.columns.length;
    let worst = 0;
    for (let i = 0; i < s.table.rowCount; i++) {
      let sum = 0;
      for (let j = 0; j < m; j++) sum += sc.contributions[i * m + j];
      worst = Math.max(worst, Math.abs(sum - (logit(sc.p[i]) - r.model!.intercept)));
    }
    expect(worst).toBeLessThan(1e-9);
  });

  it('a case scored alone gets the same bits as in the batch', () => {
    for (const r of [0, 17, 4000, cases.rowCount - 1]) {
      const one: RawTable = { columns: cases.columns, data: cases.data.map((c) => [c[r]]), rowCount: 1 };
      expect(sameBits(scoreCases(mod, model, one).p, out.p.subarray(r, r + 1))).toBe(true);
    }
  });

  it('an unseen category and a blank are scored, not rejected', () => {
    const j = cases.columns.indexOf('contract');
    const odd: RawTable = {
      columns: cases.columns,
      data: cases.data.map((c, k) => (k === j ? ['Lifetime', null] : [c[0], c[1]])),
      rowCount: 2,
    };
    const p = scoreCases(mod, model, odd).p;
    for (const v of p) expect(v > 0 && v < 1).toBe(true);
  });

  it('cases that lack a column the model uses throw NotScoreable naming it', () => {
    const used = model.usedColumns()[0];
    const k = cases.columns.indexOf(used);
    const lacking: RawTable = {
      columns: cases.columns.filter((_, i) => i !== k),
      data: cases.data.filter((_, i) => i !== k),
      rowCount: cases.rowCount,
    };
    expect(() => scoreCases(mod, model, lacking)).toThrow(NotScoreable);
    try {
      scoreCases(mod, model, lacking);
    } catch (err) {
      expect((err as NotScoreable).missingColumns).toEqual([used]);
    }
  });
});

describe('serialisation', () => {
  it('Model.fromBytes(model.toBytes()) scores the same bits', () => {
    const restored = Model.fromBytes(model.toBytes());
    const again = scoreCases(mod, restored, cases);
    expect(sameBits(again.p, out.p)).toBe(true);
    expect(sameBits(again.contributions, out.contributions)).toBe(true);
    expect(Array.from(again.reasonColumns)).toEqual(Array.from(out.reasonColumns));
  });

  it('bytes survive a round trip unchanged', () => {
    const bytes = model.toBytes();
    expect(Buffer.from(Model.fromBytes(bytes).toBytes()).equals(Buffer.from(bytes))).toBe(true);
    expect(Model.fromBytes(bytes).header).toEqual(model.header);
  });

  it('truncated or foreign bytes are rejected with an error', () => {
    const bytes = model.toBytes();
    expect(() => Model.fromBytes(bytes.subarray(0, bytes.length - 3))).toThrow(/truncated|model/);
    expect(() => Model.fromBytes(new TextEncoder().encode('not a model at all'))).toThrow(/not a serialised model/);
  });
});
