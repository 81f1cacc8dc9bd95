// The preview's svc_ask for a table record: validate with the service's schema, then the service's
// own steps (resolveOutcome, fit, selectCases, buildAnswer) on one in-memory fit cache. No data leaves.
import { ServiceError } from '../../errors.ts';
import { AskRequestSchema, parseBody, type AskRequest, type Question } from '../../schemas/index.ts';
import { parseCsv } from '../../table/csv.ts';
import { contentHash } from '../../table/hash.ts';
import type { RawTable } from '../../table/types.ts';
import type { EngineModule } from '../../engine/wasm.ts';
import { resolveOutcome } from '../../operations/ask/outcome.ts';
import { selectCases } from '../../operations/ask/cases.ts';
import { buildAnswer } from '../../operations/ask/answers.ts';
import { fitKeyOf, type FitOutcome, type FitRequest } from '../../operations/ask/fits.ts';
import { previewContext } from './context.ts';
import { fitPreview } from './fit.ts';
import { setOwn } from '../../schemas/record.ts';

/** A record the page holds: CSV text picked by the person, or a sample fetched at page load. */
export interface PreviewRecord {
  text: string;
  /** `sample:<name>` for a sample (sent to the service as dataset_id); absent for a picked file. */
  datasetId?: string;
}

export interface PreviewTimings {
  parseMs: number;
  encodeMs: number;
  fitMs: number;
  answerMs: number;
}

export interface PreviewResult {
  /** Shaped like the service's ask response (spec 2.7), with `preview: true` and no signatures. */
  body: Record<string, unknown>;
  table: RawTable;
  fits: FitOutcome[];
  timings: PreviewTimings;
}

/** Fits made in this page, by fit key: a second question on the same bytes reuses its fit (spec 4.1 rule 2). */
export class PreviewSession {
  readonly fits = new Map<string, FitOutcome>();
  private parsed: { text: string; table: RawTable; hash: string } | null = null;

  constructor(readonly engine: EngineModule) {}

  /** Parses and hashes a record once per text (the last one is kept). */
  read(text: string, field: string): { table: RawTable; hash: string; ms: number } {
    const t0 = performance.now();
    if (this.parsed?.text !== text) this.parsed = { text, table: parseCsv(text, { field }), hash: contentHash(text) };
    return { table: this.parsed.table, hash: this.parsed.hash, ms: performance.now() - t0 };
  }
}

function checkColumn(columns: string[], name: string, field: string): void {
  if (columns.includes(name)) return;
  throw new ServiceError('invalid_request', `${field}: ${JSON.stringify(name)} is not a column of the record`, { field });
}

/** Runs `raw` (an ask body as it would be sent to /v1/ask) on `record` inside this page. */
export async function previewAsk(session: PreviewSession, raw: unknown, record: PreviewRecord): Promise<PreviewResult> {
  const ask: AskRequest = parseBody(AskRequestSchema, raw);
  if (ask.shape && ask.shape.kind !== 'table') {
    throw new ServiceError('shape_invalid', 'the preview reads tables (one row per case) only', { field: 'shape.kind' });
  }
  const field = ask.data.dataset_id !== undefined ? 'data.dataset_id' : 'data.csv';
  const { table, hash, ms: parseMs } = session.read(record.text, field);
  checkColumn(table.columns, ask.entity_column, 'entity_column');
  if (ask.time_column !== undefined) checkColumn(table.columns, ask.time_column, 'time_column');

  const timings: PreviewTimings = { parseMs, encodeMs: 0, fitMs: 0, answerMs: 0 };
  const engine = session.engine;
  let fitsRun = 0;
  const fitFor = (outcomeColumn: string, q: Question, field: string): FitOutcome => {
    const req: FitRequest = {
      table,
      recordHash: hash,
      entityColumn: ask.entity_column,
      timeColumn: ask.time_column,
      outcome: resolveOutcome(table, outcomeColumn, q.positive_values, field),
      desirable: q.outcome_is_desirable ?? null,
    };
    const key = fitKeyOf(engine.coreHash, req);
    const known = session.fits.get(key);
    if (known) return { ...known, cache: 'hit', ran: false };
    const { outcome, timings: t } = fitPreview(engine, req);
    timings.encodeMs += t.encodeMs;
    timings.fitMs += t.fitMs;
    fitsRun++;
    session.fits.set(key, outcome);
    return outcome;
  };

  const planned: Array<{ name: string; question: Question; fits: FitOutcome[]; options?: string[] }> = [];
  for (const [name, q] of Object.entries(ask.questions)) {
    const field = `questions.${name}`;
    if (q.type === 'choice' && q.option_outcomes !== undefined) {
      const options = Object.keys(q.option_outcomes);
      planned.push({ name, question: q, fits: options.map((o) => fitFor(q.option_outcomes![o], q, field)), options });
    } else {
      if (q.type === 'choice') checkColumn(table.columns, q.option_column!, `${field}.option_column`);
      planned.push({ name, question: q, fits: [fitFor(q.outcome_column!, q, field)] });
    }
  }
  const cases = selectCases(table, ask.cases, ask.entity_column, ask.time_column);

  const t0 = performance.now();
  const ctx = previewContext(engine);
  const answers: Record<string, unknown> = {};
  for (const p of planned) {
    const built = await buildAnswer({
      ctx,
      name: p.name,
      question: p.question,
      fits: p.fits,
      options: p.options,
      cases,
      recordHash: hash,
      subjectKind: ask.subject_kind,
      acknowledged: ask.acknowledge_decision_support === true,
      band: ask.band === true,
    });
    delete built.body.verdicts; // only the service signs (host/web/browser/verdicts.ts)
    setOwn(answers, p.name, built.body);
  }
  timings.answerMs = performance.now() - t0;

  const body: Record<string, unknown> = {
    status: 'done',
    preview: true,
    core_hash: engine.coreHash,
    record: { content_hash: hash, rows: table.rowCount, columns: table.columns.length },
    answers,
    ...(record.datasetId !== undefined ? { dataset_id: record.datasetId } : {}),
    fits_run: fitsRun,
    billable_decisions: 0,
  };
  return { body, table, fits: planned.flatMap((p) => p.fits), timings };
}
