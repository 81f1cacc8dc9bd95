// svc_ask (spec 4.1): validate, resolve the record, run or reuse one fit per outcome, score the
// cases, build each question's answer with its signed Verdicts, count billable decisions.
import { ServiceError } from '../../errors.ts';
import { AskRequestSchema, parseBody, type AskRequest, type Question } from '../../schemas/index.ts';
import type { OpContext, OpResult } from '../../services.ts';
import { assertKeyMayUse, resolveRecord } from './record.ts';
import { resolveOutcome } from './outcome.ts';
import { fitKeyOf, obtainFit, type FitOutcome, type FitRequest } from './fits.ts';
import { RecordViews, type RecordView } from './views.ts';
import { buildAnswer } from './answers.ts';
import { askReplyJson } from './reply-json.ts';
import { CONTRACT } from './verdicts.ts';
import { registerTaskExecutor, runWithPending, type Stage } from '../tasks.ts';
import { withIdempotency } from '../idempotency.ts';
import { computeDrift, storeDrift } from '../drift.ts';
import type { ModelRecord } from '../../store/index.ts';
import { setOwn } from '../../schemas/record.ts';

export { CONTRACT } from './verdicts.ts';

interface PlannedQuestion {
  name: string;
  question: Question;
  fitKeys: string[];
  options?: string[];
  /** spec 2.3 refit_of: the earlier model this question's fit is compared with (spec 3.4). */
  refitOf?: ModelRecord;
  /** The record (or its shaped reading) this question is fitted on and answered from. */
  view: RecordView;
}

/**
 * svc_ask: validates, then runs the ask; a first fit that outlasts config.pendingWaitMs turns the
 * reply into 202 pending (spec 3.2); idempotency_key replays the first reply (spec 2.6).
 */
export async function askOperation(ctx: OpContext, raw: unknown): Promise<OpResult> {
  const ask = parseBody(AskRequestSchema, raw);
  assertKeyMayUse(ctx, ask.data);
  const idem = ask.idempotency_key !== undefined ? { operation: 'svc_ask', key: ask.idempotency_key } : undefined;
  const run = () =>
    runWithPending(ctx, { operation: 'svc_ask', body: raw, caller: ctx.caller!, idempotency: idem }, (onStage) =>
      executeAsk(ctx, ask, onStage),
    );
  return idem ? withIdempotency(ctx, idem.operation, idem.key, raw, run) : run();
}

// A task left by a stopped process is re-run from its stored request (host/operations/tasks.ts).
registerTaskExecutor('svc_ask', (ctx, body, onStage) => executeAsk(ctx, parseBody(AskRequestSchema, body), onStage));

async function executeAsk(ctx: OpContext, ask: AskRequest, onStage: (s: Stage) => void): Promise<OpResult> {
  onStage('reading_data');
  const record = await resolveRecord(ctx, ask.data);
  checkColumn(record.table.columns, ask.entity_column, 'entity_column');
  if (ask.time_column !== undefined) checkColumn(record.table.columns, ask.time_column, 'time_column');
  const views = new RecordViews(record.table, ask);

  // Plan one fit per distinct fit key (spec 4.1 rule 1).
  const requests = new Map<string, FitRequest>();
  const plan: PlannedQuestion[] = [];
  const coreHash = ctx.services.engine.coreHash;
  const addFit = (outcomeColumn: string, q: Question, field: string): { key: string; view: RecordView } => {
    const view = views.viewFor(outcomeColumn, q.positive_values, field);
    const outcome = resolveOutcome(view.table, outcomeColumn, q.positive_values, field);
    const req: FitRequest = {
      table: view.table,
      recordHash: record.contentHash,
      entityColumn: view.entityColumn,
      timeColumn: view.timeColumn,
      shapeKey: view.shapeKey,
      outcome,
      desirable: q.outcome_is_desirable ?? null,
    };
    const key = fitKeyOf(coreHash, req);
    if (!requests.has(key)) requests.set(key, req);
    return { key, view };
  };
  for (const [name, q] of Object.entries(ask.questions)) {
    const field = `questions.${name}`;
    if (q.type === 'choice' && q.option_outcomes !== undefined) {
      const options = Object.keys(q.option_outcomes);
      const fitsOf = options.map((o) => addFit(q.option_outcomes![o], q, field));
      if (new Set(fitsOf.map((f) => f.view)).size > 1) {
        // each option's outcome would read the record differently (traces, series): no common cases
        throw new ServiceError(
          'invalid_request',
          `${field}.option_outcomes: with shape kind ${ask.shape!.kind} ask one question per outcome instead`,
          {
            field: `${field}.option_outcomes`,
          },
        );
      }
      plan.push({ name, question: q, fitKeys: fitsOf.map((f) => f.key), options, view: fitsOf[0].view });
    } else {
      const { key, view } = addFit(q.outcome_column!, q, field);
      if (q.type === 'choice') checkColumn(view.table.columns, q.option_column!, `${field}.option_column`);
      plan.push({ name, question: q, fitKeys: [key], view });
    }
  }
  for (const p of plan) p.refitOf = await refitTarget(ctx, p);

  onStage('fitting');
  const fits = new Map<string, FitOutcome>();
  await Promise.all([...requests].map(async ([key, req]) => fits.set(key, await obtainFit(ctx, req))));

  onStage('answering');
  const answers: Record<string, unknown> = {};
  let billable = 0;
  for (const p of plan) {
    const built = await buildAnswer({
      ctx,
      name: p.name,
      question: p.question,
      fits: p.fitKeys.map((k) => fits.get(k)!),
      options: p.options,
      cases: p.view.cases,
      recordHash: record.contentHash,
      subjectKind: ask.subject_kind,
      acknowledged: ask.acknowledge_decision_support === true,
      band: ask.band === true,
    });
    setOwn(answers, p.name, built.body);
    billable += built.billable;
    if (p.refitOf) {
      // spec 3.4: link the new fit to the old one and report drift (host/operations/drift.ts)
      const fit = fits.get(p.fitKeys[0])!;
      const drift = computeDrift(ctx, { table: p.view.table, outcome: requests.get(p.fitKeys[0])!.outcome.values, fit, old: p.refitOf });
      await storeDrift(ctx, fit.modelRef, drift); // the link and its report in one write
      built.body.drift = drift;
    }
  }
  const fitsRun = [...fits.values()].filter((f) => f.ran).length;
  // spec 1 Cost: refusals, not_yet and sample datasets are free, so only answered fits on the
  // caller's own data are chargeable fits
  const chargeableFits = record.isSample ? 0 : [...fits.values()].filter((f) => f.ran && f.state === 'answered').length;
  const billableDecisions = record.isSample ? 0 : billable;
  recordUsage(ctx, chargeableFits, billableDecisions);

  const body: Record<string, unknown> = {
    status: 'done',
    contract: CONTRACT,
    core_hash: coreHash,
    record: { content_hash: record.contentHash, rows: record.table.rowCount, columns: record.table.columns.length },
    answers,
    ...(views.summary() ? { shape: views.summary() } : {}),
    ...(record.datasetId !== undefined ? { dataset_id: record.datasetId } : {}),
    fits_run: fitsRun,
    billable_decisions: billableDecisions,
    ...(record.isSample ? { free: true } : {}),
  };
  return { status: 200, body, bodyJson: () => askReplyJson(body) };
}

/** The model a question's refit_of names: one this workspace was given, else unknown_model. */
async function refitTarget(ctx: OpContext, p: PlannedQuestion): Promise<ModelRecord | undefined> {
  const ref = p.question.refit_of;
  if (ref === undefined) return undefined;
  const field = `questions.${p.name}.refit_of`;
  if (p.fitKeys.length !== 1) {
    throw new ServiceError(
      'invalid_request',
      `${field}: refit_of compares one fit with an earlier one; a choice with option_outcomes has one fit per option`,
      { field },
    );
  }
  const rec = await ctx.services.store.getModelByRef(ctx.caller!.workspaceId, ref);
  if (!rec) throw new ServiceError('unknown_model', `${field}: ${ref} is not a model_ref this workspace was given`, { field });
  return rec;
}

function checkColumn(columns: string[], name: string, field: string): void {
  if (columns.includes(name)) return;
  const shown = columns.slice(0, 30).join(', ');
  throw new ServiceError(
    'invalid_request',
    `${field}: ${JSON.stringify(name)} is not a column of the record (columns: ${shown}${columns.length > 30 ? ', ...' : ''})`,
    {
      field,
    },
  );
}

/** Counts the chargeable fits and decisions; the meter writes them to the ledger (usage-meter.ts). */
function recordUsage(ctx: OpContext, fits: number, decisions: number): void {
  const { usage, now } = ctx.services;
  const ws = ctx.caller!.workspaceId;
  usage.add(ws, 'fit', fits, now());
  usage.add(ws, 'decision', decisions, now());
}
