// Browser stand-in for host/operations/ask/verdicts.ts in the preview bundle: only the service
// signs Verdicts (its key never leaves it), so a preview answer carries an unsigned marker instead.
import type { SignedVerdict, VerdictInput } from '../../operations/ask/verdicts.ts';
import type { OpContext } from '../../services.ts';

export type { SignedVerdict, VerdictCase, VerdictInput } from '../../operations/ask/verdicts.ts';
export const CONTRACT = 'outcome-question/1.0.0';

export async function makeVerdict(_ctx: OpContext, v: VerdictInput): Promise<SignedVerdict> {
  return {
    ...(v.option !== undefined ? { option: v.option } : {}),
    verdict: { verdict_id: 'preview', kind: 'preview_unsigned', question: v.question, model_ref: v.modelRef, cases: v.cases.length },
    signature: {},
  };
}

/** Preview Verdicts are unsigned, so there is no signed text to reuse. */
export function verdictJsonOf(_verdict: object): string | undefined {
  return undefined;
}
