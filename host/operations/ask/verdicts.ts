// Verdicts (wire.md "Verdicts and signatures"): one per answered question (per option for choice),
// covering all its cases with the same numbers as the answer, signed as a detached RFC 7797 JWS.
import { newVerdictId, signVerdict } from '../../signing/index.ts';
import type { Quality } from '../../engine/index.ts';
import type { OpContext } from '../../services.ts';
import type { SubjectKind } from '../../schemas/index.ts';

export const CONTRACT = 'outcome-question/1.0.0';

export interface VerdictCase {
  entity_id: string;
  p: number;
  level?: string;
  choice?: string;
  position?: number;
  reasons: unknown[];
}

export interface VerdictInput {
  question: string;
  type: string;
  option?: string;
  modelRef: string;
  recordHash: string;
  outcomeColumn: string;
  polarity: 'desirable' | 'undesirable' | null;
  subjectKind: SubjectKind;
  acknowledged: boolean;
  quality: Quality;
  cases: VerdictCase[];
}

export interface SignedVerdict {
  option?: string;
  verdict: Record<string, unknown>;
  signature: Record<string, string>;
}

/**
 * A case as the Verdict holds it, every object built with its keys in canonical (sorted) order so
 * canonical JSON can write it straight through (host/signing/canonical-json.ts).
 */
function canonicalCase(c: VerdictCase): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (c.choice !== undefined) out.choice = c.choice;
  out.entity_id = c.entity_id;
  if (c.level !== undefined) out.level = c.level;
  out.p = c.p;
  if (c.position !== undefined) out.position = c.position;
  out.reasons = (c.reasons as Array<Record<string, unknown>>).map(sortKeys);
  return out;
}

function sortKeys(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o).sort()) {
    const v = o[k];
    out[k] = v !== null && typeof v === 'object' && !Array.isArray(v) ? sortKeys(v as Record<string, unknown>) : v;
  }
  return out;
}

export async function makeVerdict(ctx: OpContext, v: VerdictInput): Promise<SignedVerdict> {
  const { keyRing, engine, config, now } = ctx.services;
  const at = now();
  const verdict: Record<string, unknown> = {
    verdict_id: newVerdictId(at),
    kind: 'answer',
    question: v.question,
    type: v.type,
    ...(v.option !== undefined ? { option: v.option } : {}),
    model_ref: v.modelRef,
    record_hash: v.recordHash,
    core_hash: engine.coreHash,
    contract: CONTRACT,
    outcome: { column: v.outcomeColumn, polarity: v.polarity },
    subject_kind: v.subjectKind,
    acknowledge_decision_support: v.acknowledged,
    trust: {
      auc: v.quality.auc,
      top_decile_lift: v.quality.top_decile_lift,
      realised_lift: v.quality.realised_lift,
      validation_scheme: v.quality.validation_scheme,
    },
    cases: v.cases.map(canonicalCase),
    computed_at: new Date(at).toISOString(),
    expires_at: new Date(at + config.verdictTtlMs).toISOString(),
    issuer: config.baseUrl,
  };
  const signed = await signVerdict(keyRing, verdict);
  return {
    ...(v.option !== undefined ? { option: v.option } : {}),
    verdict: signed.verdict,
    signature: { ...signed.signature },
  };
}
