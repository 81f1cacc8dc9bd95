// What a fit is called and what an answer needs of it, the same in the service and in the browser page:
// the fit key and model_ref (docs/reference/ask.md#fits, docs/reference/ask.md#answer: mr1_ + 32 hex of core hash + record
// content hash + fit key), the stored meta of a fit, and the FitOutcome built from it.
import { canonicalJson } from '../signing/canonical-json.ts';
import { sha256Hex } from '../signing/sha256.ts';
import { Model } from '../engine/model.ts';
import type { FitResult, Quality } from '../engine/result.ts';
import type { EncodeOptions, ExclusionWhy } from '../engine/encode.ts';
import type { RawTable } from '../table/types.ts';
import type { ResolvedOutcome } from './outcome.ts';

export interface FitRequest {
  table: RawTable;
  recordHash: string;
  entityColumn: string;
  timeColumn?: string;
  /** docs/decisions/0001-group-column.md group_column, when it is not the entity column: the held-out split keeps its cases whole; part of the fit key. */
  groupColumn?: string;
  /** A reading time column left out of the features, not used to hold out (a snapshots grid's); part of the fit key. */
  readingTimeColumn?: string;
  /** Canonical JSON of the shape read (absent for a plain table, so table fit keys never change). */
  shapeKey?: string;
  outcome: ResolvedOutcome;
  desirable: boolean | null;
  /** docs/reference/models.md#profile profile `exclude`: columns this fit leaves out (applied ones only, sorted); part of the fit key. */
  exclude?: readonly string[];
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
  /** True when this call ran the fit, or is its workspace's first use of it (counts toward fits_run and billing). */
  ran: boolean;
  /** How long the fit took when it ran (ms), when known. */
  fitMs?: number;
  /** How long this ask is held for a fit it took over from another workspace; 0 or absent otherwise. */
  holdMs?: number;
  /** The stored diagnostics (column AUCs, the packed held-out rows for drift). */
  diagnostics: Record<string, unknown>;
  /** The outcome column and the values read as yes (an answer says which). */
  outcome: { column: string; positive_values: string[] };
  /** docs/reference/ask.md#answer model_expires_at: when the caller's link to this model expires (the service only). */
  modelExpiresAt?: number | null;
}

/** A fit as the store keeps it beside the model bytes. */
export interface StoredMeta {
  state: FitResult['state'];
  reasons: string[];
  needs: FitResult['needs'];
  have: FitResult['have'];
  quality: Quality;
  outcome_column: string;
  positive_values: string[];
  desirable: boolean | null;
  diagnostics: Record<string, unknown>;
  /** Wall time of encoding and fitting when it ran (absent for fits stored before it was kept). */
  fit_ms?: number;
}

export function fitKeyOf(coreHash: string, req: FitRequest): string {
  return sha256Hex(
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
      // absent when nothing is excluded, so fit keys (and model_refs) without a profile never change
      ...(req.exclude && req.exclude.length > 0 ? { exclude: [...req.exclude] } : {}),
      ...(req.readingTimeColumn !== undefined ? { reading_time: req.readingTimeColumn } : {}),
      ...(req.groupColumn !== undefined ? { group: req.groupColumn } : {}),
    }),
  );
}

/** How a fit request's table is encoded for the engine (the service's fits and the page's alike). */
export function encodeOptionsOf(req: FitRequest): EncodeOptions {
  return {
    entityColumn: req.entityColumn,
    outcomeColumn: req.outcome.column,
    outcome: req.outcome.values,
    timeColumn: req.timeColumn,
    ...(req.groupColumn !== undefined ? { groupColumn: req.groupColumn } : {}),
    // docs/reference/models.md#profile: columns the namespace's profile excludes from new fits, and a grid's reading time (part of the fit key)
    skip: skippedColumnsOf(req),
  };
}

/** The columns a fit leaves out beyond entity and time: the profile's exclusions and a grid's reading time. */
function skippedColumnsOf(req: FitRequest): Map<string, ExclusionWhy> | undefined {
  const skip = new Map<string, ExclusionWhy>((req.exclude ?? []).map((c) => [c, 'excluded_by_caller']));
  if (req.readingTimeColumn !== undefined) skip.set(req.readingTimeColumn, 'time');
  return skip.size > 0 ? skip : undefined;
}

/** docs/reference/auth.md: mr1_ + 32 hex of a hash of core hash + record content hash + fit key. */
export function modelRefOf(coreHash: string, recordHash: string, fitKey: string): string {
  return 'mr1_' + sha256Hex(`mr1|${coreHash}|${recordHash}|${fitKey}`).slice(0, 32);
}

/**
 * docs/reference/ask.md#namespace: a model fitted inside a namespace serves only that namespace, under its own ref (a hash
 * of the fit's ref and the namespace); the workspace's own models ('' namespace) keep the fit's ref, so
 * 1.0 refs and every golden answer are unchanged.
 */
export function namespacedRef(fitRef: string, namespace: string): string {
  if (namespace === '') return fitRef;
  return 'mr1_' + sha256Hex(`mr1ns|${fitRef}|${namespace}`).slice(0, 32);
}

/** The meta kept with a fit's model; `extra` adds diagnostics only the service keeps (held-out rows for drift). */
export function metaOf(res: FitResult, req: FitRequest, extra: Record<string, unknown> = {}): StoredMeta {
  const d = res.diagnostics;
  return {
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
      ...extra,
    },
  };
}

/**
 * The FitOutcome of a fit's meta and model bytes. The model is read back from its bytes, as the service
 * reads a stored fit, so an answer made at once and one made from the store (or in the page) are bit-alike.
 */
export function fitOutcomeOf(
  fitKey: string,
  modelRef: string,
  meta: StoredMeta,
  bytes: Uint8Array,
  cache: 'hit' | 'miss',
  ran: boolean,
): FitOutcome {
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
    ...(meta.fit_ms !== undefined ? { fitMs: meta.fit_ms } : {}),
    diagnostics: meta.diagnostics ?? {},
    outcome: { column: meta.outcome_column, positive_values: meta.positive_values },
  };
}
