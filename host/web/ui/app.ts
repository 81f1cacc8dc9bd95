// The page's controller: holds the engine, the samples and the record in memory, runs the preview,
// asks the service, compares the two, and scores rows with a model (section 4). Everything it needs is
// fetched once at load; a model is fetched only when the person loads one from the service.
import type { EngineModule } from '../../engine/wasm.ts';
import { parseCsv } from '../../table/csv.ts';
import { selectCases } from '../../core/cases.ts';
import type { RawTable } from '../../table/types.ts';
import { PreviewSession, previewAsk, type PreviewRecord, type PreviewResult } from '../core/ask.ts';
import { compareAnswers, type Agreement } from '../core/compare.ts';
import { scoreRows } from '../core/score.ts';
import { strongestTerms } from '../core/terms.ts';
import { askService } from '../core/service.ts';
import { answerView } from './answer-view.ts';
import { termsChart } from './chart.ts';
import { byId, el, fill, nextFrame } from './dom.ts';
import { QuestionForm, type SampleInfo } from './form.ts';
import { agreementView } from './compare-view.ts';
import { ScorePanel, type ScoreRun } from './score-panel.ts';

type Obj = Record<string, any>;
type Status = 'loading' | 'ready' | 'busy' | 'done' | 'error';

export function errorText(err: unknown): string {
  const e = err as { code?: string; message?: string; field?: string };
  return `${e.code ? e.code + ': ' : ''}${e.message ?? String(err)}${e.field ? ` (field ${e.field})` : ''}`;
}

export class PreviewApp {
  readonly session: PreviewSession;
  readonly form = new QuestionForm();
  record: (PreviewRecord & { label: string; sample?: SampleInfo }) | null = null;
  lastPreview: PreviewResult | null = null;
  lastAsk: Obj | null = null;
  lastService: Obj | null = null;
  lastAgreement: Agreement | null = null;
  /** Section 4: the model rows are scored with (this page's fit, or one loaded from the service). */
  readonly scoring: ScorePanel;

  constructor(
    readonly engine: EngineModule,
    readonly samples: Map<string, { info: SampleInfo; text: string }>,
  ) {
    this.session = new PreviewSession(engine);
    this.scoring = new ScorePanel(engine);
  }

  status(s: Status): void {
    document.body.dataset.status = s;
  }

  /** Makes `text` the record (a sample when `sample` is given). */
  useRecord(text: string, label: string, sample?: SampleInfo): void {
    const { table } = this.session.read(text, sample ? 'data.dataset_id' : 'data.csv');
    this.record = { text, label, sample, ...(sample ? { datasetId: sample.dataset_id } : {}) };
    this.form.setRecord(table, sample);
    const logOnly = sample !== undefined && sample.shape !== 'table';
    fill(
      'record-line',
      `${label}: ${table.rowCount} rows, ${table.columns.length} columns (${table.columns.join(', ')}).${sample ? ' ' + sample.description : ''}`,
      logOnly
        ? el(
            'strong',
            {},
            ` This sample is a ${sample.shape} log, read through a shape; this page previews tables (one row per case) only. ` +
              'Section 3 sends its ready ask to the service.',
          )
        : '',
    );
    byId<HTMLButtonElement>('run').disabled = logOnly;
    // A new record: the last answer and comparison were of another one.
    byId('result').hidden = true;
    fill('agreement', '');
    fill('service-line', '');
    fill('run-line', '');
    this.form.form.dataset.logOnly = String(logOnly);
    // A log sample is asked of the service with its own ready ask (docs/reference/journeys.md#describe `try`); there is no preview to compare.
    this.lastAsk = logOnly ? { ...sample.try } : null;
    this.lastPreview = null;
    byId<HTMLButtonElement>('ask-service').disabled = !logOnly;
  }

  selectSample(name: string): void {
    const s = this.samples.get(name);
    if (!s) throw new Error(`no sample ${name}`);
    byId<HTMLSelectElement>('sample').value = name;
    byId<HTMLInputElement>('file').value = '';
    this.useRecord(s.text, `sample:${name}`, s.info);
  }

  private dataOfRecord(): { dataset_id: string } | { csv: string } {
    const r = this.record!;
    return r.datasetId !== undefined ? { dataset_id: r.datasetId } : { csv: r.text };
  }

  /** Runs the form's question on the record, in this page. */
  async run(): Promise<PreviewResult> {
    if (!this.record) throw new Error('Pick a record first.');
    this.status('busy');
    fill('run-line', 'Fitting in this page…');
    await nextFrame();
    try {
      const ask = this.form.buildAsk(this.dataOfRecord());
      const started = performance.now();
      const result = await previewAsk(this.session, ask, this.record);
      const total = performance.now() - started;
      this.lastAsk = ask;
      this.lastPreview = result;
      this.lastService = null;
      this.lastAgreement = null;
      this.show(result);
      const t = result.timings;
      fill(
        'run-line',
        `Done in ${total.toFixed(0)} ms (parse ${t.parseMs.toFixed(0)}, encode ${t.encodeMs.toFixed(0)}, fit ${t.fitMs.toFixed(0)}, answer ${t.answerMs.toFixed(0)}); fits run: ${result.body.fits_run}.`,
      );
      this.status('done');
      return result;
    } catch (err) {
      fill('run-line', el('span', { class: 'error' }, errorText(err)));
      this.status('error');
      throw err;
    }
  }

  private show(result: PreviewResult): void {
    const answer = (result.body.answers as Obj).q;
    byId('result').hidden = false;
    const model = result.fits.find((f) => f.model)?.model ?? null;
    fill(
      'preview-answer',
      answerView(
        answer,
        'preview',
        model
          ? termsChart(strongestTerms(model), model.pairCount - model.tripleCount, model.tripleCount, model.residualTrees, {
              refused: answer.state === 'refused',
            })
          : undefined,
      ),
    );
    this.scoring.usePageFit(model, answer.model_ref ?? null);
    fill('answer-json', '');
    fill('agreement', '');
    fill('service-line', '');
    byId<HTMLButtonElement>('ask-service').disabled = false;
    byId<HTMLButtonElement>('export-model').disabled = !answer.model_ref;
  }

  /** Sends the same ask to /v1/ask and compares every case; a log sample's ask is shown as the service answered it. */
  async askService(key: string): Promise<Agreement | null> {
    if (!this.lastAsk) throw new Error('Run the preview first.');
    if (!this.lastPreview) return this.askServiceOnly(key);
    this.status('busy');
    fill('service-line', 'Asking the service…');
    try {
      let live = false;
      const body = await askService(
        this.lastAsk,
        key,
        (p) => live || fill('service-line', `The service is fitting (pending ${p.task_id})…`),
        // docs/reference/tasks.md#events: the service's own stages, live, as its event stream sends them
        (stage) => {
          live = true;
          const share = typeof stage.frac === 'number' ? ` (${Math.round(stage.frac * 100)}%)` : '';
          fill('service-line', `The service: ${stage.message}${share}`);
        },
      );
      this.lastService = body;
      const agreement = compareAnswers(this.lastPreview.body, body);
      this.lastAgreement = agreement;
      fill(
        'service-line',
        `The service answered (fits run ${body.fits_run}, core ${String(body.core_hash).slice(0, 12)}…; this page ${this.engine.coreHash.slice(0, 12)}…).`,
      );
      fill('agreement', agreementView(agreement));
      this.status('done');
      return agreement;
    } catch (err) {
      fill('service-line', el('span', { class: 'error' }, errorText(err)));
      this.status('error');
      throw err;
    }
  }

  /** A log sample: the service's answer on its own (the page cannot read the log, so there is nothing to compare). */
  private async askServiceOnly(key: string): Promise<null> {
    this.status('busy');
    fill('service-line', 'Asking the service…');
    try {
      const body = await askService(this.lastAsk!, key, (p) => fill('service-line', `The service is fitting (pending ${p.task_id})…`));
      this.lastService = body;
      fill(
        'service-line',
        `The service answered (fits run ${body.fits_run}); this page does not read logs, so there is no preview to compare.`,
      );
      fill('agreement', answerView((body.answers as Obj).q, 'service'));
      this.status('done');
      return null;
    } catch (err) {
      fill('service-line', el('span', { class: 'error' }, errorText(err)));
      this.status('error');
      throw err;
    }
  }

  /** Loads the service's model for this answer and scores the same cases with it here. */
  async loadServiceModel(key: string): Promise<{ equal: number; cases: number }> {
    const answer = (this.lastPreview?.body.answers as Obj | undefined)?.q;
    if (!answer?.model_ref) throw new Error('No model_ref to load.');
    this.status('busy');
    try {
      const exported = await this.scoring.load(answer.model_ref, key);
      const model = this.scoring.current!.model;
      const ref = this.lastService?.answers?.q ?? answer;
      const cases: Obj[] = answer.type === 'choice' ? [] : (ref.cases ?? ref.ranked ?? []);
      const ids = cases.map((c) => c.entity_id);
      const table = this.lastPreview!.table;
      const entity = this.lastAsk!.entity_column as string;
      const picked = selectCases(table, { ids }, entity, this.lastAsk!.time_column as string | undefined);
      const scored = scoreRows(this.engine, model, picked.table, entity);
      const equal = scored.filter((s, i) => typeof cases[i].p === 'number' && Object.is(s.p, cases[i].p)).length;
      const sameCore = exported.core_hash === this.engine.coreHash;
      const whose = this.lastService ? "service's" : "page's";
      const line =
        answer.type === 'choice'
          ? `Loaded the service's model ${exported.model_ref}; section 4 scores new rows with it (choice answers score each option, so they are compared in section 3).`
          : `The service's model ${exported.model_ref}, scored in this page: ${equal} of ${cases.length} cases have the ${whose} p bit for bit.`;
      fill(
        'service-line',
        el('span', { class: answer.type === 'choice' || equal === cases.length ? 'agree' : 'disagree', id: 'export-result' }, line),
        sameCore ? '' : ` Its core_hash ${exported.core_hash} differs from this page's engine.`,
      );
      this.status('done');
      return { equal, cases: cases.length };
    } catch (err) {
      fill('service-line', el('span', { class: 'error' }, errorText(err)));
      this.status('error');
      throw err;
    }
  }

  /**
   * docs/reference/models.md#export: loads any model_ref the service gave `key` (POST /v1/export-model), fitted on the server, so
   * section 4 scores rows with it here exactly as the service scores them.
   */
  async loadModelRef(modelRef: string, key: string): Promise<void> {
    this.status('busy');
    try {
      if (modelRef === '') throw new Error('Enter a model_ref (mr1_…) from an answer of the service.');
      await this.scoring.load(modelRef, key);
      this.status('done');
    } catch (err) {
      fill('model-line', el('span', { class: 'error' }, errorText(err)));
      this.status('error');
      throw err;
    }
  }

  /** Scores every row of the record of section 1 (a sample or a picked file) with the current model. */
  scoreRecord(): ScoreRun {
    return this.scoreWith(() => {
      if (!this.record) throw new Error('Pick a record in section 1 first.');
      const { table } = this.session.read(this.record.text, this.record.datasetId !== undefined ? 'data.dataset_id' : 'data.csv');
      return { table, source: this.record.label };
    });
  }

  /** Scores the rows of another CSV (cases to score) with the current model. */
  scoreFile(text: string, name = 'the picked file'): ScoreRun {
    return this.scoreWith(() => ({ table: parseCsv(text, { field: 'rows' }), source: name }));
  }

  private scoreWith(read: () => { table: RawTable; source: string }): ScoreRun {
    this.status('busy');
    try {
      const { table, source } = read();
      // The entity column chosen in section 2 names each row (a model holds no entity column).
      const run = this.scoring.score(table, source, byId<HTMLSelectElement>('entity').value || undefined);
      this.status('done');
      return run;
    } catch (err) {
      fill('score-out', el('p', { class: 'error' }, errorText(err)));
      this.status('error');
      throw err;
    }
  }
}
