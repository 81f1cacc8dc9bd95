// svc_ask (docs/reference/ask.md): validate, resolve the record, run or reuse one fit per outcome (or score with a
// named model, docs/reference/ask.md#request), score the cases, build each question's answer with its signed Verdicts,
// count billable decisions; then the reply in the format asked for (3.6), paged over MCP when large (3.7).
import { ServiceError } from '../../errors.ts';
import { AskRequestSchema, parseBody, type AskRequest, type Question } from '../../schemas/index.ts';
import type { OpContext, OpResult } from '../../runtime/services.ts';
import { assertKeyMayUse, resolveRecord, type ResolvedRecord } from './record.ts';
import { obtainFit, type FitOutcome, type ModelLife } from './fits.ts';
import { RecordViews } from '../../core/views.ts';
import { resolveSnapshotSource } from './snapshot-source.ts';
import { checkFramingColumns, planAsk, type PlannedQuestion } from '../../core/plan.ts';
import { buildAnswer, type BuiltAnswer } from '../../core/answers.ts';
import { askReplyBytes, askReplyJson } from './reply-json.ts';
import { CONTRACT } from '../../core/contract.ts';
import { answerDepsOf } from './service-deps.ts';
import { quickOrTask } from '../../runtime/tasks.ts';
import { NO_EVENTS, TaskProgress } from '../../runtime/events/progress.ts';
import { SAMPLES } from '../../../samples/catalog.ts';
import { withIdempotency } from '../../runtime/idempotency.ts';
import { computeDrift, storeDrift } from '../models/drift.ts';
import type { ModelRecord } from '../../store/index.ts';
import { setOwn } from '../../schemas/record.ts';
import { type Operation, type OperationRequest } from '../operation.ts';
import { DAY_MS, DEFAULT_MODEL_TTL_DAYS, namespaceOf, requireModel, wireNamespace } from '../models/model-links.ts';
import { loadProfile, type Profile } from '../account/profile.ts';
import { modelForScoring, questionOfModel } from './by-model.ts';
import { caseRowsOf, type CaseSet } from '../../core/cases.ts';
import { writeExport } from './export-csv.ts';
import { replyInFormat } from './formats.ts';
import { keepAnswers } from './keep-answers.ts';
import type { AnswerProfile } from '../../core/says.ts';
import type { NotScoreable } from '../../core/cases.ts';
import { AskResponseSchema } from './ask.schema.ts';

export { CONTRACT } from '../../core/contract.ts';

/**
 * svc_ask: validates, then answers on the request thread when every fit it needs is already this
 * workspace's and its record is at hand; otherwise runs it as a task (host/runtime/tasks.ts), which
 * turns the reply into 202 pending when it outlasts config.pendingWaitMs (docs/reference/tasks.md#pending). idempotency_key
 * replays the first reply (docs/reference/ask.md#request).
 */
export async function runAsk(ctx: OpContext, raw: unknown, req?: OperationRequest): Promise<OpResult> {
  const ask = parseBody(AskRequestSchema, raw);
  assertKeyMayUse(ctx, ask.data);
  const idem = ask.idempotency_key !== undefined ? { operation: 'svc_ask', key: ask.idempotency_key } : undefined;
  const answer = () =>
    quickOrTask(ctx, { operation: 'svc_ask', body: raw, caller: ctx.caller!, idempotency: idem }, () =>
      executeAsk(ctx, ask, undefined, { quick: true }),
    );
  const run = async () =>
    // A pending ask is polled, and svc_poll formats the answer (docs/reference/tasks.md#pending).
    replyInFormat(ctx, await answer(), { format: ask.response_format ?? 'full', transport: req?.transport ?? 'rest' });
  return idem ? withIdempotency(ctx, idem.operation, idem.key, raw, run) : run();
}

/** The task: run on a task thread from its stored request (host/runtime/tasks.ts). */
function resumeAsk(ctx: OpContext, body: unknown, progress: TaskProgress): Promise<OpResult> {
  return executeAsk(ctx, parseBody(AskRequestSchema, body), progress);
}

/** One question of the ask as it is answered: fitted now (or from the cache), or by a named model. */
interface AskedQuestion {
  name: string;
  question: Question;
  fits: FitOutcome[];
  options?: string[];
  cases: CaseSet;
  recordHash: string;
  exclusionsApplied: string[];
  planned?: PlannedQuestion;
}

function answerProfileOf(profile: Profile | null, exclusionsApplied: string[]): AnswerProfile | undefined {
  if (!profile) return undefined;
  return { hash: profile.hash, display: profile.display, words: profile.words, fixed: new Set(profile.fixed), exclusionsApplied };
}

/**
 * The ask; `progress` hears each step (docs/reference/tasks.md#events: stage events of a pending ask). `quick` (the request
 * thread): throws RunAsTask as soon as it needs anything a task must do (a fit, a fit new to this
 * workspace, a record too large to read there, a download); nothing it did before is billed or changes
 * what the task will see.
 */
export async function executeAsk(
  ctx: OpContext,
  ask: AskRequest,
  progress = new TaskProgress(NO_EVENTS, ctx.services.now, ctx.services.now()),
  opts: { quick?: boolean } = {},
): Promise<OpResult> {
  const namespace = namespaceOf(ask.namespace);
  const life: ModelLife = { namespace, ttlMs: (ask.model_ttl_days ?? DEFAULT_MODEL_TTL_DAYS) * DAY_MS };
  progress.reading();
  const profile = await loadProfile(ctx, namespace);
  // docs/reference/ask.md#request: the named models first, so an unknown, expired or deleted one fails before any data is read
  const byRef = new Map<string, Awaited<ReturnType<typeof modelForScoring>>>();
  for (const [name, q] of Object.entries(ask.questions)) {
    if (q.type !== 'choice' && q.model_ref !== undefined) {
      byRef.set(name, await modelForScoring(ctx, q.model_ref, namespace, `questions.${name}.model_ref`));
    }
  }
  const record: ResolvedRecord | null = ask.data ? await resolveRecord(ctx, ask.data, opts) : null;
  if (record) progress.read(record.table.rowCount);
  // docs/reference/map.md#snapshots: the snapshots table form reads a second table, named in its shape
  const views = record ? new RecordViews(record.table, ask, await resolveSnapshotSource(ctx, ask, opts)) : null;
  if (record && ask.shape && ask.shape.kind !== 'table') progress.shaping(ask.shape.kind);
  if (record) checkFramingColumns(ask, record.table.columns);
  const fittedQuestions = Object.fromEntries(Object.entries(ask.questions).filter(([name]) => !byRef.has(name)));
  const { requests, questions } =
    record && Object.keys(fittedQuestions).length > 0
      ? planAsk(
          { ...ask, questions: fittedQuestions },
          { columns: record.table.columns, contentHash: record.contentHash, table: record.table },
          views!,
          ctx.services.engine.coreHash,
          profile?.exclude,
        )
      : { requests: new Map(), questions: [] as PlannedQuestion[] };
  // docs/reference/ask.md#questions refit_of: the earlier model each question's fit is compared with (docs/reference/outcomes.md#drift)
  const refitOf = new Map<string, ModelRecord>();
  for (const p of questions) {
    const rec = await refitTarget(ctx, p, namespace);
    if (rec) refitOf.set(p.name, rec);
  }

  const fits = new Map<string, FitOutcome>();
  progress.fits(requests.size);
  const fittingFrom = performance.now();
  const obtain = { ...opts, sample: record?.isSample === true };
  await Promise.all(
    [...requests].map(async ([key, req], i) => {
      fits.set(key, await obtainFit(ctx, req, life, progress.fitListener(i, req.outcome.column), obtain));
      progress.fitDone(i);
    }),
  );
  // docs/guides/overload.md: a fit taken over from another workspace's run takes as long here as it took there.
  const holdMs = Math.max(0, ...[...fits.values()].map((f) => f.holdMs ?? 0));
  const wait = fittingFrom + holdMs - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));

  let rowCases: CaseSet | undefined;
  const asked: AskedQuestion[] = [];
  for (const [name, q] of Object.entries(ask.questions)) {
    const m = byRef.get(name);
    if (!m) {
      const p = questions.find((x) => x.name === name)!;
      asked.push({
        name,
        question: p.question,
        fits: p.fitKeys.map((k) => fits.get(k)!),
        options: p.options,
        cases: p.view.cases,
        recordHash: record!.contentHash,
        exclusionsApplied: p.exclusionsApplied,
        planned: p,
      });
      continue;
    }
    const field = `questions.${name}`;
    const question = questionOfModel(q, m.meta, field);
    // Cases read from the record (ids, with its shape read for the model's outcome), or the rows as given.
    const cases = views
      ? views.viewFor(m.meta.outcome_column, m.meta.positive_values, field).cases
      : (rowCases ??= caseRowsOf(ask.cases!.rows!, ask.entity_column));
    asked.push({ name, question, fits: [m.fit], cases, recordHash: m.recordHash, exclusionsApplied: [] });
  }

  const answers: Record<string, unknown> = {};
  const built: Array<{ name: string; type: string; built: BuiltAnswer }> = [];
  let billable = 0;
  const deps = answerDepsOf(ctx.services);
  const next = { namespace, ...(record?.datasetId !== undefined ? { datasetId: record.datasetId } : {}) };
  for (const x of asked) {
    progress.scoring(x.name, x.cases.entityIds.length);
    const sign = deps.sign;
    const b = await buildAnswer({
      // docs/reference/tasks.md#events: the signing step begins with the question's first Verdict
      deps: sign ? { ...deps, sign: (v) => (progress.signing(x.name), sign(v)) } : deps,
      name: x.name,
      question: x.question,
      fits: x.fits,
      options: x.options,
      cases: x.cases,
      recordHash: x.recordHash,
      subjectKind: ask.subject_kind,
      acknowledged: ask.acknowledge_decision_support === true,
      band: ask.band === true,
      profile: answerProfileOf(profile, x.exclusionsApplied),
      next,
    });
    setOwn(answers, x.name, b.body);
    built.push({ name: x.name, type: x.question.type, built: b });
    billable += b.billable;
    const old = refitOf.get(x.name);
    if (old && x.planned) {
      // docs/reference/outcomes.md#drift: link the new fit to the old one and report drift (host/operations/models/drift.ts)
      const key = x.planned.fitKeys[0];
      const fit = fits.get(key)!;
      const drift = computeDrift(ctx, { table: x.planned.view.table, outcome: requests.get(key)!.outcome.values, fit, old });
      await storeDrift(ctx, fit.modelRef, drift); // the link and its report in one write
      b.body.drift = drift;
    }
  }
  assertSomeCaseAnswered(built);
  // docs/reference/outcomes.md#track-record: what each case was told, for the model's track record
  keepAnswers(ctx, namespace, built);
  // docs/reference/tasks.md#events: one answer event per question, after the last stage event
  for (const x of asked) progress.answer(x.name, answers[x.name] as Record<string, unknown>);
  const fitsRun = [...fits.values()].filter((f) => f.ran).length;
  // docs/reference/limits.md#cost Cost: refusals, not_yet and sample datasets are free; a chargeable fit (answered, on the caller's own
  // data) was billed when the workspace was given it (fits.ts linked), the decisions are billed here
  const isSample = record?.isSample === true;
  const billableDecisions = isSample ? 0 : billable;
  recordDecisions(ctx, namespace, billableDecisions);

  const body: Record<string, unknown> = {
    status: 'done',
    contract: CONTRACT,
    core_hash: ctx.services.engine.coreHash,
    ...(record ? { record: { content_hash: record.contentHash, rows: record.table.rowCount, columns: record.table.columns.length } } : {}),
    // docs/reference/ask.md#namespace: the ask echoes its namespace (null: the workspace's own)
    namespace: wireNamespace(namespace),
    answers,
    ...(views?.summary() ? { shape: views.summary() } : {}),
    ...(record?.datasetId !== undefined ? { dataset_id: record.datasetId } : {}),
    fits_run: fitsRun,
    billable_decisions: billableDecisions,
    ...(isSample ? { free: true } : {}),
  };
  // docs/reference/ask.md#request: every case with chance, level or choice and reasons, as CSV behind a link for 24 hours
  if (ask.export === 'csv') body.export = await writeExport(ctx, built);
  return { status: 200, body, bodyJson: () => askReplyJson(body), bodyBytes: () => askReplyBytes(body) };
}

/**
 * Decision on docs/decisions/0008-per-case-results.md: unreadable cases and unknown ids are per-case results; 1.0's problems remain
 * only when not one case of the call can be answered (all ids unknown is refused before any fit).
 */
function assertSomeCaseAnswered(built: ReadonlyArray<{ built: BuiltAnswer; name: string }>): void {
  const answered = built.filter((b) => b.built.asked > 0);
  if (answered.length === 0 || answered.some((b) => b.built.billable > 0)) return;
  const missing = new Set<string>();
  const unseen: Record<string, unknown[]> = {};
  for (const { built: b } of answered) {
    for (const c of b.allCases?.() ?? []) {
      const ns = c.not_scoreable as NotScoreable | undefined;
      for (const col of ns?.missing_columns ?? []) missing.add(col);
      for (const [col, vals] of Object.entries(ns?.unseen_values ?? {})) (unseen[col] ??= []).push(...vals.slice(0, 5));
    }
  }
  const parts = [
    ...(missing.size > 0 ? [`they lack column(s) the model uses: ${[...missing].join(', ')}`] : []),
    ...(Object.keys(unseen).length > 0 ? [`values the model never saw in: ${Object.keys(unseen).join(', ')}`] : []),
  ];
  throw new ServiceError('row_not_scoreable', `no case could be scored: ${parts.join('; ') || 'every case was unreadable'}`, {
    field: 'cases',
    extra: {
      ...(missing.size > 0 ? { missing_columns: [...missing] } : {}),
      ...(Object.keys(unseen).length > 0 ? { unseen_values: unseen } : {}),
    },
  });
}

/** The model a question's refit_of names: one this namespace was given, else model_ref_missing. */
async function refitTarget(ctx: OpContext, p: PlannedQuestion, namespace: string): Promise<ModelRecord | undefined> {
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
  return requireModel(ctx, ref, namespace, { field, use: 'record' });
}

/** Counts the billable decisions; the meter writes them to the ledger per namespace (usage-meter.ts). */
function recordDecisions(ctx: OpContext, namespace: string, decisions: number): void {
  const { usage, now } = ctx.services;
  usage.add(ctx.caller!.workspaceId, 'decision', decisions, now(), namespace);
}

const ASK_RULES =
  'Also required, beyond what the input schema says: data has exactly one of dataset_id, rows, csv, fetch_url (fetch_headers only ' +
  'with fetch_url), and data is required unless every question names a model_ref and cases are rows; a question needs ' +
  'outcome_column unless it names a model_ref (yesno, score and rank only; not with refit_of); cases has exactly one of ' +
  "ids, rows or open (today's open cases: blank outcomes, on a snapshots grid the readings at as_of), and is required unless every question is rank; subject_kind " +
  'person requires acknowledge_decision_support: true; time_column is required with any shape other than table; score: ' +
  'cuts has one fewer item than levels and is strictly ascending (levels alone must have 4 items, cuts alone 3); ' +
  'choice: option_column with options, or option_outcomes (not both), and outcome_column unless option_outcomes is given; ' +
  'group_column only on a table record (no shape, or shape kind table) and never the time_column or an outcome.';

/** svc_ask: the one declaration the transports, MCP, OpenAPI and tasks are derived from. */
export const askOperation: Operation = {
  name: 'svc_ask',
  resource: 'ask',
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
    'unless it reuses idempotency_key. A test key works on sample datasets (sample:<name>) only. To score new cases ' +
    'with a model and no fit, name its model_ref in the question and send the cases as rows (data may then be ' +
    'omitted; fits_run 0, decisions billed); a case the model cannot read comes back state not_scoreable, unbilled. ' +
    'namespace keeps models, profiles and usage per customer of your product (a model_ref of another namespace is ' +
    'model_ref_missing); model_ttl_days (default 90) sets how long a model this call fits lives. A table of several ' +
    'rows per case names its case column in group_column (it may be entity_column): whole cases are held out. response_format ' +
    'concise drops Verdicts and compact also lean cases (the whole answer at page.answer_url); export: "csv" adds a ' +
    'CSV of every case at export.results_url. Over MCP an answer above about 60,000 characters comes back as page one: ' +
    'continue with svc_page and page.next_cursor. Each answer has decision and next[] (what to do next). Bulk scoring ' +
    'of thousands of cases belongs on REST (POST /v1/ask).',
  rules: ASK_RULES,
  request: AskRequestSchema,
  response: AskResponseSchema,
  status: 200,
  pending: true,
  // docs/reference/mcp.md: read-only, open-world (fetch_url). Not idempotent: each call bills (docs/reference/limits.md#cost).
  tool: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  examples: SAMPLES.map((s) => ({ name: s.name, summary: `The ready ask of sample ${s.name}`, value: { ...s.try } })),
  task: resumeAsk,
  run: runAsk,
};
