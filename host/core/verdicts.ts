// Verdicts (docs/reference/verdicts.md): one per answered question (per option for choice),
// covering all its cases with the same numbers as the answer, signed as a detached RFC 7797 JWS.
import { newVerdictId, signVerdict, signedPiecesOf, type KeyRing } from '../signing/index.ts';
import type { Quality } from '../engine/result.ts';
import type { EngineModule } from '../engine/wasm.ts';
import type { Config } from '../config.ts';
import { CONTRACT } from './contract.ts';
import type { SubjectKind } from '../schemas/index.ts';

export interface VerdictCase {
  entity_id: string;
  p: number;
  /** docs/reference/ask.md#case-result (signed with the case, so an answer's cases and its Verdict's stay one array). */
  p_display?: string;
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
  /** The outcome column's values that were read as yes. */
  positiveValues: string[];
  polarity: 'desirable' | 'undesirable' | null;
  subjectKind: SubjectKind;
  acknowledged: boolean;
  quality: Quality;
  cases: VerdictCase[];
  /** docs/reference/models.md#profile: Verdicts name the profile hash of the namespace the answer was made in. */
  profileHash?: string;
}

export interface SignedVerdict {
  option?: string;
  verdict: Record<string, unknown>;
  signature: Record<string, string>;
}

/** What signing a Verdict takes of the service (its Services have these). */
export interface VerdictSigner {
  keyRing: KeyRing;
  engine: EngineModule;
  config: Config;
  now: () => number;
}

export async function makeVerdict(services: VerdictSigner, v: VerdictInput): Promise<SignedVerdict> {
  const { keyRing, engine, config, now } = services;
  const at = now();
  // Keys in canonical (sorted) order, so it reads as it is signed (the signer sorts them regardless).
  const verdict: Record<string, unknown> = {
    acknowledge_decision_support: v.acknowledged,
    // as given: the signer writes keys in canonical order whatever order they were built in, and an
    // answer whose cases hold nothing else shares this very array (answers.ts)
    cases: v.cases,
    computed_at: new Date(at).toISOString(),
    contract: CONTRACT,
    core_hash: engine.coreHash,
    expires_at: new Date(at + config.verdictTtlMs).toISOString(),
    issuer: config.baseUrl,
    kind: 'answer',
    model_ref: v.modelRef,
    ...(v.option !== undefined ? { option: v.option } : {}),
    outcome: { column: v.outcomeColumn, polarity: v.polarity, positive_values: v.positiveValues },
    ...(v.profileHash !== undefined ? { profile_hash: v.profileHash } : {}),
    question: v.question,
    record_hash: v.recordHash,
    subject_kind: v.subjectKind,
    trust: {
      auc: v.quality.auc,
      realised_lift: v.quality.realised_lift,
      top_decile_lift: v.quality.top_decile_lift,
      validation_scheme: v.quality.validation_scheme,
    },
    type: v.type,
    verdict_id: newVerdictId(at),
  };
  const signed = await signVerdict(keyRing, verdict);
  return {
    ...(v.option !== undefined ? { option: v.option } : {}),
    verdict: signed.verdict,
    signature: { ...signed.signature },
  };
}

/**
 * The canonical JSON text a Verdict of makeVerdict was signed over (host/signing signedTextOf), in
 * pieces whose concatenation is that text (host/signing signedPiecesOf).
 */
export function verdictPiecesOf(verdict: object): readonly string[] | undefined {
  return signedPiecesOf(verdict);
}
