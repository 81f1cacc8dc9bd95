// Shape samples (docs/design/samples.md#catalogue): committed CSVs match the generator byte for byte, each `try` is a
// valid ask, and its record read through its shape is answered by the real engine, quickly.
import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { AskRequestSchema } from '../../../host/schemas/ask.ts';
import type { Shape } from '../../../host/schemas/shape.ts';
import { parseCsv } from '../../../host/table/csv.ts';
import { applyShape } from '../../../host/table/shapes/index.ts';
import { SAMPLES } from '../../../samples/catalog.ts';
import { GENERATORS } from '../../../samples/generate.ts';
import { SHAPE_GENERATORS } from '../../../samples/generate-shapes.ts';
import { SHAPE_SAMPLES } from '../../../samples/shape-catalog.ts';
import { col, fitShaped } from './helpers.ts';

const csvOf = (name: string) => readFileSync(new URL(`../../../samples/${name}.csv`, import.meta.url), 'utf8');

/** Held-out AUC each sample's planted pattern must reach (measured values are well above). */
const MIN_AUC: Record<string, number> = {
  customer_events: 0.8,
  store_weekly: 0.78,
  usage_panel: 0.9,
  sensor_stream: 0.9,
  agent_traces: 0.7,
};

describe.each(SHAPE_SAMPLES.map((s) => [s.name, s] as const))('shape sample %s', (name, sample) => {
  const committed = csvOf(name);
  const ask = sample.try;
  const read = () => {
    const q = ask.questions.q as { outcome_column: string };
    return applyShape(parseCsv(committed), ask.shape as Shape, {
      entityColumn: ask.entity_column,
      timeColumn: ask.time_column!,
      question: { field: 'questions.q', outcomeColumn: q.outcome_column },
    });
  };

  it('regenerates byte for byte, with LF line ends', () => {
    expect(SHAPE_GENERATORS[name]()).toBe(committed);
    expect(GENERATORS[name]).toBe(SHAPE_GENERATORS[name]);
    expect(committed.includes('\r')).toBe(false);
    expect(committed.endsWith('\n')).toBe(true);
  });

  it('has the catalogued columns and rows, and is listed among the samples', () => {
    const lines = committed.slice(0, -1).split('\n');
    expect(lines[0].split(',')).toEqual(sample.columns.map((c) => c.name));
    expect(lines.length - 1).toBe(sample.rows);
    expect(sample.dataset_id).toBe(`sample:${name}`);
    expect(SAMPLES.map((s) => s.name)).toContain(name);
  });

  it('has a try ask the ask schema accepts, with question key q, time_column and its shape', () => {
    expect(() => v.parse(AskRequestSchema, ask)).not.toThrow();
    expect(Object.keys(ask.questions)).toEqual(['q']);
    expect(ask.questions.q.outcome_column).toBe(sample.outcome_column);
    expect((ask.shape as { kind: string }).kind).toBe(sample.shape);
    expect(ask.time_column).toBeDefined();
    expect(ask.subject_kind).not.toBe('person');
  });

  it('reads into cases that include the ones the try asks about', () => {
    const rec = read();
    expect(rec.outcomeColumn).toBe(sample.outcome_column);
    const ids = new Set(col(rec.table, rec.entityColumn));
    for (const id of ask.cases?.ids ?? []) expect(ids.has(id), id).toBe(true);
    expect(rec.counts.cases).toBeGreaterThanOrEqual(30);
    expect(rec.counts.positives).toBeGreaterThan(100);
  });

  it(`is ${sample.expected_state} by the real engine on its shaped record, the same every time`, async () => {
    const first = await fitShaped(read());
    expect(first.state).toBe(sample.expected_state);
    // a sample with no pattern (coin_flip_events) is refused, whatever its AUC
    if (sample.expected_state === 'answered') expect(first.quality.auc).toBeGreaterThanOrEqual(MIN_AUC[name]);
    else expect(first.reasons).toContain(sample.expected_refusal);
    const again = await fitShaped(read());
    expect(again.quality).toEqual(first.quality);
  });
});

describe('shape sample specifics', () => {
  it('marks cust_0001 of customer_events as lapsed', () => {
    const rec = applyShape(parseCsv(csvOf('customer_events')), SHAPE_SAMPLES[0].try.shape as Shape, {
      entityColumn: 'customer_id',
      timeColumn: 'date',
    });
    const ids = col(rec.table, 'customer_id');
    expect(col(rec.table, 'lapsed_90d')[ids.indexOf('cust_0001')]).toBe(1);
  });

  it('uses only 0/1 or yes/no outcomes in the committed logs', () => {
    for (const [name, column] of [
      ['store_weekly', 6],
      ['agent_traces', 7],
    ] as const) {
      const values = new Set(
        csvOf(name)
          .slice(0, -1)
          .split('\n')
          .slice(1)
          .map((l) => l.split(',')[column]),
      );
      expect([...values].sort()).toEqual(['0', '1']);
    }
  });
});
