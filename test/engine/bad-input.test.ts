// Bad input gives a clear state or a clear error, never a trap or a hang (docs/design/engine.md#step-9,
// "Determinism rules": NaN and infinities are missing; docs/design/house-rules.md#rules: every export returns a status).
import { beforeAll, describe, expect, it } from 'vitest';
import { fitTable, loadEngine, type EngineModule } from '../../host/engine/index.ts';
import { ERR_BAD_INPUT } from '../../host/engine/abi.ts';
import { EngineTrap, instantiate } from '../../host/engine/wasm.ts';
import type { Cell } from '../../host/table/types.ts';
import { mulberry32, uniform } from '../../bench/prng.ts';
import { fit, sampleFixture, withColumn, type Fixture } from './helpers.ts';

/** A clean failure: an ordinary Error with a message, not a wasm trap. */
function expectCleanError(err: unknown): void {
  expect(err).toBeInstanceOf(Error);
  expect(err).not.toBeInstanceOf(EngineTrap);
  expect(err).not.toBeInstanceOf(WebAssembly.RuntimeError);
  expect((err as Error).message.length).toBeGreaterThan(0);
}

/** `rows` rows of id, x (numeric signal), z (3 levels) and a yes/no outcome drawn from x. */
function simpleFixture(rows: number, seed: number): Fixture {
  const next = mulberry32(seed);
  const id: Cell[] = [],
    x: Cell[] = [],
    z: Cell[] = [],
    y: Cell[] = [];
  for (let i = 0; i < rows; i++) {
    const v = Math.round(uniform(next) * 1e4) / 1e3;
    (id.push(`r${i}`), x.push(String(v)), z.push(['a', 'b', 'c'][i % 3]));
    y.push(uniform(next) < 1 / (1 + Math.exp(-(v - 5))) ? 'yes' : 'no');
  }
  return {
    table: { columns: ['id', 'x', 'z', 'y'], data: [id, x, z, y], rowCount: rows },
    entityColumn: 'id',
    outcomeColumn: 'y',
    outcome: Float64Array.from(y, (c) => (c === 'yes' ? 1 : 0)),
  };
}

describe('fitTable on bad tables', () => {
  it('an empty table (0 rows) is rejected cleanly or not_yet, never answered', async () => {
    const empty = { columns: ['id', 'x', 'y'], data: [[], [], []], rowCount: 0 };
    let result;
    try {
      result = await fitTable(empty, { entityColumn: 'id', outcomeColumn: 'y', outcome: new Float64Array(0) });
    } catch (err) {
      return expectCleanError(err);
    }
    expect(result.state).toBe('not_yet');
  });

  it('an outcome vector shorter than the table is rejected', async () => {
    const f = simpleFixture(300, 1);
    await expect(fitTable(f.table, { entityColumn: 'id', outcomeColumn: 'y', outcome: f.outcome.subarray(0, 10) })).rejects.toThrow();
  });

  it('a table with only the entity and the outcome is refused with too_few_predictors', async () => {
    const f = simpleFixture(2000, 2);
    const r = await fit({ ...f, table: { columns: ['id', 'y'], data: [f.table.data[0], f.table.data[3]], rowCount: 2000 } });
    expect(r.state).toBe('refused');
    expect(r.reasons).toContain('too_few_predictors');
    expect(r.model).toBeNull();
  });

  it('an all-missing outcome is not_yet', async () => {
    const f = simpleFixture(2000, 3);
    const r = await fit({ ...f, outcome: new Float64Array(2000).fill(NaN) });
    expect(r.state).toBe('not_yet');
    expect(r.have.labeled_rows).toBe(0);
  });

  it('one class only is not_yet with no_positives', async () => {
    const f = simpleFixture(2000, 4);
    const r = await fit({ ...f, outcome: new Float64Array(2000) });
    expect(r.state).toBe('not_yet');
    expect(r.reasons).toContain('no_positives');
  });

  it("'NaN' strings in a numeric column are missing: the column stays a numeric predictor", async () => {
    const f = simpleFixture(2000, 5);
    const x = f.table.data[1].map((c, i) => (i % 50 === 0 ? 'NaN' : c));
    const r = await fit(withColumn(f, 'x', x));
    expect(r.quality.excluded_columns.map((e) => e.column)).not.toContain('x');
    expect(r.model?.columns.find((c) => c.name === 'x')?.kind).toBe('numeric');
    expect(r.state).toBe('answered');
  });

  it('non-finite JS numbers in a numeric column are missing', async () => {
    const f = simpleFixture(2000, 6);
    const x = f.table.data[1].map((c, i) => (i % 50 === 0 ? [Infinity, -Infinity, NaN][i % 3] : Number(c)));
    const r = await fit(withColumn(f, 'x', x));
    expect(r.model?.columns.find((c) => c.name === 'x')?.kind).toBe('numeric');
    expect(r.state).toBe('answered');
  });

  // docs/design/engine.md#determinism: "NaN and infinities are missing".
  it("'Infinity', '-Infinity' and '1e999' strings in a numeric column are missing", async () => {
    const f = simpleFixture(2000, 7);
    const x = f.table.data[1].map((c, i) => (i % 50 === 0 ? ['Infinity', '-Infinity', '1e999'][i % 3] : c));
    const r = await fit(withColumn(f, 'x', x));
    expect(r.quality.excluded_columns.map((e) => e.column)).not.toContain('x');
    expect(r.model?.columns.find((c) => c.name === 'x')?.kind).toBe('numeric');
  });

  it('20,000 rows with a 10,000-value category and an all-distinct code fit without error', async () => {
    const f = simpleFixture(20_000, 8);
    const many = Array.from({ length: 20_000 }, (_, i) => `v${(i * 7919) % 10_000}`);
    const code = Array.from({ length: 20_000 }, (_, i) => `K-${(i * 104_729) % 1_000_003}`);
    const r = await fit(withColumn(withColumn(f, 'many_levels', many), 'ref_code', code));
    expect(r.state).toBe('answered');
    expect(r.quality.excluded_columns).toContainEqual({ column: 'ref_code', why: 'identifier' });
    expect(r.model!.usedColumns()).toContain('x');
  });

  it('the samples still fit when the outcome column holds blanks (unlabeled rows)', async () => {
    const f = sampleFixture('saas_churn', 'customer_id', 'churned');
    const outcome = f.outcome.map((y, i) => (i % 4 === 0 ? NaN : y));
    const r = await fit({ ...f, outcome });
    expect(r.have.labeled_rows).toBe(600);
    expect(['answered', 'refused', 'not_yet']).toContain(r.state);
  });
});

describe('raw engine exports with hostile arguments', () => {
  let mod: EngineModule;
  beforeAll(async () => void (mod = await loadEngine()));

  it.each([
    ['zero rows', [0, 0, 0, 0, 0, 0, 0, 0, 0]],
    ['negative rows', [-5, 1, 8, 8, 8, 0, 8, 8, 8]],
    ['negative columns', [3, -1, 8, 8, 8, 0, 8, 8, 8]],
    ['null pointers', [3, 1, 0, 0, 0, 0, 0, 0, 0]],
  ] as Array<[string, number[]]>)('fit with %s returns ERR_BAD_INPUT', (_name, args) => {
    const ex = instantiate(mod);
    expect((ex.fit as (...a: number[]) => number)(...args)).toBe(ERR_BAD_INPUT);
  });

  it('fit with pointers past the end of memory traps as a contained RuntimeError (no hang)', () => {
    const ex = instantiate(mod);
    const far = 0x7ffffff0;
    expect(() => ex.fit(3, 1, far, far, far, 0, far, far, far)).toThrow(WebAssembly.RuntimeError);
  });

  it('score with a block that is not a model returns ERR_BAD_MODEL', () => {
    const ex = instantiate(mod);
    const p = ex.alloc(64);
    expect(ex.score(p, 8, 1, p, p, 0, 0, p, p)).toBe(2);
    expect(ex.score(0, 0, 1, 0, 0, 0, 0, 0, 0)).toBe(2);
  });
});
