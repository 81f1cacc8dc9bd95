// Scores new rows in the page with a Model (from this page's fit or exported by the service), through
// the service's own scoreTable: the same p, reasons and ranges the service would give for these rows.
import type { EngineModule } from '../../engine/wasm.ts';
import type { Model } from '../../engine/model.ts';
import { entityKey } from '../../table/select.ts';
import type { RawTable } from '../../table/types.ts';
import { scoreTable, type ScoredCase } from '../../operations/ask/scoring.ts';
import { previewContext } from './context.ts';

export interface ScoredRow extends ScoredCase {
  entity_id: string | null;
}

export function scoreRows(engine: EngineModule, model: Model, rows: RawTable, entityColumn?: string): ScoredRow[] {
  const e = entityColumn === undefined ? -1 : rows.columns.indexOf(entityColumn);
  return scoreTable(previewContext(engine), model, rows).map((s, r) => ({ entity_id: e >= 0 ? entityKey(rows.data[e][r]) : null, ...s }));
}
