// Scores new rows in the page with a Model (from this page's fit or exported by the service), through
// the service's own scoreTable: the same p, reasons and ranges the service would give for these rows;
// and the engine's unrounded f64 outputs beside them, to check bit for bit against another engine.
import type { EngineModule } from '../../engine/wasm.ts';
import type { Model } from '../../engine/model.ts';
import { scoreCases } from '../../engine/scorer.ts';
import { entityKey } from '../../table/select.ts';
import type { RawTable } from '../../table/types.ts';
import { scoreTable, type ScoredCase } from '../../operations/ask/scoring.ts';

export interface ScoredRow extends ScoredCase {
  entity_id: string | null;
}

/** The engine's own numbers for a table of rows, before any rounding (engine/scorer.ts ScoreOutput). */
export interface ExactScores {
  /** One chance per row, unrounded. */
  p: Float64Array;
  /** Per row and model column: the logit contribution, `[row * columns + column]`. */
  contributions: Float64Array;
  columns: number;
}

export function scoreRows(engine: EngineModule, model: Model, rows: RawTable, entityColumn?: string): ScoredRow[] {
  const e = entityColumn === undefined ? -1 : rows.columns.indexOf(entityColumn);
  return scoreTable(engine, model, rows).map((s, r) => ({ entity_id: e >= 0 ? entityKey(rows.data[e][r]) : null, ...s }));
}

/** Straight from the engine: what scoreRows rounds (wire.md: p to 6 decimals) and reads reasons from. */
export function scoreExact(engine: EngineModule, model: Model, rows: RawTable): ExactScores {
  const out = scoreCases(engine, model, rows);
  return { p: out.p, contributions: out.contributions, columns: model.columns.length };
}
