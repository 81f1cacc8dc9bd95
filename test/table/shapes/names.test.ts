// Feature names (host/table/shapes/names.ts): every name a shape makes is a pattern svc_describe lists, or one taken before it with _2, _3, ...
import { describe, expect, it } from 'vitest';
import { SHAPE_FEATURES, type ShapedRecord } from '../../../host/table/shapes/index.ts';
import type { Cell } from '../../../host/table/types.ts';
import { day, q, shapeOf, shuffled, table } from './helpers.ts';

/** A describe pattern as a regex: each `{...}` part is any text. */
const patternRegex = (name: string) =>
  new RegExp(
    `^${name
      .split(/\{[^}]+\}/)
      .map((p) => p.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
      .join('.+')}$`,
  );
const TAKEN = '{name}_{n}';

/**
 * Checks each feature of `rec` against the kind's patterns: it matches one (other than the
 * collision rule), or it is `base_n` (n >= 2) where base matches one and is already a column of
 * the output or a feature named before it, and the kind documents the collision rule.
 */
function expectDocumented(kind: keyof typeof SHAPE_FEATURES, rec: ShapedRecord): string[] {
  const patterns = SHAPE_FEATURES[kind].filter((p) => p.name !== TAKEN).map((p) => patternRegex(p.name));
  const matches = (name: string) => patterns.some((re) => re.test(name));
  const suffixed: string[] = [];
  const before = new Set(rec.table.columns.filter((c) => !rec.features.includes(c)));
  for (const f of rec.features) {
    const m = /^(.+)_(\d+)$/.exec(f);
    if (matches(f) && !(m && before.has(m[1]))) {
      before.add(f);
      continue;
    }
    expect(m, f).not.toBeNull();
    expect(Number(m![2]), f).toBeGreaterThanOrEqual(2);
    expect(matches(m![1]), `${f}: base ${m![1]}`).toBe(true);
    expect(before.has(m![1]), `${f}: ${m![1]} is taken before it`).toBe(true);
    expect(SHAPE_FEATURES[kind].map((p) => p.name)).toContain(TAKEN);
    suffixed.push(f);
    before.add(f);
  }
  return suffixed;
}

describe('feature names', () => {
  it('events: a type named event, and two spellings of one type, get documented suffixes in code point order', () => {
    const rows: Record<string, Cell>[] = [];
    for (let c = 0; c < 4; c++) {
      for (let k = 0; k < 12; k++)
        rows.push({ id: `c${c}`, at: day(k * 10), ev: ['event', 'Page View', 'page_view', 'buy'][k % 4], amount: k });
    }
    const shape = { kind: 'events', event_column: 'ev', value_columns: ['amount'], label: { lapsed: true } };
    const rec = shapeOf(table(rows), shape, { entityColumn: 'id', timeColumn: 'at' });
    expect(expectDocumented('events', rec)).toEqual([
      'event_count_30d_2',
      'event_count_90d_2',
      'page_view_count_30d_2',
      'page_view_count_90d_2',
    ]);
    // The same rows in another order name the same columns (Page View < event < page_view by code point).
    for (const seed of [1, 2])
      expect(shapeOf(shuffled(table(rows), seed), shape, { entityColumn: 'id', timeColumn: 'at' }).features).toEqual(rec.features);
  });

  it("series, panel, signals and traces: names that clash with the record's own columns (or the entity column) are documented too", () => {
    const series = table(
      Array.from({ length: 16 }, (_, i) => ({ id: i < 8 ? 'a' : 'b', at: day(7 * (i % 8)), v: i % 5, v_last: i, y: i % 2 })),
    );
    expect(
      expectDocumented(
        'series',
        shapeOf(series, { kind: 'series', value_columns: ['v'], windows: [3, 6] }, { entityColumn: 'id', timeColumn: 'at' }),
      ),
    ).toEqual(['v_last_2']);

    // Panel makes names from its own columns only: a clash needs the entity column's name.
    const panel = table(Array.from({ length: 8 }, (_, i) => ({ u_mean: i < 4 ? 'a' : 'b', at: day(30 * (i % 4)), u: i, y: i % 2 })));
    const p = shapeOf(panel, { kind: 'panel', label: { window_of: 'y' } }, { entityColumn: 'u_mean', timeColumn: 'at' });
    expect(expectDocumented('panel', p)).toEqual(['u_mean_2']);

    const readings = Array.from({ length: 10 }, (_, i) => ({ s_last: 'm', at: day(i), s: i, kind: null as string | null }));
    const signals = table([...readings, { s_last: 'm', at: day(5), s: null, kind: 'fault' }]);
    const sig = shapeOf(
      signals,
      { kind: 'signals', signal_columns: ['s'], event_column: 'kind', windows: [1, 3, 7], snapshot_every: '1d', horizon: 1 },
      { entityColumn: 's_last', timeColumn: 'at' },
    );
    expect(expectDocumented('signals', sig)).toEqual(['s_last_2']);

    const traces = table([1, 2, 3].map((i) => ({ id: `r${i}`, at: day(i), tool: 'x', tool_prior_runs: i, failed: i % 2 })));
    const tr = shapeOf(traces, { kind: 'traces', tool_column: 'tool' }, { entityColumn: 'id', timeColumn: 'at', question: q('failed') });
    expect(expectDocumented('traces', tr)).toEqual(['tool_prior_runs_2']);
  });

  it('documents the collision rule for every kind that makes names', () => {
    for (const kind of ['events', 'series', 'panel', 'signals', 'traces'] as const)
      expect(SHAPE_FEATURES[kind].map((p) => p.name)).toContain(TAKEN);
  });
});
