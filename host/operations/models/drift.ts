// Drift (docs/reference/outcomes.md#drift): an ask naming refit_of evaluates the older
// model on the new record's held-out rows beside the new fit, and svc_drift reads that report back.
//
// Rules:
// - evaluation rows: the new fit's held-out rows; when the new fit has no model (not_yet), every
//   labeled row of the new record (the older model never saw this version).
// - the old model holds when its AUC on those rows beats 0.5 by the bar the engine answers at
//   (one-sided alpha 0.005 over the larger of DeLong's and the null standard error: auc.ts).
// - the new model is better when the new fit is answered and its AUC on the same rows exceeds the
//   old model's by DeLong's paired z >= 2.326 (one-sided alpha 0.01) and by at least 0.02.
// - pattern: `changed` when the old model no longer holds or the new one is better, else
//   `unchanged`; recommendation: `keep` when unchanged (so one refusal on a refresh while the old
//   model holds is keep, not drift), `refit` when changed and the new fit is answered, `abandon`
//   when changed and the new fit is not answered.
// - too few rows to judge (fewer than 10 of either class): unchanged / keep, saying so in `basis`.
// - an old model that cannot score the new record (a column it uses is gone or changed type) no
//   longer holds.
// Contract 1.1 (docs/reference/README.md) settles that recommendation against both fits' held-out lift and whether
// the earlier model can still serve, adding refit_quality, keep_model_ref, note_code and note
// (drift-refit.ts).
// The report is kept on the workspace's link from the new model_ref to its refit_of, for as long as
// that link (models keep no rows and are not deleted): the same record and question give every
// workspace the same model_ref, so the report must be per workspace, and docs/reference/auth.md keeps `no_prior`
// for a model fitted without refit_of, so a report must not expire while its refit_of stands.
import { ServiceError } from '../../errors.ts';
import { Model, NotScoreable, scoreCases, type ScoreOutput } from '../../engine/index.ts';
import { parseBody } from '../../schemas/index.ts';
import type { RawTable } from '../../table/types.ts';
import type { ModelLink, ModelRecord } from '../../store/index.ts';
import type { OpContext, OpResult } from '../../runtime/services.ts';
import { aucComponents, pairedDifference, zAgainstChance, type AucComponents } from '../../lib/auc.ts';
import { pickRows } from '../../core/cases.ts';
import { unpackHeldLogits, unpackHeldOut } from '../ask/held-out.ts';
import type { FitOutcome } from '../ask/fits.ts';
import { namespaceOf, requireModel } from './model-links.ts';
import { modelWatchUrlOf } from '../../signing/watch-token.ts';
import { NO_PRIOR_FIELDS, settleRefit, type RefitFacts, type Settled } from './drift-refit.ts';
import type { StoredMeta } from '../../core/fit-outcome.ts';
import { EXAMPLE_IDS, FREE, READ_ONLY, type Operation } from '../operation.ts';
import { DriftRequestSchema, DriftResponseSchema } from './drift.schema.ts';

export const Z_ALPHA_01 = 2.3263478740408408;
/** The engine's bar for "beats chance" (assembly/tunables.ts Z_AUC, one-sided alpha 0.005). */
export const Z_ANSWER = 2.5758293035489004;
export const MIN_AUC_GAIN = 0.02;
export const MIN_CLASS_ROWS = 10;
const TOP_COLUMNS = 5;

export type DriftPattern = 'unchanged' | 'changed' | 'no_prior';
export type DriftRecommendation = 'keep' | 'refit' | 'abandon';

export interface DriftReport extends Partial<Omit<Settled, 'recommendation'>> {
  pattern: DriftPattern;
  recommendation: DriftRecommendation;
  report: { refit_of?: string; compared_recommendation?: DriftRecommendation } & Record<string, unknown>;
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;
const finite = (x: number) => (Number.isFinite(x) ? round6(x) : x > 0 ? 1e9 : -1e9);

export interface DriftInput {
  table: RawTable;
  /** Outcome per row of `table`: 1, 0 or NaN (unlabeled). */
  outcome: Float64Array;
  fit: FitOutcome;
  old: ModelRecord;
}

function tryScore(ctx: OpContext, model: Model, rows: RawTable): ScoreOutput | string[] {
  try {
    return scoreCases(ctx.services.engine, model, rows);
  } catch (err) {
    if (err instanceof NotScoreable) return err.missingColumns.length > 0 ? err.missingColumns : [err.badValue!.column];
    throw err;
  }
}

/** Mean |contribution| per column name over the scored rows. */
function strengths(model: Model, out: ScoreOutput, n: number): Map<string, number> {
  const m = model.columns.length;
  const s = new Map<string, number>();
  model.columns.forEach((c, j) => {
    if (c.kind === 'unused') return;
    let sum = 0;
    for (let r = 0; r < n; r++) sum += Math.abs(out.contributions[r * m + j]);
    s.set(c.name, sum / n);
  });
  return s;
}

/** Columns whose contributions moved most between the models on the same rows (mean |new - old|). */
function columnsMoved(oldModel: Model, oldOut: ScoreOutput, newModel: Model, newOut: ScoreOutput, n: number) {
  const oi = new Map(oldModel.columns.map((c, j) => [c.name, c.kind === 'unused' ? -1 : j]));
  const ni = new Map(newModel.columns.map((c, j) => [c.name, c.kind === 'unused' ? -1 : j]));
  const om = oldModel.columns.length;
  const nm = newModel.columns.length;
  const oldS = strengths(oldModel, oldOut, n);
  const newS = strengths(newModel, newOut, n);
  const names = [...new Set([...oldS.keys(), ...newS.keys()])];
  const moved = names.map((name) => {
    const a = oi.get(name) ?? -1;
    const b = ni.get(name) ?? -1;
    let sum = 0;
    for (let r = 0; r < n; r++) {
      const x = a >= 0 ? oldOut.contributions[r * om + a] : 0;
      const y = b >= 0 ? newOut.contributions[r * nm + b] : 0;
      sum += Math.abs(y - x);
    }
    return { column: name, moved: round6(sum / n), old_strength: round6(oldS.get(name) ?? 0), new_strength: round6(newS.get(name) ?? 0) };
  });
  moved.sort((x, y) => y.moved - x.moved || (x.column < y.column ? -1 : x.column > y.column ? 1 : 0));
  return moved.filter((c) => c.moved > 0).slice(0, TOP_COLUMNS);
}

/** The drift report of a refit (rules at the top of this file), settled (drift-refit.ts). */
export function computeDrift(ctx: OpContext, d: DriftInput): DriftReport {
  const compared = compareFits(ctx, d);
  const meta = JSON.parse(d.old.meta) as StoredMeta;
  const facts: RefitFacts = {
    newRef: d.fit.modelRef,
    newAnswered: d.fit.state === 'answered' && d.fit.model !== null,
    newQuality: d.fit.quality,
    priorRef: d.old.model_ref,
    priorQuality: meta.quality ?? null,
    priorHolds: null,
    priorUnusable: priorUnusable(ctx, d.old, d.old, meta),
  };
  return settled(compared, facts);
}

/** Why an earlier model cannot serve (null: it can): its link, its stored fit (null when gone) and that fit's meta. */
function priorUnusable(
  ctx: OpContext,
  link: ModelLink | null,
  rec: ModelRecord | null,
  meta: StoredMeta | null,
): RefitFacts['priorUnusable'] {
  if (link?.deleted_at != null) return 'deleted';
  if (!link || !rec || !meta) return 'gone';
  if (link.expires_at !== null && link.expires_at <= ctx.services.now()) return 'expired';
  return meta.state === 'answered' && rec.bytes.length > 0 ? null : 'never_answered';
}

/** The comparison's report with the docs/reference/README.md fields; settles from the comparison's own recommendation. */
function settled(d: DriftReport, facts: RefitFacts): DriftReport {
  const compared = d.report.compared_recommendation ?? d.recommendation;
  const holds = d.report.old_holds;
  const better = d.report.new_better;
  const s = settleRefit(compared, {
    ...facts,
    priorHolds: typeof holds === 'boolean' ? holds : null,
    newBetter: typeof better === 'boolean' ? better : null,
  });
  return {
    pattern: d.pattern,
    recommendation: s.recommendation,
    refit_quality: s.refit_quality,
    keep_model_ref: s.keep_model_ref,
    note_code: s.note_code,
    note: s.note,
    report: { ...d.report, compared_recommendation: compared },
  };
}

/** The earlier model of a stored report, read again at svc_drift (it may have been deleted or expired since). */
async function factsAt(ctx: OpContext, rec: ModelRecord, refitOf: string): Promise<RefitFacts> {
  const ws = ctx.caller!.workspaceId;
  const link = await ctx.services.store.getModelLink(ws, refitOf);
  const prior = link && link.deleted_at === null ? await ctx.services.store.getModelByRef(ws, refitOf) : null;
  const priorMeta = prior ? (JSON.parse(prior.meta) as StoredMeta) : null;
  const meta = JSON.parse(rec.meta) as StoredMeta;
  return {
    newRef: rec.model_ref,
    newAnswered: meta.state === 'answered' && rec.bytes.length > 0,
    newQuality: meta.quality ?? null,
    priorRef: refitOf,
    priorQuality: priorMeta?.quality ?? null,
    priorHolds: null,
    priorUnusable: priorUnusable(ctx, link, prior, priorMeta),
  };
}

/** The comparison of the two fits (rules at the top of this file). */
function compareFits(ctx: OpContext, d: DriftInput): DriftReport {
  const { table, outcome, fit, old } = d;
  const oldModel = old.bytes.length > 0 ? Model.fromBytes(old.bytes) : null;
  const newModel = fit.model;
  const answered = fit.state === 'answered' && newModel !== null;
  const held = newModel ? unpackHeldOut(fit.diagnostics.held_out, table.rowCount) : null;
  const basisRows = held ?? [...outcome.keys()].filter((r) => outcome[r] === 0 || outcome[r] === 1);
  const rows = basisRows.filter((r) => outcome[r] === 0 || outcome[r] === 1);
  const labels = rows.map((r) => outcome[r]);
  const positives = labels.filter((y) => y === 1).length;
  const report: DriftReport['report'] = {
    refit_of: old.model_ref,
    new_state: fit.state,
    evaluated_on: held ? 'held_out' : 'labeled_rows',
    evaluated_rows: rows.length,
    evaluated_positives: positives,
  };
  const decide = (pattern: 'unchanged' | 'changed'): DriftReport => ({
    pattern,
    recommendation: pattern === 'unchanged' ? 'keep' : answered ? 'refit' : 'abandon',
    report,
  });

  if (!oldModel) {
    report.old_holds = false;
    report.basis = 'the earlier fit has no model (it was not_yet), so it cannot be compared';
    return decide('changed');
  }
  const cases = pickRows(table, rows);
  const oldOut = tryScore(ctx, oldModel, cases);
  if (Array.isArray(oldOut)) {
    report.old_holds = false;
    report.old_missing_columns = oldOut;
    report.basis = `the earlier model cannot score this record: ${oldOut.join(', ')} missing or of another type`;
    return decide('changed');
  }
  if (positives < MIN_CLASS_ROWS || rows.length - positives < MIN_CLASS_ROWS) {
    report.basis = `too few rows to compare (${positives} positive, ${rows.length - positives} negative; ${MIN_CLASS_ROWS} of each needed): no evidence of change`;
    return decide('unchanged');
  }
  const oldC = aucComponents(oldOut.p, labels) as AucComponents;
  const oldZ = zAgainstChance(oldC);
  const oldHolds = oldZ >= Z_ANSWER;
  report.old_auc_on_new = round6(oldC.auc);
  report.old_z_vs_chance = finite(oldZ);
  report.old_holds = oldHolds;

  let newBetter = false;
  // Without its held-out rows (a fit stored before they were kept) the new model would be judged on
  // rows it learned from, so it is not compared.
  const newOut = newModel && held ? tryScore(ctx, newModel, cases) : null;
  if (newModel && newOut && !Array.isArray(newOut)) {
    // A cross-fitted model learned from every row, these included: its held-out scores are the ones
    // each row got from the fold model that never saw it (kept with the fit; rank-equivalent to p).
    const kept = held ? unpackHeldLogits(fit.diagnostics.held_out_logits, held.length) : null;
    const at = new Map(held?.map((r, i) => [r, i]) ?? []);
    const newScores = kept ? rows.map((r) => kept[at.get(r)!]) : newOut.p;
    const newC = aucComponents(newScores, labels) as AucComponents;
    const paired = pairedDifference(oldC, newC);
    newBetter = answered && paired.z >= Z_ALPHA_01 && paired.diff >= MIN_AUC_GAIN;
    report.new_auc = round6(newC.auc);
    report.auc_difference = round6(paired.diff);
    report.z_difference = finite(paired.z);
    report.new_better = newBetter;
    report.columns_moved = columnsMoved(oldModel, oldOut, newModel, newOut, rows.length);
  } else {
    report.new_auc = null;
  }
  report.basis = !oldHolds
    ? 'the earlier model no longer beats chance on the new rows'
    : newBetter
      ? 'the new fit ranks the new rows clearly better than the earlier model'
      : 'the earlier model still holds on the new rows and the new fit is not clearly better';
  return decide(!oldHolds || newBetter ? 'changed' : 'unchanged');
}

/**
 * Keeps the report of `modelRef` for svc_drift on this workspace's link, together with the refit_of
 * it was computed against (one statement, so the link never names one model and reports on another).
 */
export async function storeDrift(ctx: OpContext, modelRef: string, drift: DriftReport): Promise<void> {
  const refitOf = drift.report.refit_of;
  if (typeof refitOf !== 'string') throw new Error(`drift report of ${modelRef} names no refit_of`);
  await ctx.services.store.saveDriftReport(ctx.caller!.workspaceId, modelRef, refitOf, JSON.stringify(drift));
}

/**
 * The drift of `modelRef` in `namespace` of the caller's workspace, without watch_url: the stored report of a refit,
 * or no_prior for a model_ref fitted without refit_of. What svc_drift answers and its watch link shows (watch.ts).
 */
export async function driftBody(ctx: OpContext, modelRef: string, namespace: string): Promise<Record<string, unknown>> {
  const rec = await requireModel(ctx, modelRef, namespace, { use: 'record' });
  if (!rec.refit_of) {
    const report = { basis: 'this model_ref was not fitted with refit_of, so there is nothing to compare it with' };
    return { pattern: 'no_prior', ...NO_PRIOR_FIELDS, report };
  }
  const stored = await ctx.services.store.getDriftReport(ctx.caller!.workspaceId, modelRef);
  if (stored) return { ...settled(JSON.parse(stored.report) as DriftReport, await factsAt(ctx, rec, rec.refit_of)) };
  // Linked but never reported: the ask naming refit_of stopped between the two writes (a pending one
  // is re-run by the task runner and reports then), or the link predates kept reports. Not no_prior.
  throw new ServiceError(
    'drift_not_recorded',
    `model_ref: the drift report of ${modelRef} against ${rec.refit_of} was not recorded (the ask that named refit_of did not finish); ` +
      'retry shortly if that ask is still pending, or ask again with refit_of to compare',
    { field: 'model_ref' },
  );
}

/** svc_drift: driftBody with its watch_url (docs/reference/outcomes.md#drift, docs/reference/outcomes.md#watch). */
export async function runDrift(ctx: OpContext, raw: unknown): Promise<OpResult> {
  const req = parseBody(DriftRequestSchema, raw);
  const namespace = namespaceOf(req.namespace);
  const body = await driftBody(ctx, req.model_ref, namespace);
  const watch = { workspaceId: ctx.caller!.workspaceId, namespace, modelRef: req.model_ref, kind: 'drift' as const };
  return { status: 200, body: { ...body, watch_url: modelWatchUrlOf(ctx.services, watch, ctx.services.now()) } };
}

/** svc_drift: the one declaration the transports, MCP, OpenAPI and tasks are derived from. */
export const driftOperation: Operation = {
  name: 'svc_drift',
  resource: 'models',
  path: '/v1/drift',
  method: 'POST',
  auth: 'key',
  body: 'json',
  title: 'Compare a refit with the previous fit',
  description:
    'Compares a refit with the fit it replaced: call it with the model_ref of an answer whose ask set refit_of to the ' +
    'earlier model_ref. Returns pattern (unchanged, changed or no_prior), recommendation (keep, refit, abandon, or ' +
    "no_check_yet for a model fitted without refit_of), refit_quality (the refit's held-out top-decile lift against " +
    "the earlier model's: worse under 0.7x, better over 1.3x, similar, or not_comparable when a held-out part has " +
    'under 20 positives or the earlier model is gone), keep_model_ref (the model_ref to serve from now: the earlier ' +
    'one on keep, the refit on refit, else null), note_code (refit_worse: a worse refit gives keep; prior_unusable: ' +
    'the earlier model was deleted, expired or never answered, so it cannot be kept) and note, with a report. A ' +
    'single refusal on a refresh is not drift. watch_url shows this drift and the calibration of the model to anyone ' +
    'holding it, for 24 hours, with no key. ' +
    FREE,
  request: DriftRequestSchema,
  response: DriftResponseSchema,
  status: 200,
  pending: false,
  tool: READ_ONLY,
  examples: [{ name: 'refit', summary: 'The model_ref of an answer whose ask set refit_of', value: { model_ref: EXAMPLE_IDS.modelRef } }],
  run: runDrift,
};
