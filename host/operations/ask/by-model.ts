// docs/reference/ask.md#by-model-ref "By model_ref": a question that names a model scores with it and fits nothing (fits_run 0):
// the model's own outcome, yes values and outcome_is_desirable; the same answer shape, reasons, Verdicts
// and billing as a fitted answer. Only yesno, score and rank; the model must be live in the namespace.
import { ServiceError } from '../../errors.ts';
import type { Question } from '../../schemas/index.ts';
import type { OpContext } from '../../runtime/services.ts';
import { requireLink } from '../models/model-links.ts';
import { cachedFit } from './fits.ts';
import type { FitOutcome, StoredMeta } from '../../core/fit-outcome.ts';

export interface ScoringModel {
  fit: FitOutcome;
  meta: StoredMeta;
  /** The record the model was fitted on (a Verdict's record_hash). */
  recordHash: string;
}

/** The model `modelRef` names in `namespace`, ready to score (404 model_ref_missing, 410 model_expired/model_deleted). */
export async function modelForScoring(ctx: OpContext, modelRef: string, namespace: string, field: string): Promise<ScoringModel> {
  const link = await requireLink(ctx, modelRef, namespace, { field, use: 'serve' });
  const cached = link.fit_key === null ? null : await cachedFit(ctx, link.fit_key);
  if (!cached) throw new ServiceError('model_deleted', `${field}: the fit of ${modelRef} is no longer stored`, { field });
  return {
    fit: { ...cached.out, modelRef, modelExpiresAt: link.expires_at, cache: 'hit', ran: false },
    meta: cached.meta,
    recordHash: cached.recordHash,
  };
}

/**
 * The question as the model answers it: its outcome, yes values and outcome_is_desirable are the model's.
 * The caller may repeat them; one that differs is refused at its field (the model cannot answer another).
 */
export function questionOfModel(q: Question, meta: StoredMeta, field: string): Question {
  const refuse = (key: string, why: string) => {
    throw new ServiceError('invalid_request', `${field}.${key}: ${why}; omit it with model_ref (the model's own is used)`, {
      field: `${field}.${key}`,
    });
  };
  if (q.outcome_column !== undefined && q.outcome_column !== meta.outcome_column) {
    refuse('outcome_column', `the model was fitted on outcome ${JSON.stringify(meta.outcome_column)}`);
  }
  if (q.positive_values !== undefined) {
    const same = new Set(q.positive_values.map(String));
    if (same.size !== meta.positive_values.length || !meta.positive_values.every((v) => same.has(String(v)))) {
      refuse('positive_values', `the model reads ${JSON.stringify(meta.positive_values)} as yes`);
    }
  }
  if (q.outcome_is_desirable !== undefined && q.outcome_is_desirable !== meta.desirable) {
    refuse(
      'outcome_is_desirable',
      `the model was fitted with outcome_is_desirable ${meta.desirable === null ? 'not given' : String(meta.desirable)}`,
    );
  }
  const desirable = meta.desirable === null ? {} : { outcome_is_desirable: meta.desirable };
  return { ...q, outcome_column: meta.outcome_column, positive_values: meta.positive_values, ...desirable } as Question;
}
