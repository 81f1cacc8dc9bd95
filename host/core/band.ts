// docs/reference/ask.md#bands `band` (docs/reference/ask.md#case-result): how far an agent may go on its own with one case.
// refuse: the case lies outside what the record showed; act: a clear chance from a model whose
// held-out AUC is solidly good; escalate: everything else. subject_kind person never passes L1.
import type { Quality } from '../engine/index.ts';
import type { SubjectKind } from '../schemas/index.ts';
import type { ScoredCase } from './scoring.ts';

export type Band = 'act' | 'escalate' | 'refuse';
export type Autonomy = 'L0' | 'L1' | 'L2' | 'L3';

const ACT_MIN_AUC_LOW = 0.75; // lower end of the held-out AUC interval
const CLEAR_LOW = 0.1;
const CLEAR_HIGH = 0.9;

export function bandOf(quality: Quality, s: ScoredCase, subject: SubjectKind): { band: Band; band_reason: string; max_autonomy: Autonomy } {
  const cap = (level: Autonomy): Autonomy => (subject === 'person' && level > 'L1' ? 'L1' : level);
  if (s.unsupported.length > 0) {
    return {
      band: 'refuse',
      band_reason: `${s.unsupported.join(', ')}: a value the record never showed, so the chance is not backed by data`,
      max_autonomy: 'L0',
    };
  }
  const low = quality.auc_interval?.[0] ?? 0;
  if (low < ACT_MIN_AUC_LOW) {
    return {
      band: 'escalate',
      band_reason: `the model's held-out AUC may be as low as ${low}; a person should judge this case`,
      max_autonomy: cap('L1'),
    };
  }
  if (s.p > CLEAR_LOW && s.p < CLEAR_HIGH) {
    return {
      band: 'escalate',
      band_reason: `the chance ${s.p} is between ${CLEAR_LOW} and ${CLEAR_HIGH}; a person should judge this case`,
      max_autonomy: cap('L1'),
    };
  }
  return {
    band: 'act',
    band_reason: `a clear chance (${s.p}) from a model with held-out AUC of at least ${low}`,
    max_autonomy: cap(subject === 'person' ? 'L1' : 'L3'),
  };
}
