// Section 5 of the page: the model rows are scored with — this page's fit, or any model the service gave
// a key (by model_ref, from POST /v1/export-model) — and the rows scored with it here, with the chances
// rounded as the service answers (docs/reference/ask.md#case-result) and the engine's exact f64 outputs kept beside them.
import type { EngineModule } from '../../engine/wasm.ts';
import type { Model } from '../../engine/model.ts';
import type { RawTable } from '../../table/types.ts';
import { f64ToBase64, modelFromJson } from '../../engine/model-json.ts';
import { scoreExact, scoreRows, type ExactScores, type ScoredRow } from '../core/score.ts';
import { exportModel } from '../core/service.ts';
import { byId, el, fill, fmt } from './dom.ts';
import { scoredRowsView } from './compare-view.ts';

type Obj = Record<string, any>;

export interface CurrentModel {
  model: Model;
  /** In words, for the page: "this page's fit mr1_…" or "the service's model mr1_…". */
  from: string;
  modelRef: string | null;
}

export interface ScoreRun {
  from: string;
  modelRef: string | null;
  /** What was scored: "sample:saas_churn", a file name. */
  source: string;
  rows: ScoredRow[];
  exact: ExactScores;
}

export class ScorePanel {
  current: CurrentModel | null = null;
  last: ScoreRun | null = null;

  constructor(readonly engine: EngineModule) {}

  private enable(on: boolean): void {
    byId<HTMLButtonElement>('score-record').disabled = !on;
    byId<HTMLInputElement>('score-file').disabled = !on;
  }

  /** After a preview: its fit becomes the model (or there is none, when the preview did not answer). */
  usePageFit(model: Model | null, modelRef: string | null): void {
    this.current = model ? { model, from: `this page's fit ${modelRef ?? ''}`.trim(), modelRef } : null;
    this.last = null;
    fill('score-out', '');
    fill('model-line', model ? `Scoring with ${this.current!.from}.` : 'This preview made no model to score with.');
    this.enable(model !== null);
  }

  /** Fetches `modelRef` from the service with `key` and makes it the model; returns the export reply. */
  async load(modelRef: string, key: string): Promise<Obj> {
    const exported = await exportModel(modelRef, key);
    const model = modelFromJson(exported.model);
    this.current = { model, from: `the service's model ${exported.model_ref}`, modelRef: exported.model_ref };
    this.last = null;
    byId<HTMLInputElement>('model-ref').value = exported.model_ref;
    const auc = exported.quality?.auc;
    // A model fitted by another engine build scores differently; the page says so rather than hide it.
    const core =
      exported.core_hash === this.engine.coreHash
        ? 'fitted by the engine this page runs (same core_hash)'
        : `fitted by engine ${exported.core_hash}, not the one this page runs (${this.engine.coreHash}), so scores may differ from the service's`;
    fill(
      'model-line',
      el('span', { id: 'model-loaded', 'data-model-ref': exported.model_ref }, `Scoring with ${this.current.from}`),
      `, ${core}. State ${exported.state ?? '–'}, held-out AUC ${fmt(auc)}; uses ${model.usedColumns().join(', ') || 'no column'}.`,
    );
    fill('score-out', '');
    this.enable(true);
    return exported;
  }

  /** Scores every row of `table` with the model; `entityColumn` names each row when the table has it. */
  score(table: RawTable, source: string, entityColumn?: string): ScoreRun {
    if (!this.current) throw new Error('Load a model or run a preview first.');
    const entity = entityColumn !== undefined && table.columns.includes(entityColumn) ? entityColumn : undefined;
    const { model, from, modelRef } = this.current;
    const run: ScoreRun = {
      from,
      modelRef,
      source,
      rows: scoreRows(this.engine, model, table, entity),
      exact: scoreExact(this.engine, model, table),
    };
    this.last = run;
    fill('score-out', scoredRowsView(run.rows, `${from}, rows of ${source}`, run.exact.p));
    return run;
  }

  /**
   * The last run's exact outputs and the model's f64 array, as base64 of their little-endian bytes: for
   * checking the page bit for bit against another engine (test/browser does, against the service's).
   */
  exactBase64(): { p: string; contributions: string; columns: number; model: string } | null {
    if (!this.last || !this.current) return null;
    const { p, contributions, columns } = this.last.exact;
    return { p: f64ToBase64(p), contributions: f64ToBase64(contributions), columns, model: f64ToBase64(this.current.model.array) };
  }
}
