// The preview's svc_ask for a table record: validate with the service's schema, then the service's own
// steps (planAsk, the fit, buildAnswer) on one in-memory fit cache. No data leaves the page.
import { ServiceError } from '../../errors.ts';
import { AskRequestSchema, parseBody, type AskRequest } from '../../schemas/index.ts';
import { parseCsv } from '../../table/csv.ts';
import { sha256Hex } from '../../signing/sha256.ts';
import type { RawTable } from '../../table/types.ts';
import type { EngineModule } from '../../engine/wasm.ts';
import { buildAnswer, type AnswerDeps } from '../../core/answers.ts';
import { planAsk, tableViewOf } from '../../core/plan.ts';
import type { FitOutcome } from '../../core/fit-outcome.ts';
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
  /** Shaped like the service's ask response (docs/reference/ask.md#response), with `preview: true` and no signatures. */
  body: Record<string, unknown>;
  table: RawTable;
  fits: FitOutcome[];
  timings: PreviewTimings;
}

/** Fits made in this page, by fit key: a second question on the same bytes reuses its fit (docs/reference/ask.md#fits). */
export class PreviewSession {
  readonly fits = new Map<string, FitOutcome>();
  private parsed: { text: string; table: RawTable; hash: string } | null = null;

  constructor(readonly engine: EngineModule) {}

  /** Parses and hashes a record once per text (the last one is kept). */
  read(text: string, field: string): { table: RawTable; hash: string; ms: number } {
    const t0 = performance.now();
    if (this.parsed?.text !== text) this.parsed = { text, table: parseCsv(text, { field }), hash: sha256Hex(text) };
    return { table: this.parsed.table, hash: this.parsed.hash, ms: performance.now() - t0 };
  }
}

/** The page's answer dependencies: the same engine, but no key to sign Verdicts and no lever-token secret. */
export const UNSIGNED_LEVER_TOKEN = 'preview-unsigned';
function pageDeps(engine: EngineModule): AnswerDeps {
  return { engine, sign: null, leverToken: () => UNSIGNED_LEVER_TOKEN };
}

/** Runs `raw` (an ask body as it would be sent to /v1/ask) on `record` inside this page. */
export async function previewAsk(session: PreviewSession, raw: unknown, record: PreviewRecord): Promise<PreviewResult> {
  const ask: AskRequest = parseBody(AskRequestSchema, raw);
  if (ask.shape && ask.shape.kind !== 'table') {
    throw new ServiceError('shape_invalid', 'the preview reads tables (one row per case) only', { field: 'shape.kind' });
  }
  if (ask.data === undefined) {
    throw new ServiceError('invalid_request', 'data: the preview answers on the record it holds; send data', { field: 'data' });
  }
  const field = ask.data.dataset_id !== undefined ? 'data.dataset_id' : 'data.csv';
  const { table, hash, ms: parseMs } = session.read(record.text, field);
  const engine = session.engine;
  // The service's own planning (core/plan.ts) on the one view a table has.
  const view = tableViewOf(table, ask);
  const plan = planAsk(ask, { columns: table.columns, contentHash: hash, table }, { viewFor: () => view }, engine.coreHash);

  const timings: PreviewTimings = { parseMs, encodeMs: 0, fitMs: 0, answerMs: 0 };
  let fitsRun = 0;
  const fits = new Map<string, FitOutcome>();
  for (const [key, req] of plan.requests) {
    const known = session.fits.get(key);
    if (known) {
      fits.set(key, { ...known, cache: 'hit', ran: false });
      continue;
    }
    const { outcome, timings: t } = fitPreview(engine, req);
    timings.encodeMs += t.encodeMs;
    timings.fitMs += t.fitMs;
    fitsRun++;
    session.fits.set(key, outcome);
    fits.set(key, outcome);
  }

  const t0 = performance.now();
  const deps = pageDeps(engine);
  const answers: Record<string, unknown> = {};
  for (const p of plan.questions) {
    const built = await buildAnswer({
      deps,
      name: p.name,
      question: p.question,
      fits: p.fitKeys.map((k) => fits.get(k)!),
      options: p.options,
      cases: p.view.cases,
      recordHash: hash,
      subjectKind: ask.subject_kind,
      acknowledged: ask.acknowledge_decision_support === true,
      band: ask.band === true,
    });
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
  return { body, table, fits: plan.questions.flatMap((p) => p.fitKeys.map((k) => fits.get(k)!)), timings };
}
