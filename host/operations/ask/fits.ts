// Fits for an ask: one per (outcome, positive values, outcome_is_desirable) on the record
// (spec 4.1 rule 1), cached by fit key in the store (spec 2.1, survives restarts) and run once
// even when asks race (single flight). The model_ref is a hash of core, record and fit key.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../signing/index.ts';
import { encodeTable, fitEncoded, Model, type FitResult, type Quality } from '../../engine/index.ts';
import type { RawTable } from '../../table/types.ts';
import type { OpContext } from '../../services.ts';
import type { ResolvedOutcome } from './outcome.ts';
import { WeightedLru } from '../lru.ts';
import { packHeldLogits, packHeldOut } from './held-out.ts';

export interface FitRequest {
  table: RawTable;
  recordHash: string;
  entityColumn: string;
  timeColumn?: string;
  /** Canonical JSON of the shape read (absent for a plain table, so table fit keys never change). */
  shapeKey?: string;
  outcome: ResolvedOutcome;
  desirable: boolean | null;
}

/** What an answer needs from a fit, whether it ran now or came from the store. */
export interface FitOutcome {
  fitKey: string;
  modelRef: string;
  state: FitResult['state'];
  reasons: string[];
  needs: FitResult['needs'];
  have: FitResult['have'];
  quality: Quality;
  model: Model | null;
  cache: 'hit' | 'miss';
  /** True when this call ran the fit (counts toward fits_run). */
  ran: boolean;
  /** The stored diagnostics (column AUCs, the packed held-out rows for drift). */
  diagnostics: Record<string, unknown>;
}

interface StoredMeta {
  state: FitResult['state'];
  reasons: string[];
  needs: FitResult['needs'];
  have: FitResult['have'];
  quality: Quality;
  outcome_column: string;
  positive_values: string[];
  desirable: boolean | null;
  diagnostics: Record<string, unknown>;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export function fitKeyOf(coreHash: string, req: FitRequest): string {
  return sha256(
    canonicalJson({
      v: 1,
      core: coreHash,
      record: req.recordHash,
      entity: req.entityColumn,
      time: req.timeColumn ?? null,
      outcome: req.outcome.column,
      positives: req.outcome.positiveValues,
      desirable: req.desirable,
      ...(req.shapeKey !== undefined ? { shape: req.shapeKey } : {}),
    }),
  );
}

/** wire.md: mr1_ + 32 hex of a hash of core hash + record content hash + fit key. */
export function modelRefOf(coreHash: string, recordHash: string, fitKey: string): string {
  return 'mr1_' + sha256(`mr1|${coreHash}|${recordHash}|${fitKey}`).slice(0, 32);
}

/** The fit for `req`: from the store when present, else run once (concurrent callers share it). */
export async function obtainFit(ctx: OpContext, req: FitRequest): Promise<FitOutcome> {
  const { engine, store } = ctx.services;
  const fitKey = fitKeyOf(engine.coreHash, req);
  const modelRef = modelRefOf(engine.coreHash, req.recordHash, fitKey);
  const workspace = ctx.caller!.workspaceId;
  const { recentFits, inFlight } = cachesOf(ctx);
  const known = recentFits.get(fitKey);
  if (known) {
    await linkWorkspace(ctx, fitKey, workspace);
    return { ...known, cache: 'hit', ran: false };
  }
  const cached = await store.getModelByFitKey(fitKey);
  if (cached) {
    await linkWorkspace(ctx, fitKey, workspace);
    const out = fromMeta(fitKey, cached.model_ref, JSON.parse(cached.meta) as StoredMeta, cached.bytes, 'hit', false);
    recentFits.set(fitKey, out, weightOf(cached.bytes));
    return out;
  }
  let running = inFlight.get(fitKey);
  const mine = !running;
  if (!running) {
    running = runAndStore(ctx, req, fitKey, modelRef).finally(() => inFlight.delete(fitKey));
    inFlight.set(fitKey, running);
  }
  const out = await running;
  if (!mine) {
    // Another ask ran it: link this workspace too; this call ran nothing.
    await linkWorkspace(ctx, fitKey, workspace);
    return { ...out, ran: false, cache: 'hit' };
  }
  return out;
}

// Fits are immutable once stored: the recent ones stay parsed in memory (weighed by model bytes),
// and which workspaces were already given a model_ref is remembered, so a cached ask writes nothing.
// Kept per store: two services in one process (tests) must not see each other's fits.
interface FitCaches {
  recentFits: WeightedLru<string, FitOutcome>;
  linked: WeightedLru<string, true>;
  inFlight: Map<string, Promise<FitOutcome>>;
}
const cachesByStore = new WeakMap<object, FitCaches>();
function cachesOf(ctx: OpContext): FitCaches {
  let c = cachesByStore.get(ctx.services.store);
  if (!c) {
    c = { recentFits: new WeightedLru(256 * 1024 * 1024), linked: new WeightedLru(200_000), inFlight: new Map() };
    cachesByStore.set(ctx.services.store, c);
  }
  return c;
}
const weightOf = (bytes: Uint8Array) => Math.max(1024, bytes.length);

async function linkWorkspace(ctx: OpContext, fitKey: string, workspace: string): Promise<void> {
  const { linked } = cachesOf(ctx);
  const key = `${workspace}/${fitKey}`;
  if (linked.get(key)) return;
  const rec = await ctx.services.store.getModelByFitKey(fitKey);
  if (rec) await ctx.services.store.putModel({ ...rec, workspace_id: workspace, created_at: ctx.services.now() });
  linked.set(key, true);
}

async function runAndStore(ctx: OpContext, req: FitRequest, fitKey: string, modelRef: string): Promise<FitOutcome> {
  const { store, pool, now } = ctx.services;
  const encoded = encodeTable(req.table, {
    entityColumn: req.entityColumn,
    outcomeColumn: req.outcome.column,
    outcome: req.outcome.values,
    timeColumn: req.timeColumn,
  });
  const res = await fitEncoded(encoded, pool);
  const d = res.diagnostics;
  const meta: StoredMeta = {
    state: res.state,
    reasons: res.reasons,
    needs: res.needs,
    have: res.have,
    quality: res.quality,
    outcome_column: req.outcome.column,
    positive_values: req.outcome.positiveValues,
    desirable: req.desirable,
    diagnostics: {
      auc_z: d.aucZ,
      log_loss_z: d.logLossZ,
      calibration_slope: d.calibrationSlope,
      calibration_applied: d.calibrationApplied,
      mean_rounds: d.meanRounds,
      pairs: d.pairs,
      usable_columns: d.usableColumns,
      column_auc: d.columnAuc,
      // spec 3.4: a later refit_of evaluates the older model on these same held-out rows
      held_out: packHeldOut(d.rowSplit),
      ...(res.quality.validation_scheme === 'entity_hash_folds' ? { held_out_logits: packHeldLogits(d.rowSplit, d.heldLogits) } : {}),
    },
  };
  const bytes = res.model ? res.model.toBytes() : new Uint8Array(0);
  await store.putModel({
    model_ref: modelRef,
    workspace_id: ctx.caller!.workspaceId,
    fit_key: fitKey,
    record_hash: req.recordHash,
    bytes,
    meta: JSON.stringify(meta),
    created_at: now(),
  });
  const { linked, recentFits } = cachesOf(ctx);
  linked.set(`${ctx.caller!.workspaceId}/${fitKey}`, true);
  const out = fromMeta(fitKey, modelRef, meta, bytes, 'miss', true);
  recentFits.set(fitKey, out, weightOf(bytes));
  return out;
}

function fromMeta(fitKey: string, modelRef: string, meta: StoredMeta, bytes: Uint8Array, cache: 'hit' | 'miss', ran: boolean): FitOutcome {
  return {
    fitKey,
    modelRef,
    state: meta.state,
    reasons: meta.reasons,
    needs: meta.needs,
    have: meta.have,
    quality: meta.quality,
    model: bytes.length > 0 ? Model.fromBytes(bytes) : null,
    cache,
    ran,
    diagnostics: meta.diagnostics ?? {},
  };
}
