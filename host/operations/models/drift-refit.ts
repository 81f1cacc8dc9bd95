// docs/reference/outcomes.md#drift svc_drift: how a refit compares with the model it would replace, and which model to keep.
//
// Rules:
// - refit_quality: `not_comparable` when the earlier model is gone (deleted, its fit no longer stored, or it
//   never had a model), when either fit's held-out part has fewer than 20 positives, or when either has no
//   held-out top-decile lift (or the earlier one's is not above 0); else the refit's held-out top-decile lift
//   against the earlier model's: `worse` below 0.7x, `better` above 1.3x, `similar` between. A `better` by
//   lift is only `better` when the paired comparison on the new rows agrees: with new_better false there (the
//   refit does not rank the new rows clearly better) it is `similar`, note_code `lift_not_confirmed`, so the
//   report never says better beside new_better false.
// - recommendation: the comparison's (drift.ts), except that a worse refit gives `keep` (note_code
//   `refit_worse`) while the earlier model still holds on the new rows (decision: one that no longer beats
//   chance there is not kept for the lift it had on its own record; the refit stands, with the note), and
//   an earlier model that can no longer serve (deleted, expired, gone, or never
//   answered) cannot be kept: `keep` becomes `refit` when the refit is answered, else `abandon` (note_code
//   `prior_unusable`, also given whenever the earlier model cannot serve).
// - keep_model_ref: the earlier model_ref on keep, the refit's on refit, else null.
// - a model_ref fitted without refit_of: pattern no_prior, recommendation no_check_yet (decision: nothing
//   was compared, so nothing is recommended), refit_quality not_comparable, keep_model_ref null.
// The comparison's own recommendation is kept in the report (`compared_recommendation`), so svc_drift
// settles again when the earlier model has since been deleted or has expired.
import type { Quality } from '../../engine/index.ts';

export type RefitQuality = 'worse' | 'similar' | 'better' | 'not_comparable';
export type NoteCode = 'refit_worse' | 'prior_unusable' | 'lift_not_confirmed';

export const WORSE_BELOW = 0.7;
export const BETTER_ABOVE = 1.3;
export const MIN_HELD_OUT_POSITIVES = 20;

/** What settling needs to know of both models. */
export interface RefitFacts {
  newRef: string;
  newAnswered: boolean;
  newQuality: Quality | null;
  priorRef: string;
  /** The earlier model's quality; null when it is gone. */
  priorQuality: Quality | null;
  /** Whether the earlier model still beats chance on the new rows (drift.ts old_holds); null when not judged. */
  priorHolds: boolean | null;
  /** Whether the refit ranks the new rows clearly better than the earlier model (drift.ts new_better); null when not judged. */
  newBetter?: boolean | null;
  /** Why the earlier model cannot serve any more (null: it can). */
  priorUnusable: 'deleted' | 'expired' | 'gone' | 'never_answered' | null;
}

export interface Settled {
  recommendation: 'keep' | 'refit' | 'abandon';
  refit_quality: RefitQuality;
  keep_model_ref: string | null;
  note_code: NoteCode | null;
  note: string | null;
}

function comparableLift(q: Quality | null): number | null {
  if (!q || q.held_out_positives < MIN_HELD_OUT_POSITIVES) return null;
  return typeof q.top_decile_lift === 'number' && Number.isFinite(q.top_decile_lift) ? q.top_decile_lift : null;
}

export function refitQualityOf(newQuality: Quality | null, priorQuality: Quality | null): RefitQuality {
  const now = comparableLift(newQuality);
  const before = comparableLift(priorQuality);
  if (now === null || before === null || before <= 0) return 'not_comparable';
  if (now < WORSE_BELOW * before) return 'worse';
  if (now > BETTER_ABOVE * before) return 'better';
  return 'similar';
}

const UNUSABLE_WHY: Record<NonNullable<RefitFacts['priorUnusable']>, string> = {
  deleted: 'was deleted',
  expired: 'has expired',
  gone: 'is no longer stored',
  never_answered: 'never answered (its fit was refused or not_yet)',
};

/** The recommendation and the fields of docs/reference/README.md from the comparison's recommendation and both models. */
export function settleRefit(compared: 'keep' | 'refit' | 'abandon', f: RefitFacts): Settled {
  let quality = refitQualityOf(f.newQuality, f.priorUnusable === 'gone' || f.priorUnusable === 'deleted' ? null : f.priorQuality);
  let recommendation = compared;
  let noteCode: NoteCode | null = null;
  let note: string | null = null;
  if (quality === 'better' && f.newBetter === false) {
    quality = 'similar';
    noteCode = 'lift_not_confirmed';
    note =
      `the refit's held-out top-decile lift (${f.newQuality?.top_decile_lift}) is over ${BETTER_ABOVE}x the earlier model's ` +
      `(${f.priorQuality?.top_decile_lift}) on their own records, but on the new rows it does not rank clearly better ` +
      '(new_better false), so its quality is called similar';
  }
  if (quality === 'worse' && recommendation === 'refit') {
    const lifts =
      `the refit's held-out top-decile lift (${f.newQuality?.top_decile_lift}) is under ${WORSE_BELOW}x the earlier ` +
      `model's (${f.priorQuality?.top_decile_lift})`;
    noteCode = 'refit_worse';
    if (f.priorHolds === false) {
      note = `${lifts}, but the earlier model no longer beats chance on the new rows: the refit is still the one to serve`;
    } else {
      recommendation = 'keep';
      note = `${lifts}: keep the earlier model`;
    }
  }
  if (f.priorUnusable !== null) {
    if (recommendation === 'keep') recommendation = f.newAnswered ? 'refit' : 'abandon';
    noteCode = 'prior_unusable';
    note = `the earlier model ${f.priorRef} ${UNUSABLE_WHY[f.priorUnusable]}, so it cannot be kept`;
  }
  const keep = recommendation === 'keep' ? f.priorRef : recommendation === 'refit' ? f.newRef : null;
  return { recommendation, refit_quality: quality, keep_model_ref: keep, note_code: noteCode, note };
}

/** svc_drift of a model_ref fitted without refit_of. */
export const NO_PRIOR_FIELDS = {
  recommendation: 'no_check_yet',
  refit_quality: 'not_comparable',
  keep_model_ref: null,
  note_code: null,
  note: null,
} as const;
