// svc_backtest (docs/reference/map.md#backtest): for each past cutoff of a built log record, fit on the readings known then
// (the normal fit path: cached, billed per fit, reused free), grade on what came after next to a naive
// baseline, and sign one never-expiring Verdict of kind `backtest` over the whole. Runs as a task like ask.
import { createHash } from 'node:crypto';
import { ServiceError } from '../../errors.ts';
import { parseBody, type AskRequest } from '../../schemas/index.ts';
import { canonicalJson } from '../../signing/index.ts';
import type { OpContext, OpResult } from '../../runtime/services.ts';
import { GRID_EVERY_DAYS } from '../../table/shapes/snapshots.ts';
import type { RawTable } from '../../table/types.ts';
import { isMissing, parseNumber } from '../../table/typing.ts';
import { assertKeyMayUse, resolveRecord } from '../ask/record.ts';
import { obtainFit, type FitOutcome, type FitRequest } from '../ask/fits.ts';
import { planAsk } from '../../core/plan.ts';
import { RecordViews } from '../../core/views.ts';
import { pickRows } from '../../core/cases.ts';
import { scoreTable } from '../../core/scoring.ts';
import { NO_EVENTS, TaskProgress } from '../../runtime/events/progress.ts';
import { withIdempotency } from '../../runtime/idempotency.ts';
import { DAY_MS, DEFAULT_MODEL_TTL_DAYS, namespaceOf, wireNamespace } from '../models/model-links.ts';
import type { Operation } from '../operation.ts';
import { quickOrTask } from '../../runtime/tasks.ts';
import { findBacktestRecord, type BacktestRecord } from './record.ts';
import {
  LIFT_BAR,
  baselineScores,
  bestColumn,
  calibration,
  decide,
  rankGrade,
  summaryOf,
  type BaselineColumn,
  type GradedCutoff,
} from './grade.ts';
import { signBacktest } from './verdict.ts';
import { formatBacktest } from './format.ts';
import { type BacktestRequest, BacktestRequestSchema, BacktestResponseSchema } from './backtest.schema.ts';

/** docs/reference/map.md#backtest cutoffs.last default and bounds. */
const LAST_DEFAULT = 6;
const LAST_MIN = 3;
const LAST_MAX = 12;

type Every = '1d' | '1w' | '4w';

/** docs/reference/map.md#backtest: cutoffs.every is the record's snapshot_every or a multiple of it (1d: any; 1w: 1w/4w; 4w: 4w). */
function checkCutoffs(req: BacktestRequest, recordEvery: Every): { every: Every; last: number } {
  const every = req.cutoffs?.every ?? recordEvery;
  if (GRID_EVERY_DAYS[every] % GRID_EVERY_DAYS[recordEvery] !== 0) {
    throw new ServiceError(
      'backtest_cutoffs_invalid',
      `cutoffs.every: ${every} is not a multiple of the record's snapshot_every (${recordEvery}); send ${recordEvery === '1w' ? '1w or 4w' : recordEvery === '4w' ? '4w' : '1d, 1w or 4w'}`,
      { field: 'cutoffs.every' },
    );
  }
  const last = req.cutoffs?.last ?? LAST_DEFAULT;
  if (last < LAST_MIN || last > LAST_MAX) {
    throw new ServiceError('backtest_cutoffs_invalid', `cutoffs.last: ${last} is outside ${LAST_MIN} to ${LAST_MAX}`, {
      field: 'cutoffs.last',
    });
  }
  return { every, last };
}

/**
 * svc_backtest: validates, then tries on the request thread (every cutoff's fit already this workspace's);
 * otherwise runs as a task (202 pending past config.pendingWaitMs, docs/reference/tasks.md#pending), like ask. idempotency_key
 * replays the first reply.
 */
export async function runBacktest(ctx: OpContext, raw: unknown): Promise<OpResult> {
  const body = parseBody(BacktestRequestSchema, raw);
  assertKeyMayUse(ctx, body.data);
  // docs/reference/ask.md#request, as on ask: person subjects turn on decision-support safeguards
  if (body.subject_kind === 'person' && body.acknowledge_decision_support !== true) {
    throw new ServiceError(
      'invalid_request',
      'acknowledge_decision_support: must be true when subject_kind is person (results are decision support, with a human in the loop)',
      { field: 'acknowledge_decision_support' },
    );
  }
  // cutoffs.last is checked before any record is read (cutoffs.every needs the record's snapshot_every)
  const last = body.cutoffs?.last;
  if (last !== undefined && (last < LAST_MIN || last > LAST_MAX)) checkCutoffs(body, '1d');
  const idem = body.idempotency_key !== undefined ? { operation: 'svc_backtest', key: body.idempotency_key } : undefined;
  const answer = () =>
    quickOrTask(ctx, { operation: 'svc_backtest', body: raw, caller: ctx.caller!, idempotency: idem }, () =>
      executeBacktest(ctx, body, undefined, { quick: true }),
    );
  const run = async () => formatBacktest(ctx, await answer(), body.response_format ?? 'full');
  return idem ? withIdempotency(ctx, idem.operation, idem.key, raw, run) : run();
}

/** The task: run on a task thread from its stored request. */
function resumeBacktest(ctx: OpContext, raw: unknown, progress: TaskProgress): Promise<OpResult> {
  return executeBacktest(ctx, parseBody(BacktestRequestSchema, raw), progress);
}

/** One cutoff as the backtest plans it: when, the fit on what was known then, and its training window. */
interface Cutoff {
  at: string;
  atMs: number;
  fitReq?: FitRequest;
  train?: RawTable;
  /** Why the cutoff could not be fitted (a ServiceError code), when it could not. */
  failed?: string;
  fit?: FitOutcome;
}

const cellNumber = (x: unknown): number | null => (isMissing(x) ? null : parseNumber(x));

/** Labelled rows of a grid table: their row indices and 0/1 labels. */
function labelled(t: RawTable, outcome: string): { rows: number[]; y: number[] } {
  const oc = t.columns.indexOf(outcome);
  const rows: number[] = [];
  const y: number[] = [];
  for (let r = 0; r < t.rowCount; r++) {
    const v = cellNumber(t.data[oc][r]);
    if (v === null) continue;
    rows.push(r);
    y.push(v === 1 ? 1 : 0);
  }
  return { rows, y };
}

/** docs/reference/map.md#backtest backtest_id: the same record (bytes and reading), cutoffs and baseline give the same id. */
function backtestIdOf(
  recordHash: string,
  rec: BacktestRecord,
  asOf: string,
  every: Every,
  last: number,
  baseline: string,
  ns: string,
): string {
  const { data: _d, questions: _q, cases: _c, ...reading } = rec.ask;
  const text = canonicalJson({
    v: 1,
    record: recordHash,
    reading,
    as_of: asOf,
    outcome: rec.outcomeColumn,
    cutoffs: { every, last },
    baseline,
    ns,
  });
  return `bt_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
}

export async function executeBacktest(
  ctx: OpContext,
  req: BacktestRequest,
  progress = new TaskProgress(NO_EVENTS, ctx.services.now, ctx.services.now()),
  opts: { quick?: boolean } = {},
): Promise<OpResult> {
  const { services } = ctx;
  const namespace = namespaceOf(req.namespace);
  progress.loading('Finding the record svc_map built');
  const rec = await findBacktestRecord(ctx, req.data.dataset_id, req.namespace, { ...opts, mappingId: req.mapping_id });
  const { every, last } = checkCutoffs(req, rec.reading.snapshot_every);
  const baselineKind = req.baseline ?? 'single_column';
  const record = await resolveRecord(ctx, rec.ask.data, opts);
  progress.loading(`Read ${record.table.rowCount.toLocaleString('en-US')} rows`, record.table.rowCount);
  const baseAsk = { ...rec.ask, subject_kind: req.subject_kind, cases: { open: true } } as unknown as AskRequest;
  // The whole record read at its own as_of: every reading, and the labels of those whose horizon has closed.
  const full = new RecordViews(record.table, baseAsk).viewFor(rec.outcomeColumn, undefined, 'data').shaped!;
  const asOfMs = Date.parse(full.asOf);
  const horizonMs = rec.reading.horizon.value * DAY_MS;
  const stepMs = GRID_EVERY_DAYS[every] * DAY_MS;
  const timeIdx = full.table.columns.indexOf(rec.ask.time_column);
  const times = new Set<string>();
  for (let r = 0; r < full.table.rowCount; r++) times.add(String(full.table.data[timeIdx][r]));
  const gridTimes = [...times].map((t) => ({ t, ms: Date.parse(t) })).sort((a, b) => a.ms - b.ms);
  const earliest = gridTimes.length > 0 ? gridTimes[0].ms : asOfMs;
  // docs/reference/map.md#backtest: the newest cutoffs on the `every` grid whose horizon closed by as_of, each with at
  // least one reading labelled by then (fewer when the record is short)
  const cutoffs: Cutoff[] = gridTimes
    .filter((g) => (asOfMs - g.ms) % stepMs === 0 && g.ms + horizonMs <= asOfMs && g.ms - horizonMs >= earliest)
    .slice(-last)
    .map((g) => ({ at: g.t, atMs: g.ms }));

  const life = { namespace, ttlMs: DEFAULT_MODEL_TTL_DAYS * DAY_MS };
  const coreHash = services.engine.coreHash;
  for (const c of cutoffs) {
    const askAt = { ...baseAsk, shape: { ...rec.ask.shape, as_of: c.at } } as unknown as AskRequest;
    try {
      const plan = planAsk(
        askAt,
        { columns: record.table.columns, contentHash: record.contentHash, table: record.table },
        new RecordViews(record.table, askAt),
        coreHash,
      );
      c.fitReq = [...plan.requests.values()][0];
      c.train = plan.questions[0].view.table;
    } catch (err) {
      // a window with nothing to learn from (no reading labelled, one class only) is this cutoff's not_yet
      if (!(err instanceof ServiceError)) throw err;
      c.failed = err.code;
    }
  }
  const fitted = cutoffs.filter((c) => c.fitReq);
  progress.cutoffs(fitted.length, rec.outcomeColumn);
  const obtain = { ...opts, sample: record.isSample };
  await Promise.all(
    fitted.map(async (c, i) => {
      c.fit = await obtainFit(ctx, c.fitReq!, life, progress.fitListener(i, rec.outcomeColumn), obtain);
      progress.fitDone(i);
    }),
  );

  progress.grading(cutoffs.length);
  const withBaseline = baselineKind === 'single_column';
  const features = full.features;
  const out: Record<string, unknown>[] = [];
  const graded: GradedCutoff[] = [];
  let refused = 0;
  let notYet = 0;
  let gradedWithPositives = 0;
  const fullLab = labelled(full.table, rec.outcomeColumn);
  for (const c of cutoffs) {
    // what came after: the readings at the cutoff, labelled by what happened within the horizon
    const at = fullLab.rows.map((r, i) => ({ r, y: fullLab.y[i] })).filter((x) => full.table.data[timeIdx][x.r] === c.at);
    const scoredRows = pickRows(
      full.table,
      at.map((x) => x.r),
    );
    const ys = at.map((x) => x.y);
    const positives = ys.reduce((a, b) => a + b, 0);
    const entry: Record<string, unknown> = { at: c.at };
    if (c.train) {
      const tl = labelled(c.train, rec.outcomeColumn);
      const ec = c.train.columns.indexOf(rec.ask.entity_column);
      const ents = new Set<string>();
      const posEnts = new Set<string>();
      tl.rows.forEach((r, i) => {
        ents.add(String(c.train!.data[ec][r]));
        if (tl.y[i] === 1) posEnts.add(String(c.train!.data[ec][r]));
      });
      entry.train = { rows: tl.rows.length, entities: ents.size, positives_entities: posEnts.size };
    } else entry.train = { rows: 0, entities: 0, positives_entities: 0 };
    entry.scored = { entities: at.length, positives };
    if (!c.fit || c.fit.state === 'not_yet' || !c.fit.model) {
      const state = c.fit?.state === 'refused' ? 'refused' : 'not_yet';
      if (state === 'refused') refused++;
      else notYet++;
      entry.state = state;
      entry.reasons = c.fit ? c.fit.reasons : [c.failed ?? 'no_labelled_readings'];
      entry.model_ref = c.fit?.modelRef ?? null;
      entry.graded = null;
      entry.baseline = null;
      out.push(entry);
      continue;
    }
    if (c.fit.state === 'refused') {
      refused++;
      out.push({ ...entry, state: 'refused', reasons: c.fit.reasons, model_ref: c.fit.modelRef, graded: null, baseline: null });
      continue;
    }
    const ps = scoreTable(services.engine, c.fit.model, scoredRows).map((s) => s.p);
    const model = rankGrade(ps, ys);
    let baseline: GradedCutoff['baseline'] = null;
    let column: BaselineColumn | null = null;
    if (withBaseline) {
      const tl = labelled(c.train!, rec.outcomeColumn);
      column = bestColumn(
        features.map((name) => {
          const col = c.train!.data[c.train!.columns.indexOf(name)];
          return { name, values: col ? tl.rows.map((r) => cellNumber(col[r])) : [] };
        }),
        tl.y,
      );
      if (column) {
        const col = scoredRows.data[scoredRows.columns.indexOf(column.column)];
        baseline = rankGrade(baselineScores(col.map(cellNumber), column.direction), ys);
      }
    }
    entry.state = 'graded';
    entry.reasons = positives === 0 ? ['no_positives_in_window'] : [];
    entry.model_ref = c.fit.modelRef;
    entry.graded = { ...model, calibration: calibration(ps, ys) };
    entry.baseline = withBaseline
      ? column
        ? { column: column.column, direction: column.direction, graded: baseline }
        : { column: null, direction: null, graded: null }
      : null;
    if (positives > 0) gradedWithPositives++;
    graded.push({ positives, capture: model.capture, lift: model.lift, baseline });
    out.push(entry);
  }
  const summary = summaryOf(graded, withBaseline);
  const decision = decide(gradedWithPositives, refused, summary.lift.top10, summary.baseline?.lift.top10 ?? null, withBaseline);
  const backtestId = backtestIdOf(record.contentHash, rec, full.asOf, every, last, baselineKind, namespace);
  const recordOut = {
    outcome_column: rec.outcomeColumn,
    horizon: rec.reading.horizon,
    snapshot_every: rec.reading.snapshot_every,
    as_of: full.asOf,
    ...(rec.mappingId ? { mapping_id: rec.mappingId } : {}),
    record_hash: record.contentHash,
  };
  const summaryOut = { cutoffs: { graded: graded.length, not_yet: notYet, refused }, ...summary };
  const signed = await signBacktest(services, {
    backtestId,
    datasetId: req.data.dataset_id,
    record: recordOut,
    cutoffs: { every, last },
    baseline: baselineKind,
    cutoffResults: out.map((c) => ({
      at: c.at,
      state: c.state,
      model_ref: c.model_ref,
      scored: c.scored,
      lift: (c.graded as { lift?: unknown } | null)?.lift ?? null,
    })),
    summary: summaryOut,
    decision,
    liftBar: LIFT_BAR,
    subjectKind: req.subject_kind,
    acknowledged: req.acknowledge_decision_support === true,
  });
  // docs/reference/map.md#backtest: a fit per cutoff fitted is billed as on ask (answered fits on the caller's own data), when the
  // workspace is given it (ask/fits.ts linked)
  const fitsRun = fitted.filter((c) => c.fit!.ran).length;
  const body: Record<string, unknown> = {
    status: 'done',
    dataset_id: req.data.dataset_id,
    namespace: wireNamespace(namespace),
    record: recordOut,
    backtest_id: backtestId,
    cutoffs: out,
    summary: summaryOut,
    decision,
    verdict: signed.verdict,
    signature: signed.signature,
    fits_run: fitsRun,
    ...(record.isSample ? { free: true } : {}),
    next: nextOf(req, rec, decision),
  };
  return { status: 200, body };
}

function nextOf(req: BacktestRequest, rec: BacktestRecord, decision: string): unknown[] {
  const next: unknown[] = [
    {
      operation: 'svc_verify',
      with: { verdict: '<verdict>', signature: '<signature>' },
      cost: 'free',
      gives: 'whether this Verdict is genuine (it never expires)',
    },
  ];
  if (decision === 'supported') {
    next.unshift({
      operation: 'svc_ask',
      with: { ...rec.ask, subject_kind: req.subject_kind },
      cost: 'a fit (the first 1,000 a month are free, samples always) and one decision per answered case',
      gives: "chances for today's open cases, on a question the record's own past supported",
    });
  } else if (decision === 'not_yet') {
    next.unshift({
      operation: 'svc_backtest',
      with: { data: req.data },
      cost: 'a fit per new cutoff',
      gives: 'a decision once three cutoffs have closed with outcomes in them',
    });
  }
  return next;
}

/** svc_backtest: the one declaration the transports, MCP, OpenAPI and tasks are derived from. */
export const backtestOperation: Operation = {
  name: 'svc_backtest',
  resource: 'backtest',
  path: '/v1/backtest',
  method: 'POST',
  auth: 'key',
  body: 'json',
  title: 'Backtest a mapped record',
  description:
    'Shows what a log record svc_map built would have supported in its own past. For each of the newest cutoffs ' +
    "(cutoffs.every, default the record's snapshot_every; cutoffs.last, default 6) whose horizon closed by the record's " +
    'as_of, it fits on the readings known at that cutoff and grades the chances of the cases read at it against what ' +
    'happened within the horizon: capture and lift at the top 10% and 20%, 10-bin calibration, next to a baseline ' +
    '(single_column: the numeric column that alone best ranked the training window; or none). summary holds the ' +
    'positives-weighted means over graded cutoffs; decision is supported (three or more cutoffs graded with positives, ' +
    `lift.top10 at least ${LIFT_BAR} and above the baseline's), not_yet (fewer than three cutoffs graded with positives ` +
    'or refused) or not_supported; one signed Verdict of kind backtest covers it and never expires (svc_verify). The same ' +
    'record, cutoffs and baseline give the same backtest_id. data.dataset_id: the dataset the ask svc_map returned reads ' +
    '(the log, or the merged record), or a sample log (sample:customer_events, sample:coin_flip_events). May return ' +
    '{status: "pending", task_id} like svc_ask: poll with svc_poll. Cost: a fit per cutoff fitted (earlier ones on the ' +
    'same record are reused free; samples free); no decisions are billed. response_format concise withholds the Verdict ' +
    '(page.answer_url has it).',
  rules:
    "Also required, beyond what the input schema says: cutoffs.last from 3 to 12 and cutoffs.every the record's " +
    'snapshot_every or a multiple (else backtest_cutoffs_invalid); subject_kind person requires acknowledge_decision_support: true.',
  request: BacktestRequestSchema,
  response: BacktestResponseSchema,
  status: 200,
  pending: true,
  // additions: idempotent by idempotency_key; it writes fits (and bills them), never deletes
  tool: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  examples: [
    {
      name: 'sample',
      summary: 'Would the customer_events sample have supported "lapses within 60 days" week by week?',
      value: { data: { dataset_id: 'sample:customer_events' }, subject_kind: 'org' },
    },
    {
      name: 'cutoffs',
      summary: 'Monthly cutoffs, the last 4, without a baseline, Verdict withheld',
      value: {
        data: { dataset_id: 'sample:customer_events' },
        cutoffs: { every: '4w', last: 4 },
        baseline: 'none',
        subject_kind: 'org',
        response_format: 'concise',
      },
    },
  ],
  task: resumeBacktest,
  run: runBacktest,
};
