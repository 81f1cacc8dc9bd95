// Scores new rows in the page with a Model (from this page's fit or exported by the service), through
// the service's own scoreTable: the same p, reasons and ranges the service would give for these rows, and
// the same rows left unscored (contract 1.1: a row lacking a column, or with a value the model never saw,
// is not_scoreable); and the engine's unrounded f64 outputs beside them, to check bit for bit against
// another engine.
import type { EngineModule } from '../../engine/wasm.ts';
import type { Model } from '../../engine/model.ts';
import { scoreCases, unreadableRows, type CaseProblem, type ReasonOut } from '../../engine/scorer.ts';
import { entityKey } from '../../table/select.ts';
import type { RawTable } from '../../table/types.ts';
import { scoreTable } from '../../core/scoring.ts';
import { pickRows } from '../../core/cases.ts';

export interface ScoredRow {
  entity_id: string | null;
  /** null for a row the service would not score (not_scoreable says why). */
  p: number | null;
  reasons: ReasonOut[];
  unsupported: string[];
  not_scoreable?: CaseProblem;
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
  const idOf = (r: number) => (e >= 0 ? entityKey(rows.data[e][r]) : null);
  const problems = unreadableRows(model, rows);
  const keep: number[] = [];
  for (let r = 0; r < rows.rowCount; r++) if (!problems.has(r)) keep.push(r);
  const scored = scoreTable(engine, model, problems.size === 0 ? rows : pickRows(rows, keep));
  const out: ScoredRow[] = new Array(rows.rowCount);
  keep.forEach((r, i) => (out[r] = { entity_id: idOf(r), ...scored[i] }));
  for (const [r, p] of problems) out[r] = { entity_id: idOf(r), p: null, reasons: [], unsupported: [], not_scoreable: p };
  return out;
}

/** Straight from the engine: what scoreRows rounds (docs/reference/ask.md#reasons: p to 6 decimals) and reads reasons from. */
export function scoreExact(engine: EngineModule, model: Model, rows: RawTable): ExactScores {
  const out = scoreCases(engine, model, rows);
  return { p: out.p, contributions: out.contributions, columns: model.columns.length };
}
