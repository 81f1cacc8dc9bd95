// Scores a case table with a fit's model and reads out rounded chances, reasons and support:
// the numbers every question type is built from (docs/reference/ask.md#case-result, docs/reference/ask.md#reasons; docs/design/engine.md#scoring).
import { ServiceError } from '../errors.ts';
import { NotScoreable, reasonsOf, scoreCases, type ReasonOut } from '../engine/scorer.ts';
import type { Model } from '../engine/model.ts';
import type { EngineModule } from '../engine/wasm.ts';
import type { RawTable } from '../table/types.ts';

export interface ScoredCase {
  p: number; // rounded to 6 decimals (docs/reference/ask.md#case-result): every decision uses this value
  reasons: ReasonOut[];
  /** Columns whose value fell in a bin no training row had (outside the record's support). */
  unsupported: string[];
}

const NONE = Object.freeze([]) as unknown as string[];

export const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

export function scoreTable(engine: EngineModule, model: Model, cases: RawTable): ScoredCase[] {
  if (cases.rowCount === 0) return [];
  let out;
  try {
    out = scoreCases(engine, model, cases);
  } catch (err) {
    if (err instanceof NotScoreable) {
      throw new ServiceError('row_not_scoreable', err.message, {
        field: 'cases',
        extra: err.missingColumns.length > 0 ? { missing_columns: err.missingColumns } : { bad_value: err.badValue },
        cause: err,
      });
    }
    throw err;
  }
  const m = model.columns.length;
  const counts = model.columns.map((c, j) => (c.kind === 'unused' ? null : model.counts(j)));
  const result: ScoredCase[] = new Array(cases.rowCount);
  for (let r = 0; r < cases.rowCount; r++) {
    // nearly every case is inside the record's support: those share one frozen empty list
    let unsupported: string[] = NONE;
    for (let j = 0; j < m; j++) {
      const cnt = counts[j];
      if (cnt && cnt[out.bins[r * m + j]] === 0) (unsupported === NONE ? (unsupported = []) : unsupported).push(model.columns[j].name);
    }
    result[r] = {
      p: round6(out.p[r]),
      reasons: reasonsOf(model, out, cases, r),
      unsupported,
    };
  }
  return result;
}
