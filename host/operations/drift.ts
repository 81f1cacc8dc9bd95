// Drift (spec 3.4, 4.6, wire.md "The other operations"): an ask naming refit_of evaluates the older
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
// The report is kept on the workspace's link from the new model_ref to its refit_of, for as long as
// that link (models keep no rows and are not deleted): the same record and question give every
// workspace the same model_ref, so the report must be per workspace, and wire.md keeps `no_prior`
// for a model fitted without refit_of, so a report must not expire while its refit_of stands.
import { ServiceError } from '../errors.ts';
import { Model, NotScoreable, scoreCases, type ScoreOutput } from '../engine/index.ts';
import { DriftRequestSchema, parseBody } from '../schemas/index.ts';
import type { RawTable } from '../table/types.ts';
import type { ModelRecord } from '../store/index.ts';
import type { OpContext, OpResult } from '../services.ts';
import { aucComponents, pairedDifference, zAgainstChance, type AucComponents } from './auc.ts';
import { pickRows } from './ask/cases.ts';
import { unpackHeldLogits, unpackHeldOut } from './ask/held-out.ts';
import type { FitOutcome } from './ask/fits.ts';
import { namespaceOf, requireModel } from './model-links.ts';
import { EXAMPLE_IDS, FREE, READ_ONLY, type Operation } from './operation.ts';
import { REQUEST_SCHEMAS, RESPONSE_SCHEMAS } from '../schemas/index.ts';

export const Z_ALPHA_01 = 2.3263478740408408;
/** The engine's bar for "beats chance" (assembly/tunables.ts Z_AUC, one-sided alpha 0.005). */
export const Z_ANSWER = 2.5758293035489004;
export const MIN_AUC_GAIN = 0.02;
export const MIN_CLASS_ROWS = 10;
const TOP_COLUMNS = 5;

export type DriftPattern = 'unchanged' | 'changed' | 'no_prior';
export type DriftRecommendation = 'keep' | 'refit' | 'abandon';

export interface DriftReport {
  pattern: DriftPattern;
  recommendation: DriftRecommendation;
  report: { refit_of?: string } & Record<string, unknown>;
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

/** The drift report of a refit (rules at the top of this file). */
export function computeDrift(ctx: OpContext, d: DriftInput): DriftReport {
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

/** svc_drift: the stored report of a refit, or no_prior for a model_ref fitted without refit_of. */
export async function runDrift(ctx: OpContext, raw: unknown): Promise<OpResult> {
  const req = parseBody(DriftRequestSchema, raw);
  const rec = await requireModel(ctx, req.model_ref, namespaceOf(req.namespace), { use: 'record' });
  if (!rec.refit_of) {
    const report = { basis: 'this model_ref was not fitted with refit_of, so there is nothing to compare it with' };
    return { status: 200, body: { pattern: 'no_prior', recommendation: 'keep', report } };
  }
  const stored = await ctx.services.store.getDriftReport(ctx.caller!.workspaceId, req.model_ref);
  if (stored) return { status: 200, body: JSON.parse(stored.report) as DriftReport };
  // Linked but never reported: the ask naming refit_of stopped between the two writes (a pending one
  // is re-run by the task runner and reports then), or the link predates kept reports. Not no_prior.
  throw new ServiceError(
    'drift_not_recorded',
    `model_ref: the drift report of ${req.model_ref} against ${rec.refit_of} was not recorded (the ask that named refit_of did not finish); ` +
      'retry shortly if that ask is still pending, or ask again with refit_of to compare',
    { field: 'model_ref' },
  );
}

/** svc_drift: the one declaration the transports, MCP, OpenAPI and tasks are derived from. */
export const driftOperation: Operation = {
  name: 'svc_drift',
  path: '/v1/drift',
  method: 'POST',
  auth: 'key',
  body: 'json',
  title: 'Compare a refit with the previous fit',
  description:
    'Compares a refit with the fit it replaced: call it with the model_ref of an answer whose ask set refit_of to the ' +
    'earlier model_ref. Returns pattern (unchanged, changed or no_prior) and recommendation (keep, refit or abandon), ' +
    'with a report. A single refusal on a refresh is not drift. ' +
    FREE,
  request: REQUEST_SCHEMAS.svc_drift,
  response: RESPONSE_SCHEMAS.svc_drift,
  status: 200,
  pending: false,
  tool: READ_ONLY,
  examples: [{ name: 'refit', summary: 'The model_ref of an answer whose ask set refit_of', value: { model_ref: EXAMPLE_IDS.modelRef } }],
  run: runDrift,
};
