// svc_ask (spec 4.1): validate, resolve the record, run or reuse one fit per outcome, score the
// cases, build each question's answer with its signed Verdicts, count billable decisions.
import { ServiceError } from '../../errors.ts';
import { AskRequestSchema, parseBody, type AskRequest, type Question } from '../../schemas/index.ts';
import type { OpContext, OpResult } from '../../services.ts';
import { assertKeyMayUse, resolveRecord } from './record.ts';
import { resolveOutcome } from './outcome.ts';
import { fitKeyOf, obtainFit, type FitOutcome, type FitRequest } from './fits.ts';
import { RecordViews } from './views.ts';
import { planAsk, type PlannedQuestion } from './plan.ts';
import { buildAnswer } from './answers.ts';
import { askReplyJson } from './reply-json.ts';
import { CONTRACT } from './contract.ts';
import { answerDepsOf } from './service-deps.ts';
import { NO_EVENTS, TaskProgress } from '../events/progress.ts';
import { SAMPLES } from '../../../samples/catalog.ts';
import { withIdempotency } from '../idempotency.ts';
import { computeDrift, storeDrift } from '../drift.ts';
import type { ModelRecord } from '../../store/index.ts';
import { setOwn } from '../../schemas/record.ts';
import { type Operation } from '../operation.ts';
import { REQUEST_SCHEMAS, RESPONSE_SCHEMAS } from '../../schemas/index.ts';

export { CONTRACT } from './contract.ts';

/**
 * svc_ask: validates, then runs the ask; a first fit that outlasts config.pendingWaitMs turns the
 * reply into 202 pending (spec 3.2); idempotency_key replays the first reply (spec 2.6).
 */
export async function runAsk(ctx: OpContext, raw: unknown): Promise<OpResult> {
  const ask = parseBody(AskRequestSchema, raw);
  assertKeyMayUse(ctx, ask.data);
  const idem = ask.idempotency_key !== undefined ? { operation: 'svc_ask', key: ask.idempotency_key } : undefined;
  const run = () =>
    ctx.services.tasks.runWithPending(ctx, { operation: 'svc_ask', body: raw, caller: ctx.caller!, idempotency: idem }, (progress) =>
      executeAsk(ctx, ask, progress),
    );
  return idem ? withIdempotency(ctx, idem.operation, idem.key, raw, run) : run();
}

/** A task left by a stopped process is re-run from its stored request (host/operations/tasks.ts). */
function resumeAsk(ctx: OpContext, body: unknown, progress: TaskProgress): Promise<OpResult> {
  return executeAsk(ctx, parseBody(AskRequestSchema, body), progress);
}

/** The ask itself; `progress` hears each step (spec 2.12: stage events of a pending ask). */
export async function executeAsk(
  ctx: OpContext,
  ask: AskRequest,
  progress = new TaskProgress(NO_EVENTS, ctx.services.now, ctx.services.now()),
): Promise<OpResult> {
  progress.reading();
  const record = await resolveRecord(ctx, ask.data);
  progress.read(record.table.rowCount);
  const views = new RecordViews(record.table, ask);
  if (ask.shape && ask.shape.kind !== 'table') progress.shaping(ask.shape.kind);
  const { requests, questions } = planAsk(
    ask,
    { columns: record.table.columns, contentHash: record.contentHash, table: record.table },
    views,
    ctx.services.engine.coreHash,
  );
  // spec 2.3 refit_of: the earlier model each question's fit is compared with (spec 3.4)
  const refitOf = new Map<string, ModelRecord>();
  for (const p of questions) {
    const rec = await refitTarget(ctx, p);
    if (rec) refitOf.set(p.name, rec);
  }

  const fits = new Map<string, FitOutcome>();
  progress.fits(requests.size);
  await Promise.all(
    [...requests].map(async ([key, req], i) => {
      fits.set(key, await obtainFit(ctx, req, progress.fitListener(i, req.outcome.column)));
      progress.fitDone(i);
    }),
  );

  const answers: Record<string, unknown> = {};
  let billable = 0;
  const deps = answerDepsOf(ctx.services);
  for (const p of questions) {
    progress.scoring(p.name, p.view.cases.entityIds.length);
    const sign = deps.sign;
    const built = await buildAnswer({
      // spec 2.12: the signing step begins with the question's first Verdict
      deps: sign ? { ...deps, sign: (v) => (progress.signing(p.name), sign(v)) } : deps,
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
    const old = refitOf.get(p.name);
    if (old) {
      // spec 3.4: link the new fit to the old one and report drift (host/operations/drift.ts)
      const fit = fits.get(p.fitKeys[0])!;
      const drift = computeDrift(ctx, { table: p.view.table, outcome: requests.get(p.fitKeys[0])!.outcome.values, fit, old });
      await storeDrift(ctx, fit.modelRef, drift); // the link and its report in one write
      built.body.drift = drift;
    }
  }
  // spec 2.12: one answer event per question, after the last stage event
  for (const p of questions) progress.answer(p.name, answers[p.name] as Record<string, unknown>);
  const fitsRun = [...fits.values()].filter((f) => f.ran).length;
  // spec 1 Cost: refusals, not_yet and sample datasets are free, so only answered fits on the
  // caller's own data are chargeable fits
  const chargeableFits = record.isSample ? 0 : [...fits.values()].filter((f) => f.ran && f.state === 'answered').length;
  const billableDecisions = record.isSample ? 0 : billable;
  recordUsage(ctx, chargeableFits, billableDecisions);

  const body: Record<string, unknown> = {
    status: 'done',
    contract: CONTRACT,
    core_hash: ctx.services.engine.coreHash,
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

/** Counts the chargeable fits and decisions; the meter writes them to the ledger (usage-meter.ts). */
function recordUsage(ctx: OpContext, fits: number, decisions: number): void {
  const { usage, now } = ctx.services;
  const ws = ctx.caller!.workspaceId;
  usage.add(ws, 'fit', fits, now());
  usage.add(ws, 'decision', decisions, now());
}

const ASK_RULES =
  'Also required, beyond what the input schema says: data has exactly one of dataset_id, rows, csv, fetch_url (fetch_headers only ' +
  'with fetch_url); cases has exactly one of ids or rows, and is required unless every question is rank; subject_kind ' +
  'person requires acknowledge_decision_support: true; time_column is required with any shape other than table; score: ' +
  'cuts has one fewer item than levels and is strictly ascending (levels alone must have 4 items, cuts alone 3); ' +
  'choice: option_column with options, or option_outcomes (not both), and outcome_column unless option_outcomes is given.';

/** svc_ask: the one declaration the transports, MCP, OpenAPI and tasks are derived from. */
export const askOperation: Operation = {
  name: 'svc_ask',
  path: '/v1/ask',
  method: 'POST',
  auth: 'key',
  body: 'json',
  title: 'Ask typed questions about cases',
  description:
    'Answers typed questions (yesno: the chance an outcome happens; score: that chance as a level; choice: the best ' +
    'option per case; rank: cases by chance) about cases, learned from a record of past cases with a yes/no outcome. ' +
    'It does not read free text, count, do arithmetic or predict a number. Start with svc_describe: each free sample ' +
    'has a ready ask in `try`. Returns {status: "done", answers: {<question>: answer}}; read each answer\'s `state` ' +
    'first: answered (each case has p from 0 to 1, up to four reasons, which are associations and not causes, and the ' +
    'answer carries signed verdicts for svc_verify), refused (no pattern held on held-out rows; the same call refuses ' +
    'again, so change the question or add columns) or not_yet (needs.labeled_rows more labeled rows). A refusal is an ' +
    'answer, not an error. The first ask on a large record may instead return {status: "pending", task_id, ' +
    'retry_after_ms}: wait retry_after_ms, then call svc_poll with the task_id; never re-send the ask while pending ' +
    '(it starts a second fit). Cost: 0.00002 USD per answered case (billable_decisions); a fit is free for the first ' +
    '1,000 each month, then 0.01 USD; refusals, not_yet and sample datasets are free. A repeated ask bills again ' +
    'unless it reuses idempotency_key. A test key works on sample datasets (sample:<name>) only. Bulk scoring of ' +
    'thousands of cases belongs on REST (POST /v1/ask).',
  rules: ASK_RULES,
  request: REQUEST_SCHEMAS.svc_ask,
  response: RESPONSE_SCHEMAS.svc_ask,
  status: 200,
  pending: true,
  // Spec 4.13: read-only, open-world (fetch_url). Not idempotent: each call bills (spec 1 "Cost").
  tool: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  examples: SAMPLES.map((s) => ({ name: s.name, summary: `The ready ask of sample ${s.name}`, value: { ...s.try } })),
  task: resumeAsk,
  run: runAsk,
};
