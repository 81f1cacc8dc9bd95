// The backtest Verdict (docs/reference/map.md#backtest, docs/reference/verdicts.md#verify svc_verify): one per backtest, kind `backtest`, signed like an
// answer's (docs/reference/verdicts.md) over the record, the cutoffs' grades, the summary and the
// decision; expires_at null, so it never expires.
import { newVerdictId, signVerdict } from '../../signing/index.ts';
import type { Services } from '../../runtime/services.ts';
import type { SubjectKind } from '../../schemas/index.ts';
import { CONTRACT } from '../../core/contract.ts';

export interface BacktestVerdictInput {
  backtestId: string;
  datasetId: string;
  record: Record<string, unknown>;
  cutoffs: { every: string; last: number };
  baseline: string;
  cutoffResults: unknown[];
  summary: Record<string, unknown>;
  decision: string;
  liftBar: number;
  subjectKind: SubjectKind;
  acknowledged: boolean;
}

export async function signBacktest(
  services: Pick<Services, 'keyRing' | 'engine' | 'config' | 'now'>,
  v: BacktestVerdictInput,
): Promise<{ verdict: Record<string, unknown>; signature: Record<string, string> }> {
  const at = services.now();
  // keys in canonical (sorted) order, so it reads as it is signed
  const verdict: Record<string, unknown> = {
    acknowledge_decision_support: v.acknowledged,
    backtest: { baseline: v.baseline, cutoffs: v.cutoffs, lift_bar: v.liftBar },
    backtest_id: v.backtestId,
    computed_at: new Date(at).toISOString(),
    contract: CONTRACT,
    core_hash: services.engine.coreHash,
    cutoffs: v.cutoffResults,
    dataset_id: v.datasetId,
    decision: v.decision,
    expires_at: null,
    issuer: services.config.baseUrl,
    kind: 'backtest',
    record: v.record,
    subject_kind: v.subjectKind,
    summary: v.summary,
    verdict_id: newVerdictId(at),
  };
  const signed = await signVerdict(services.keyRing, verdict);
  return { verdict: signed.verdict, signature: { ...signed.signature } };
}
